/**
 * RCC parameters (docs/algorithms/rcc.md "Parameters"). Schema defaults: the paper's §V-A values
 * (RCC, Zhang et al., ToN 2023: n = 3, δ = 0.2, η = 0.95, Kp = 10⁴ s⁻¹, Kd = 10⁵ s⁻¹) and our [OURS]
 * choices, each a flag so a paper-literal run stays possible (profile `literal`).
 */
import { z } from 'zod';
import { bool, bytes, durationNs, int, oneOf, real } from '../params.js';

export const rccParams = z.object({
  consecutiveSamples: int(3, 'n: consecutive OWD samples above base·(1+δ) that signal congestion (eq. 1)'),
  delta: real(0.2, 0, 1, 'δ: congestion threshold base·(1+δ) (eq. 1); PID target base·(1+δ/2) (eq. 2)'),
  eta: real(0.95, 0.01, 1, 'η: the last hop is full when the RX rate ≥ η·C (Alg. 1 line 10)'),
  kpPerS: real(1e4, 0, 1e12, 'Kp, s⁻¹: proportional gain of eq. (4) on E in seconds (paper §V-A 10⁴)'),
  kdPerS: real(1e5, 0, 1e12, 'Kd, s⁻¹: derivative gain of eq. (4) (paper §V-A 10⁵)'),
  uMode: oneOf(
    ['eq4', 'pd'],
    'eq4',
    'U_MODE: eq4 = U accumulates (literal eq. 4); pd = U = Kp·E + Kd·ΔE with no memory (Table I state)',
  ),
  antiWindup: bool(
    true,
    'ANTI_WINDUP [OURS]: reset U to 0 when the window clamp (fair share or W_min) binds in the direction U pushes',
  ),
  antiWindupMode: oneOf(
    ['u', 'restart'],
    'u',
    'What anti-windup resets: u = U only (our completion of Alg. 1 of the paper); restart = U and E(t−1), as at PID entry [OURS]',
  ),
  pidLastHop: oneOf(
    ['hold', 'step'],
    'hold',
    'A flow in PID whose latest delay sample arrived while the last hop was full (B_R over the last T_s): hold [OURS] = no eq. (4)/(5) ' +
      "decrease on it (last-hop queueing is EWA's to resolve: divide-and-conquer); step = Alg. 1 literal (sticky PID reacts to every sample)",
  ),
  rxEstimator: oneOf(
    ['busy', 'literal', 'recent'],
    'recent',
    'rx_estimator: literal = bytes in the trailing T_s; busy [OURS] = rate since the busy period began while it is younger than T_s; ' +
      'recent [OURS] = busy, or the n congested samples themselves arrived at ≥ η·C',
  ),
  delayRef: oneOf(
    ['owd', 'rtt_equiv'],
    'owd',
    'delay_ref: owd = threshold base_owd·(1+δ), target base_owd·(1+δ/2); rtt_equiv = base_owd + δ·T, base_owd + δ/2·T (P1)',
  ),
  scaleFunction: oneOf(
    ['S0', 'S1', 'S2'],
    'S0',
    'Window scaling of eq. (5): S0 = 1 − tanh(U); S1 = 1 − sigmoid(U); S2 = 2 − 2·sigmoid(U) (§V-D-3 ablations)',
  ),
  baseMode: oneOf(
    ['configured_or_min', 'configured', 'min'],
    'configured_or_min',
    'base_mode: base OWD from the topology (configured) when known, else the running minimum over full-size packets',
  ),
  baseRttNs: durationNs(
    0,
    'T_base: global base RTT for T_s, W_init and the cap of T_fair; 0 = each flow uses its own path RTT (and T_s the smallest)',
  ),
  fairTime: oneOf(
    ['conn', 'global'],
    'conn',
    'Time that turns the fair rate C/N into a window: conn = the connection base RTT; global = T_base (P11)',
  ),
  fairShareEta: bool(false, 'fair_share_eta: multiply the EWA fair share by η (P10)'),
  control: oneOf(
    ['full', 'pid', 'ewa'],
    'full',
    'full = RCC; pid = RCC-PID ablation (no EWA, window cap BDP); ewa = RCC-EWA ablation (fair share, no PID)',
  ),
  pidStep: oneOf(
    ['rtt', 'packet'],
    'rtt',
    'PID step timing: rtt [OURS] = one eq. (4)/(5) step per T_fair from a timer; packet = every data packet (Alg. 1 literal, P7)',
  ),
  pidEntryEprev: oneOf(
    ['zero', 'current'],
    'zero',
    'E(t−1) at PID entry: zero = the first step reacts to the full error; current = to the proportional part only',
  ),
  minWindowBytes: bytes(0, 'W_min: window floor in bytes; 0 = one MTU'),
  idleTimeoutRtts: real(
    10,
    0,
    1e6,
    'A message silent for this many round trips (T_fair + the queueing its last packet met) leaves N (covers a lost LAST packet); 0 = never',
  ),
  owdJitterNs: durationNs(
    0,
    'RCC-async: uniform ± jitter added to every OWD sample, ns (spec default for async runs: 250 ns at 100G)',
  ),
  clockOffsetNs: real(
    0,
    -1e12,
    1e12,
    'Receiver clock offset added to every OWD sample, ns (clock-robustness runs; min-tracking absorbs a constant)',
  ),
  clockDriftPpm: real(
    0,
    -1e6,
    1e6,
    'Receiver clock drift, ppm of emulated time, added to the OWD (negative drift defeats min-tracking)',
  ),
  pacing: bool(true, 'Pace each QP at cwnd/T_fair (paper §III-D packet pacing); false = window only'),
});

export type RccParams = z.output<typeof rccParams>;

export const rccProfiles: Record<string, Partial<RccParams>> = {
  // Schema defaults: those of the `spec` profile, except the last-hop test also classifies the
  // congested samples by their own arrival rate (rx_estimator recent; docs/algorithms/rcc.md "Deviations").
  default: {},
  // Exactly our implementation spec's defaults (docs/algorithms/rcc.md "Parameters").
  spec: { rxEstimator: 'busy', pidLastHop: 'step' },
  // Paper-literal choices wherever an [OURS] choice has a flag (docs/algorithms/rcc.md "[OURS] choices").
  literal: { antiWindup: false, rxEstimator: 'literal', pidLastHop: 'step' },
};

export const rccAliases: Record<string, string> = {
  n: 'consecutiveSamples',
  kp: 'kpPerS',
  kd: 'kdPerS',
  Kp: 'kpPerS',
  Kd: 'kdPerS',
  U_MODE: 'uMode',
  ANTI_WINDUP: 'antiWindup',
  rx_estimator: 'rxEstimator',
  delay_ref: 'delayRef',
  base_mode: 'baseMode',
  S: 'scaleFunction',
  T: 'baseRttNs',
  wmin: 'minWindowBytes',
};
