/**
 * NSCC, the Ultra Ethernet Transport's network-signal congestion control (UET 1.0 CMS; the UEC
 * reference simulator ultraethernet/uet-htsim): a sender window driven by ECN and queueing
 * delay. See docs/algorithms/nscc.md.
 */
import type { CcAlgorithm } from '../types.js';
import { nsccNp } from './np.js';
import { type NsccParams, nsccAliases, nsccParams } from './params.js';
import { nsccRp } from './rp.js';

export const nscc: CcAlgorithm<NsccParams> = {
  name: 'nscc',
  summary:
    'UET NSCC: window from per-ACK ECN echo × queueing delay (fair / proportional / fast increase, ' +
    'multiplicative decrease once per base RTT), quick adapt, NACKs of trimmed packets.',
  params: nsccParams,
  aliases: nsccAliases,
  rp: nsccRp,
  np: nsccNp,
};

export type { NsccParams } from './params.js';
