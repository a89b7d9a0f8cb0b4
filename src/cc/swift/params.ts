/**
 * Swift parameters (Kumar et al., SIGCOMM'20: the values are the paper's or, where it
 * gives none, typical of public re-implementations; delay targets scaled to our 1 µs-link
 * fabrics). See
 * docs/algorithms/swift.md for the mapping to RoCE and how the defaults were chosen.
 */
import { z } from 'zod';
import { durationNs, int, oneOf, real } from '../params.js';

export const swiftParams = z.object({
  baseTargetNs: durationNs(
    4_000,
    'base_target: fabric delay target before hop and flow scaling (paper: tens of µs; scaled to 1 µs links)',
  ),
  hopScalingNs: durationNs(2_000, 'h: target added per switch hop (hop scaling)'),
  hopSource: oneOf(
    ['ttl', 'path'],
    'ttl',
    'Hop count: ttl = initialTtl − TTL of the data packet, echoed by the receiver NP in the ACK (as Swift does); path = the QP path facts',
  ),
  initialTtl: int(64, 'IP TTL the sender NIC writes (for hopSource ttl)'),
  fsRangeNs: durationNs(20_000, 'fs_range: largest flow-scaling addition to the target (5 × base_target)'),
  fsMinCwnd: real(0.1, 1e-6, 1e9, 'fs_min_cwnd (packets): at or below it flow scaling adds fs_range'),
  fsMaxCwnd: real(100, 1e-6, 1e9, 'fs_max_cwnd (packets): at or above it flow scaling adds 0'),
  ai: real(1, 0, 1e6, 'ai: additive increase, packets per RTT'),
  beta: real(0.8, 0, 1, 'β: multiplicative-decrease factor per unit of relative excess delay'),
  maxMdf: real(0.5, 0, 1, 'max_mdf: largest multiplicative decrease in one step'),
  minCwndPackets: real(
    0.001,
    1e-6,
    1e9,
    'min_cwnd (packets); below 1 the sender paces one packet per rtt/cwnd',
  ),
  maxCwndPackets: real(0, 0, 1e9, "max_cwnd (packets); 0 = the path's line-rate BDP in MTU packets"),
  initCwndPackets: real(
    0,
    0,
    1e9,
    'Initial cwnd (packets); 0 = max_cwnd (start at line rate as the other RoCE baselines)',
  ),
  retxResetThreshold: int(5, 'RETX_RESET_THRESHOLD: timeouts in a row that reset cwnd to min_cwnd'),
  srttGain: real(0.125, 0, 1, 'EWMA gain of the smoothed RTT used for pacing below one packet'),
});

export type SwiftParams = z.output<typeof swiftParams>;

export const swiftAliases: Record<string, string> = {
  target: 'baseTargetNs',
  h: 'hopScalingNs',
  fsRange: 'fsRangeNs',
  mdf: 'maxMdf',
};
