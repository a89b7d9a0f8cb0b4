/**
 * Dolce-RC (Ye et al., "Data-Driven Rate Control for RDMA Networks: A Lightweight Online
 * Learning Approach"): DCQCN's rate machine whose cut constants (α, β) are arms of a DR-UCB
 * bandit rewarded by the ECN ratio. See docs/algorithms/dolce-rc.md.
 */
import type { CcAlgorithm } from '../types.js';
import { dolceRcNp } from './np.js';
import { type DolceRcParams, dolceRcAliases, dolceRcParams, dolceRcProfiles } from './params.js';
import { dolceRcRp } from './rp.js';

export const dolceRc: CcAlgorithm<DolceRcParams> = {
  name: 'dolce-rc',
  summary:
    'Dolce-RC: DCQCN (ns3-rdma machine) whose cut constants (alpha, beta) a discounted-UCB bandit ' +
    'picks at every qualified CNP from the ECN ratio. Profiles: s1 (default arms), wide, hardware (CNP/Tx-slot estimator).',
  params: dolceRcParams,
  profiles: dolceRcProfiles,
  defaultProfile: 's1',
  aliases: dolceRcAliases,
  rp: dolceRcRp,
  np: dolceRcNp,
};

export { DrUcb } from './dr-ucb.js';
export type { DolceRcParams } from './params.js';
