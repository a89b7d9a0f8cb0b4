/**
 * What a run's wire needs to agree on for HPCC-layout INT (docs/wire.md "INT stacks"): the one
 * INT_MULTI and the one line-rate table every switch stamps with and every real node encodes and
 * decodes with. Both follow from the scenario alone, so each node derives the same from it.
 */
import type { CcSpec } from '../../nic/api.js';
import type { RpFeatures } from '../cc/types.js';
import { ConfigError } from '../config/errors.js';
import type { Scenario } from '../config/scenario.js';
import type { Topology } from '../topology/model.js';
import { formatRate, formatSize } from '../units/index.js';
import {
  HPCC_QLEN_UNIT,
  HPCC_QLEN_UNITS_MODULO,
  HPCC_RATE_CODES,
  hpccRateTable,
  hpccRateTableOrNs3,
  hpccRateTableProblem,
  NS3_HPCC_RATES_BPS,
} from '../wire/int-hpcc.js';

/** The INT layout a host's algorithm asks for (its RpFeatures.int). */
export function intLayoutOf(c: CcSpec): RpFeatures['int'] {
  const f = c.algorithm.rp.features;
  return (typeof f === 'function' ? f(c.params) : f).int;
}

/**
 * The one INT_MULTI of a run. It is a property of the wire, not of a host: every algorithm that
 * reads the HPCC INT layout must decode with the multiplier the switches stamp with, so hosts
 * whose algorithms ask for different ones (or for one below 1, which no wire unit can be) are
 * refused rather than one of them being reinterpreted.
 */
export function runIntMulti(ccByHost: Map<string, CcSpec>): number {
  const askedBy = new Map<number, string>();
  for (const c of new Set(ccByHost.values())) {
    if (intLayoutOf(c) !== 'hpcc') continue;
    const v = (c.params as { intMulti?: unknown }).intMulti;
    const multi = typeof v === 'number' ? v : 1;
    if (!(Number.isInteger(multi) && multi >= 1))
      throw new ConfigError(`cc.${c.name}.intMulti`, `must be an integer >= 1, got ${multi}`);
    if (!askedBy.has(multi)) askedBy.set(multi, c.name);
  }
  if (askedBy.size > 1) {
    const asks = [...askedBy].map(([m, name]) => `${name} ${m}`).join(', ');
    throw new ConfigError('cc', `hosts read HPCC INT with different intMulti (${asks}); a run has one`);
  }
  return askedBy.size === 1 ? [...askedBy.keys()][0] : 1;
}

/**
 * The one HPCC INT line-rate table of a run (docs/wire.md "Rate codes"), from the line rates of
 * the switch ports that stamp INT: with `defaults.switch.intRates: scenario` the table of those
 * rates (the ns-3 table when they are all in it), with `ns3` the HPCC simulator's table. When HPCC
 * INT is stamped and read, a rate the table cannot hold is refused (exit 2, one line) instead of
 * being carried as another rate, as the simulator's code 0 = 25 Gbit/s would.
 */
export function runIntRates(s: Scenario, topo: Topology, ccByHost: Map<string, CcSpec>): readonly number[] {
  const portRates = topo.switches.flatMap((n) => n.ports.map((p) => p.rateBps));
  const distinct = [...new Set(portRates)].sort((a, b) => a - b);
  const stamped =
    s.defaults.switch.int && [...new Set(ccByHost.values())].some((c) => intLayoutOf(c) === 'hpcc');
  if (s.defaults.switch.intRates === 'ns3') {
    const outside = distinct.filter((r) => !NS3_HPCC_RATES_BPS.includes(r));
    if (stamped && outside.length > 0)
      throw new ConfigError(
        'defaults.switch.intRates',
        `ns3: the HPCC simulator's rate codes (${NS3_HPCC_RATES_BPS.map(formatRate).join(', ')}) cannot carry ${outside.map(formatRate).join(', ')}; drop intRates: ns3 to derive the table from the scenario`,
      );
    return NS3_HPCC_RATES_BPS;
  }
  if (!stamped) return hpccRateTableOrNs3(distinct);
  const problem = hpccRateTableProblem(distinct);
  if (problem !== null)
    throw new ConfigError(
      'topology',
      `switch ports use ${problem} (${distinct.map(formatRate).join(', ')}); use at most ${HPCC_RATE_CODES} link rates with HPCC INT`,
    );
  return hpccRateTable(distinct);
}

/** Bytes of the largest queue `layout`'s INT can carry (HPCC: 2^33 − 1 units of 80·multi; MPCC: a u32). */
export function intQueueLimitBytes(layout: 'hpcc' | 'mpcc', intMulti: number): number {
  return layout === 'hpcc' ? HPCC_QLEN_UNITS_MODULO * HPCC_QLEN_UNIT * intMulti - 1 : 0xffff_ffff;
}

/**
 * A switch queue can grow to the shared buffer; the INT layouts the run's hosts read must carry
 * any queue it can hold, or the run is refused (exit 2) rather than a queue read wrapped (HPCC's
 * 17-bit field alone wraps at 10.5 MB; the HpccQlenHigh option takes it to 687 GB at INT_MULTI 1)
 * or saturated (MPCC's u32, 4 GiB).
 */
export function checkIntQueueRange(s: Scenario, ccByHost: Map<string, CcSpec>, intMulti: number): void {
  if (!s.defaults.switch.int) return;
  const bufferBytes = s.defaults.switch.bufferBytes;
  const layouts = new Set([...new Set(ccByHost.values())].map(intLayoutOf));
  for (const layout of ['hpcc', 'mpcc'] as const) {
    const limit = intQueueLimitBytes(layout, intMulti);
    if (layouts.has(layout) && bufferBytes > limit)
      throw new ConfigError(
        'defaults.switch.buffer',
        `${formatSize(bufferBytes)} can hold queues longer than ${layout.toUpperCase()} INT carries (${formatSize(limit)}${layout === 'hpcc' ? ` at intMulti ${intMulti}; raise cc.<algorithm>.intMulti` : ''})`,
      );
  }
}
