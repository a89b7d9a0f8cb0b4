/**
 * Dolce-RC+ (Ye et al., §VI): clean-slate rate control that sends each message at a rate arm
 * r_i = C/2^(K−1−i) chosen by DR-UCB, rewarded per message by ideal/actual MCT and its ECN ratio.
 * See docs/algorithms/dolce-rc.md.
 */
import type { CcAlgorithm } from '../types.js';
import { dolceRcPlusNp } from './np.js';
import { type DolceRcPlusParams, dolceRcPlusAliases, dolceRcPlusParams } from './params.js';
import { dolceRcPlusRp } from './rp.js';

export const dolceRcPlus: CcAlgorithm<DolceRcPlusParams> = {
  name: 'dolce-rc-plus',
  summary:
    'Dolce-RC+: each message sent at a rate arm C/2^(K-1-i) picked by a discounted-UCB bandit, ' +
    'rewarded per message ACK by ideal/actual completion time and the ECN ratio (no CNPs).',
  params: dolceRcPlusParams,
  aliases: dolceRcPlusAliases,
  rp: dolceRcPlusRp,
  np: dolceRcPlusNp,
};

export type { DolceRcPlusParams } from './params.js';
