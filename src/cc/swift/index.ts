/**
 * Swift (Kumar et al., SIGCOMM'20): delay-based AIMD on a fractional packet window with
 * hop- and flow-scaled target delay, at most one decrease per RTT, pacing below one packet
 * See docs/algorithms/swift.md for the RoCE mapping.
 */
import type { CcAlgorithm } from '../types.js';
import { swiftNp } from './np.js';
import { type SwiftParams, swiftAliases, swiftParams } from './params.js';
import { swiftRp } from './rp.js';

export const swift: CcAlgorithm<SwiftParams> = {
  name: 'swift',
  summary:
    'Swift: fabric delay (NIC timestamps) vs a target scaled by hop count and window → AI / ' +
    'multiplicative decrease (≤ max_mdf, once per RTT) of a packet window; paces below one packet.',
  params: swiftParams,
  aliases: swiftAliases,
  rp: swiftRp,
  np: swiftNp,
};

export type { SwiftParams } from './params.js';
