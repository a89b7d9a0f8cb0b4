/**
 * MPCC — Model Predictive Congestion Control for RoCEv2 (Zheng, MSc thesis, U. Alberta 2024;
 * "MPCC (Zheng 2024)", not the other schemes of that name). Switches stamp per-hop queue length
 * and active-flow count (32-byte INT block), the receiver echoes it in every ACK, and the sender
 * solves a constrained finite-horizon MPC on a delay-compensated integrator model of the most
 * congested queue per ACK, applying a window and a pacing rate. docs/algorithms/mpcc.md.
 */
import { ecnCnpNp } from '../np-ecn.js';
import type { CcAlgorithm } from '../types.js';
import { type MpccParams, mpccAliases, mpccParams, mpccProfiles } from './params.js';
import { mpccRp } from './rp.js';

export const mpcc: CcAlgorithm<MpccParams> = {
  name: 'mpcc',
  summary:
    'MPCC (Zheng 2024): INT queue + active flows per hop → per-ACK constrained MPC on a delay-compensated ' +
    'queue model → window (and pacing W/P). Profiles: default (fairShare, pacing), thesis (hold, window only).',
  params: mpccParams,
  profiles: mpccProfiles,
  defaultProfile: 'default',
  aliases: mpccAliases,
  rp: mpccRp,
  // No ECN reaction, no CNPs: the thesis uses INT only.
  np: ecnCnpNp<MpccParams>(() => ({ intervalNs: 0, mode: 'immediate', enabled: false })),
  // No switch plug-in: the switches' INT block carries their active-flow count (T_flow window).
  cp: {
    name: 'mpcc',
    activeFlows: (p, maxBaseRttNs) => ({
      windowNs: p.flowTimeoutNs > 0 ? p.flowTimeoutNs : Math.round(p.flowTimeoutRtts * maxBaseRttNs),
      minBytes: p.flowCountMinBytes,
      forgetAtEnd: p.flowCountForgetAtEnd,
    }),
  },
};

export type { MpccParams } from './params.js';
