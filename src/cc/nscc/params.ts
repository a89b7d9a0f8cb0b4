/**
 * NSCC parameters: the defaults of the Ultra Ethernet 1.0 specification's congestion management
 * (CMS, "NSCC"), as the UEC reference simulator sets them in `UecSrc::initNsccParams` and
 * `UecSrc::initNscc` (ultraethernet/uet-htsim, htsim/sim/uec.cpp). The constants scale from a
 * reference network of 100 Gbit/s and 12 µs RTT by a = BDP_net / BDP_ref and
 * b = target_Qdelay / RTT_ref (machine.ts `nsccConstants`). A value of 0 means "derive it as the
 * reference does". Every key, its default and its source: docs/algorithms/nscc.md.
 */
import { z } from 'zod';
import { bool, bytes, durationNs, int, rateBps, real } from '../params.js';

export const nsccParams = z.object({
  networkRttNs: durationNs(
    0,
    "network_rtt: the fabric's largest unloaded RTT (uet-htsim network_max_unloaded_rtt, main_uec.cpp calculate_rtt); scales the constants, sets target_Qdelay and the adjustment period; 0 = the flow's path base RTT",
  ),
  baseRttNs: durationNs(
    0,
    'Initial base_RTT of the flow before any sample (initNscc peer_rtt: the reference passes network_rtt); 0 = networkRtt',
  ),
  referenceRateBps: rateBps(100e9, 'Reference network link rate of the scaling (initNsccParams: 100 Gbit/s)'),
  referenceRttNs: durationNs(12_000, 'Reference network RTT of the scaling (initNsccParams: 12 µs)'),
  trimming: bool(
    true,
    'The fabric trims instead of dropping: target_Qdelay = 0.75 × network_rtt (1 × without; initNsccParams)',
  ),
  targetQdelayNs: durationNs(0, 'target_Qdelay; 0 = 0.75 × network_rtt with trimming, 1 × without'),
  alphaMss: real(
    4,
    0,
    1e6,
    'α = alphaMss · MSS · a · b / target_Qdelay (proportional increase; initNsccParams 4.0)',
  ),
  fairIncreaseMss: real(
    5,
    0,
    1e6,
    'fi = fairIncreaseMss · MSS · a (fair increase per acked byte; initNsccParams 5)',
  ),
  etaMss: real(0.15, 0, 1e6, 'η = etaMss · MSS · a, added once per adjustment period (initNsccParams 0.15)'),
  fastIncreaseScale: real(
    0.25,
    0,
    1e6,
    'fi_scale = fastIncreaseScale · a: window gain per acked byte in fast increase',
  ),
  fastIncreaseDelayNs: durationNs(
    1_000,
    'Fast increase while the delay stays below this for a whole window (fast_increase: 1 µs)',
  ),
  gamma: real(0.8, 0, 1, 'γ: multiplicative decrease cwnd ·= max(1 − γ·(avg − target)/avg, mdFloor)'),
  mdFloor: real(0.5, 0, 1, 'Smallest multiplicative-decrease factor (multiplicative_decrease: 0.5)'),
  delayEwma: real(0.0125, 0, 1, 'Weight of a new sample in the averaged queueing delay (_delay_alpha)'),
  quickAdapt: bool(true, 'Quick adapt (quick_adapt); false = never'),
  qaGate: int(3, 'Quick adapt fires only while the bytes acknowledged in its window < maxwnd / 2^qaGate'),
  qaThresholdFactor: real(4, 0, 1e6, 'Quick adapt on a delay sample above qaThresholdFactor × target_Qdelay'),
  adjustBytesMtu: real(
    8,
    0,
    1e9,
    'Apply the accumulated increase once more than this many MTUs were acknowledged',
  ),
  adjustPeriodNs: durationNs(
    0,
    'Apply the accumulated increase (and η) at least once per this period; 0 = network_rtt',
  ),
  maxWindowBdp: real(
    1.5,
    0.01,
    1e6,
    'maxwnd = maxWindowBdp × BDP of the base RTT (initNscc, update_base_rtt: 1.5)',
  ),
  initialWindowBytes: bytes(0, "Initial window; 0 = maxwnd (initNscc; the suite's -cwnd N sets N packets)"),
  minWindowBytes: bytes(0, 'Smallest window; 0 = one MTU (initNsccParams _min_cwnd)'),
});

export type NsccParams = z.output<typeof nsccParams>;

export const nsccAliases: Record<string, string> = {
  networkRtt: 'networkRttNs',
  target: 'targetQdelayNs',
  cwnd: 'initialWindowBytes',
};
