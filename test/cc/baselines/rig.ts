/**
 * The baselines' tests (DCTCP, HPCC, Swift, TIMELY) on the one RP harness (src/cc/testing),
 * by algorithm name with resolved parameters and a seeded rng.
 */
import { getAlgorithm, resolveParams } from '../../../src/cc/registry.js';
import { driveRp, flowInfo } from '../../../src/cc/testing/index.js';
import type { FlowInfo } from '../../../src/cc/types.js';
import { createRng } from '../../../src/env/rng.js';

export {
  type AckOptions as AckOpts,
  ackEvent as ack,
  flowInfo,
  intHop as hop,
  nackEvent as nack,
  type RpChange as Change,
  txEvent as tx,
} from '../../../src/cc/testing/index.js';

export const G = 1e9;
export const M = 1e6;

export function expectClose(actual: number, expected: number, rel = 1e-9): void {
  const tol = rel * Math.max(1, Math.abs(expected));
  if (!(Math.abs(actual - expected) <= tol))
    throw new Error(`expected ${expected}, got ${actual} (|Δ| = ${Math.abs(actual - expected)} > ${tol})`);
}

export function rig(name: string, overrides: Record<string, unknown> = {}, flowOver: Partial<FlowInfo> = {}) {
  const flow = flowInfo(flowOver);
  // biome-ignore lint/suspicious/noExplicitAny: each test casts the state to its algorithm's type
  const params = resolveParams(name, overrides) as any;
  const d = driveRp(getAlgorithm(name).rp, params, flow, { rng: createRng(1) });
  return {
    flow,
    params,
    // biome-ignore lint/suspicious/noExplicitAny: algorithm-private state
    state: d.s as any,
    io: d.io,
    log: d.changes,
    rate: d.rate,
    window: d.window,
    at: d.at,
    ev: d.ev,
    inspect: d.inspect,
  };
}
