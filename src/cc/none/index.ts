/**
 * `none`: no congestion control. Every QP sends at the NIC's line rate with no window and
 * ignores every congestion signal; loss recovery (go-back-N, timeout) is the NIC's. The
 * receiver still runs the NIC's default NP, so CNP counters show where marks happened.
 */
import { z } from 'zod';
import type { CcAlgorithm, RpAlgorithm } from '../types.js';

export type NoneParams = Record<string, never>;

const rp: RpAlgorithm<NoneParams, null> = {
  features: { int: null, txTimestamp: false },
  init(flow, _params, io) {
    io.setRate(flow.lineRateBps, 'init');
    return null;
  },
  onEvent() {},
};

export const none: CcAlgorithm<NoneParams> = {
  name: 'none',
  summary: 'No congestion control: line rate, no window; the NIC still answers ECN with CNPs.',
  params: z.object({}) as unknown as z.ZodType<NoneParams>,
  rp,
};
