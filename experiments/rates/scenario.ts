/**
 * The rate sweep's scenario (docs/algorithms/rates.md): a 4→1 incast on a star at one line rate,
 * each sender's flow lasting 1 ms at that rate (size = rate × 1 ms / 8), so that start-up does
 * not dominate and every rate carries the same number of RTTs of steady state. Default switch
 * settings, except that the ECN thresholds scale with the rate (`byRate`, proportional to the
 * BDP of the fixed-delay links): the HPCC simulator's run.py values (Kmin 4 KB and Kmax 16 KB per
 * Gbit/s, Pmax 0.2; 400 KB / 1600 KB at 100 Gbit/s), and for DCTCP its step at K = 3 KB per
 * Gbit/s with Pmax 1 (docs/algorithms/dctcp.md).
 */
import { parseScenarioText } from '../../src/config/load.js';
import type { Scenario } from '../../src/config/scenario.js';

/** The sweep's line rates, Gbit/s. */
export const SWEEP_RATES_GBPS = [10, 25, 40, 100, 200, 400, 800] as const;
export const SWEEP_SENDERS = 4;
/** How long each sender's flow lasts at line rate. */
export const FLOW_AT_LINE_RATE_NS = 1_000_000;
export const SWEEP_MTU_BYTES = 1000;
/** The receiver: the last host of the star; its switch port (s1 port 4) is the bottleneck. */
export const RECEIVER = `h${SWEEP_SENDERS + 1}`;
export const BOTTLENECK = { node: 's1', port: SWEEP_SENDERS } as const;

/** ECN thresholds of a port at `rateGbps` for algorithm `cc` (KB, as the scenario writes them). */
export function sweepEcn(cc: string, rateGbps: number): { kmin: number; kmax: number; pmax: number } {
  if (cc === 'dctcp') return { kmin: 3 * rateGbps, kmax: 3 * rateGbps, pmax: 1 };
  return { kmin: 4 * rateGbps, kmax: 16 * rateGbps, pmax: 0.2 };
}

/**
 * NIC keys an algorithm needs beyond `cc` (YAML, inside `defaults.nic`): NSCC runs only on a
 * transport with selective acknowledgement (docs/algorithms/nscc.md "Valid combinations").
 */
export const SWEEP_NIC_KEYS: Record<string, string> = { nscc: 'transport: uet' };

/**
 * Workload keys an algorithm needs beyond the flow (YAML, inside the incast entry): Dolce-RC+
 * picks a sending rate once per message (Dolce-RC paper §VI-A), so a flow that is one message is
 * sent entirely at the first arm forced exploration plays; the sweep posts the 8 KB messages of
 * the paper's own evaluation (§VI-B).
 */
export const SWEEP_WORKLOAD_KEYS: Record<string, string> = { 'dolce-rc-plus': 'messageSize: 8KB' };

/** Bytes of each sender's flow at `rateGbps`. */
export function sweepFlowBytes(rateGbps: number): number {
  return (rateGbps * 1e9 * FLOW_AT_LINE_RATE_NS) / 8e9;
}

/** The sweep scenario of `cc` at `rateGbps`, with `overrides` (`--set` style) on top. */
export function rateSweepScenario(cc: string, rateGbps: number, overrides: readonly string[] = []): Scenario {
  const e = sweepEcn(cc, rateGbps);
  const text = [
    `name: rates-${cc}-${rateGbps}g`,
    `description: 4 senders x ${FLOW_AT_LINE_RATE_NS / 1e6} ms at line rate -> h5, star, ${rateGbps} Gbps`,
    'seed: 1',
    // Long enough for the slowest algorithm to finish 4 ms of line-rate work several times over.
    'duration: 40ms',
    'defaults:',
    `  link: { rate: ${rateGbps}Gbps, delay: 1us }`,
    `  nic: { cc: ${cc}, mtu: ${SWEEP_MTU_BYTES}${SWEEP_NIC_KEYS[cc] !== undefined ? `, ${SWEEP_NIC_KEYS[cc]}` : ''} }`,
    `  switch: { ecn: { byRate: { ${rateGbps}Gbps: { kmin: ${e.kmin}KB, kmax: ${e.kmax}KB, pmax: ${e.pmax} } } } }`,
    `topology: { kind: star, hosts: ${SWEEP_SENDERS + 1} }`,
    'workload:',
    `  - { kind: incast, senders: [h1..h${SWEEP_SENDERS}], receiver: ${RECEIVER}, size: ${sweepFlowBytes(rateGbps)}, start: 0${SWEEP_WORKLOAD_KEYS[cc] !== undefined ? `, ${SWEEP_WORKLOAD_KEYS[cc]}` : ''} }`,
    '',
  ].join('\n');
  return parseScenarioText(text, { file: `rates-${cc}-${rateGbps}g.yaml`, overrides });
}
