/**
 * SRCC parameters (docs/algorithms/srcc.md "Parameters"): DCQCN's (the end-to-end CC the hosts run
 * underneath, with its profiles) plus the switch-side detection/notification settings and the NIC-side CNM
 * reaction. Every SRCC value the paper does not give is ours and configurable (docs/algorithms/srcc.md).
 */
import type { z } from 'zod';
import { dcqcnAliases, dcqcnParams, dcqcnProfiles } from '../dcqcn/params.js';
import { bool, bytes, durationNs, int, oneOf, real } from '../params.js';

export const srccParams = dcqcnParams.extend({
  // ---- switch side (congestion point / notification point)
  hopDelayNs: durationNs(
    0,
    'd, per-hop one-way base delay in Eq. 6 and tau_cnm (P4 in docs/algorithms/srcc.md); 0 = the largest link delay of the topology',
  ),
  baseRttNs: durationNs(
    0,
    'RTT unit of T, W_active and the CNP hold; 0 = baseRTT_max of the topology at switches, the QP path base RTT at NICs',
  ),
  victimWindowRtts: real(3, 0, 1000, 'T, victim-detection window, in base RTTs (paper: 3 RTT, Fig. 8(b))'),
  activeWindowRtts: real(1, 0, 1000, 'W_active, activity window of m and M, in base RTTs'),
  qFloorBytes: bytes(2000, 'Q_floor, lower clamp of Q_cth (2 MTU)'),
  thresholdMode: oneOf(
    ['eq6', 'eq5-measured', 'fixed'],
    'eq6',
    'Q_cth: eq6 = paper Eq. 6; eq5-measured = Eq. 5 with the measured arrival rate; fixed = fixedFraction x Q_PFC (Fig. 8(a))',
  ),
  fixedFraction: real(0.4, 0, 1, 'thresholdMode fixed: Q_cth as a fraction of the ingress XOFF threshold'),
  feedbackLoopFactor: real(
    1,
    0,
    16,
    'kappa: multiplies N_TTL·d in Eq. 6/5 (paper 1; 2 counts the return trip, P3)',
  ),
  victimMode: oneOf(
    ['strict', 'literal'],
    'strict',
    'strict = victim evidence only from uncongested packets of the same ingress to another egress; literal = any uncongested packet of the ingress (P2)',
  ),
  cnmIntervalFactor: real(
    2,
    0,
    1000,
    'tau_cnm = factor x N_TTL x d, min interval between CNMs per (switch, flow)',
  ),
  ttlInit: int(64, 'TTL every NIC sets (N_TTL = ttlInit - TTL + 1)'),
  flowTableAgeFactor: real(10, 0, 1e6, 'T_age = factor x T: idle flow-table entries are forgotten after it'),
  ftKeying: oneOf(
    ['fullKey', 'crc16'],
    'fullKey',
    'Flow table key: the full 5-tuple (+ QPN), or the 16-bit CRC flow id as hardware would (collisions overwrite)',
  ),
  cnmIpFallback: bool(
    false,
    'A relaying switch without a flow-table entry routes the CNM by IP toward the flow source',
  ),
  skipWhenEgressPaused: bool(
    false,
    'No CNM while the congested egress is PFC-paused by its downstream (P14)',
  ),
  queueSampling: oneOf(
    ['live', 'lagged'],
    'live',
    'Q_e: live at arrival, or the value seen by the previous data arrival on that egress (Tofino register lag, P17)',
  ),
  // ---- NIC side (reaction point)
  rtOnCnm: oneOf(
    ['preCut', 'target'],
    'preCut',
    'DCQCN target rate after a CNM cut: the rate before the cut (fast recovery) or the CNM target',
  ),
  cnpHoldAfterCnmRtts: real(
    1,
    0,
    1000,
    'Within this many base RTTs after a CNM a CNP updates alpha only (no cut, no RT change); 0 = independent reactions',
  ),
  cnmHold: bool(
    true,
    'Every CNM restarts the DCQCN increase timer and byte/stage counters, even without a cut',
  ),
  cnmMinRateFraction: real(0.001, 0, 1, 'R_MIN: a CNM never sets the rate below this fraction of line rate'),
});

export type SrccParams = z.output<typeof srccParams>;

/** DCQCN's profiles: SRCC inherits the end-to-end CC's settings and keeps its own defaults. */
export const srccProfiles: Record<string, Partial<SrccParams>> = {
  'hpcc-sim': { ...dcqcnProfiles['hpcc-sim'] },
  paper: { ...dcqcnProfiles.paper },
};

export const srccAliases: Record<string, string> = {
  ...dcqcnAliases,
  d: 'hopDelayNs',
  kappa: 'feedbackLoopFactor',
  qFloor: 'qFloorBytes',
  cnpHold: 'cnpHoldAfterCnmRtts',
};
