/** The Dolce-RC unit tests drive RPs with the one harness (src/cc/testing). */
import { flowInfo as harnessFlow } from '../../../src/cc/testing/index.js';
import type { FlowInfo } from '../../../src/cc/types.js';

export { driveRp as rpRig } from '../../../src/cc/testing/index.js';

export const G = 1e9;
export const M = 1e6;
export const US = 1000;

/** One hop at `lineRateBps` (also the bottleneck), 1000-byte MTU. */
export function flowInfo(lineRateBps: number, baseRttNs = 4000): FlowInfo {
  return harnessFlow({ lineRateBps, bottleneckRateBps: lineRateBps, baseRttNs });
}
