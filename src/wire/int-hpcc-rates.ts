/**
 * The line-rate code of HPCC's INT hop word (docs/wire.md §2.1 "Rate codes"): 3 bits that index a
 * table of line rates every node of a run holds. The HPCC ns-3 simulator's table is fixed
 * (25/50/100/200/400G; its PushHop leaves the code 0 = 25G for any other rate, so a 40G link reads
 * as 25G and HPCC sees a utilisation of 1.6 on a link that is just full). The HPCC paper's INT
 * carries the port's bandwidth B itself (Li et al., SIGCOMM'19 §3.2), so here the table is the
 * scenario's: `hpccRateTable` derives it from the run's distinct switch-port rates, and is the
 * ns-3 table whenever those are all in it (so those runs keep ns-3's codes, byte for byte). A rate
 * that has no code is never snapped to another: encoding it throws, and runs refuse such a
 * configuration before they start (src/runtime/int-setup.ts).
 */
import { WireEncodeError } from './errors.js';

/** The HPCC ns-3 simulator's table: code i ↔ NS3_HPCC_RATES_BPS[i]. */
export const NS3_HPCC_RATES_BPS: readonly number[] = Object.freeze([25e9, 50e9, 100e9, 200e9, 400e9]);

/** The hop word's rate field is 3 bits wide. */
export const HPCC_RATE_CODES = 8;

/** The reason `rates` cannot be a code table, or null when it can. */
export function hpccRateTableProblem(ratesBps: readonly number[]): string | null {
  if (ratesBps.length > HPCC_RATE_CODES)
    return `${ratesBps.length} distinct line rates, but HPCC INT's 3-bit rate code holds ${HPCC_RATE_CODES}`;
  if (!ratesBps.every((r) => r > 0 && Number.isFinite(r))) return 'line rates must be positive and finite';
  if (new Set(ratesBps).size !== ratesBps.length) return 'a line rate appears twice';
  return null;
}

/**
 * The code table for a run whose links have the line rates `linkRatesBps` (any order, repeats
 * allowed): the ns-3 table when every rate is in it, else the distinct rates in ascending order.
 * Throws RangeError when there are more distinct rates than codes.
 */
export function hpccRateTable(linkRatesBps: Iterable<number>): readonly number[] {
  const distinct = [...new Set(linkRatesBps)].sort((a, b) => a - b);
  if (distinct.every((r) => NS3_HPCC_RATES_BPS.includes(r))) return NS3_HPCC_RATES_BPS;
  const problem = hpccRateTableProblem(distinct);
  if (problem !== null) throw new RangeError(problem);
  return distinct;
}

/**
 * `hpccRateTable(linkRatesBps)`, or the ns-3 table when those rates do not fit in the codes (a
 * stamp or an encoding of a rate outside it then throws): the default of a switch built without
 * its run's table (SwitchConfig.intRatesBps).
 */
export function hpccRateTableOrNs3(linkRatesBps: Iterable<number>): readonly number[] {
  const distinct = [...new Set(linkRatesBps)];
  return hpccRateTableProblem(distinct) === null ? hpccRateTable(distinct) : NS3_HPCC_RATES_BPS;
}

/** `rateBps` for messages: 40 Gbit/s, 2.5 Gbit/s, 1500 bit/s. */
export function showRate(rateBps: number): string {
  if (rateBps >= 1e9 && Number.isFinite(rateBps)) return `${rateBps / 1e9} Gbit/s`;
  return `${rateBps} bit/s`;
}

/**
 * Code of a line rate in `ratesBps`. 0 bit/s ("no rate", e.g. a hop that never had one) gets the
 * first code past the table (5 with the ns-3 table), so that what unused codes decode to (0)
 * encodes back to itself. A rate the table does not hold throws WireEncodeError.
 */
export function hpccRateCode(lineRateBps: number, ratesBps: readonly number[] = NS3_HPCC_RATES_BPS): number {
  const i = ratesBps.indexOf(lineRateBps);
  if (i >= 0) return i;
  if (lineRateBps === 0 && ratesBps.length < HPCC_RATE_CODES) return ratesBps.length;
  throw new WireEncodeError(
    `line rate ${showRate(lineRateBps)} has no HPCC INT rate code (table: ${ratesBps.map(showRate).join(', ')})`,
  );
}

/** Line rate of a code; codes past the table decode to 0. */
export function hpccRateOfCode(code: number, ratesBps: readonly number[] = NS3_HPCC_RATES_BPS): number {
  return ratesBps[code] ?? 0;
}
