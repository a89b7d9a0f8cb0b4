/**
 * Dolce-RC+ parameters (docs/algorithms/dolce-rc.md "Dolce-RC+"): DR-UCB's constants are the paper's (§V-A);
 * K, the capacity C and the ideal-MCT base RTT are [ours] (the paper gives none of them).
 */
import { z } from 'zod';
import { bool, durationNs, rateBps, real } from '../params.js';

export const dolceRcPlusParams = z.object({
  arms: z
    .preprocess(
      (v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v),
      z.number({ error: 'expected an integer' }).int({ error: 'expected an integer' }).min(1).max(32),
    )
    .default(8)
    .describe('K: rate arms r_i = C / 2^(K-1-i), i = 0..K-1 ([ours]: 8 covers fair shares down to C/128)'),
  epsilon: real(0.015, 1e-6, 0.999, 'DR-UCB forced-exploration share epsilon (period floor(K/epsilon))'),
  gamma: real(0.9998, 0, 1, 'DR-UCB discount per iteration (message ACK)'),
  xi: real(0.5001, 0, 100, 'DR-UCB exploration-bonus weight xi (> 0.5 in the paper)'),
  capacityBps: rateBps(0, 'C of the arm rates and of the ideal MCT; 0 = the NIC line rate ([ours])'),
  baseRttNs: durationNs(
    0,
    'Base RTT in ideal_MCT = bytes·8/C + baseRTT; 0 = the path’s unloaded RTT from the topology ([ours])',
  ),
  strictMessages: bool(
    false,
    'W_MSG = 1: start a message only once the previous one is ACKed (the literal Alg. 3 reading); false = pipelined',
  ),
});

export type DolceRcPlusParams = z.output<typeof dolceRcPlusParams>;

export const dolceRcPlusAliases: Record<string, string> = {
  K: 'arms',
  eps: 'epsilon',
};
