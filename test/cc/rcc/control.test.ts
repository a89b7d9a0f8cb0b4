import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CongestionClass,
  congestionThresholdNs,
  type DecideConfig,
  decideWindow,
  fairShareBytes,
  newFlowCtl,
  pidStep,
  pidUpdate,
  recordSample,
  targetDelayNs,
  windowScale,
} from '../../../src/cc/rcc/control.js';

const pid = { kpPerS: 1e4, kdPerS: 1e5, uMode: 'eq4', antiWindup: true, scaleFunction: 'S0' } as const;
const cfg: DecideConfig = {
  delta: 0.2,
  delayRef: 'owd',
  consecutiveSamples: 3,
  control: 'full',
  pidStep: 'rtt',
  pidEntryEprev: 'zero',
  antiWindupMode: 'u',
  pidLastHop: 'hold',
  pid,
};

describe('RCC eqs. (1)-(2): threshold and target', () => {
  it('owd: base·(1+δ) and base·(1+δ/2); rtt_equiv: base + δ·T and base + δ/2·T', () => {
    // base 6 µs, δ 0.2: 6000·1.2 = 7200 ns, 6000·1.1 = 6600 ns.
    expect(congestionThresholdNs(6000, 0.2, 'owd', 12_000)).toBeCloseTo(7200, 9);
    expect(targetDelayNs(6000, 0.2, 'owd', 12_000)).toBeCloseTo(6600, 9);
    // The paper's numbers (P1): 12 µs RTT, target 13.2 µs = 1.2 µs of queue; with base OWD 6 µs
    // and T 12 µs: 6000 + 0.2·12000 = 8400, 6000 + 0.1·12000 = 7200.
    expect(congestionThresholdNs(6000, 0.2, 'rtt_equiv', 12_000)).toBeCloseTo(8400, 9);
    expect(targetDelayNs(6000, 0.2, 'rtt_equiv', 12_000)).toBeCloseTo(7200, 9);
  });
});

describe('RCC EWA fair share', () => {
  it('C·T/N bytes', () => {
    // 100 Gbit/s × 12 µs = 1.2 Mbit = 150 000 B; N = 4 → 37 500 B; N = 0 counts as 1.
    expect(fairShareBytes(100e9, 12_000, 4)).toBeCloseTo(37_500, 9);
    expect(fairShareBytes(100e9, 12_000, 0)).toBeCloseTo(150_000, 9);
    expect(fairShareBytes(100e9, 12_000, 2, 0.95)).toBeCloseTo(71_250, 9);
  });
});

describe('RCC eq. (5) scale functions', () => {
  it('S0 = 1 − tanh U, S1 = 1 − σ(U), S2 = 2 − 2σ(U)', () => {
    expect(windowScale(0, 'S0')).toBe(1);
    // tanh(0.5) = 0.46211716
    expect(windowScale(0.5, 'S0')).toBeCloseTo(0.53788284, 8);
    // U = −∞ doubles at most
    expect(windowScale(-50, 'S0')).toBeCloseTo(2, 12);
    // S1(0) = 0.5: every step at equilibrium halves the window (spec check 9(b)).
    expect(windowScale(0, 'S1')).toBe(0.5);
    expect(windowScale(0, 'S2')).toBe(1);
  });

  it('S2(U) = S0(U/2) for every U (P9 in docs/algorithms/rcc.md)', () => {
    fc.assert(
      fc.property(fc.double({ min: -30, max: 30, noNaN: true }), (u) => {
        expect(windowScale(u, 'S2')).toBeCloseTo(windowScale(u / 2, 'S0'), 12);
      }),
    );
  });
});

describe('RCC eqs. (3)-(5): one PID step', () => {
  it('eq4 accumulates U: U = U(t−1) + Kp·E + Kd·ΔE', () => {
    // E = (8000 − 7000) ns = 1e-6 s, E(t−1) = 1e-6 s: U = 0.1 + 1e4·1e-6 + 1e5·0 = 0.11;
    // W = 100 000·(1 − tanh 0.11) = 100 000·(1 − 0.109558) = 89 044.2
    const r = pidStep(0.1, 1e-6, 100_000, 8000, 7000, 150_000, 1000, pid);
    expect(r.errorS).toBeCloseTo(1e-6, 15);
    expect(r.u).toBeCloseTo(0.11, 12);
    expect(r.windowBytes).toBeCloseTo(89_044.15, 1);
    expect(r.clamp).toBeNull();
  });

  it('pd forgets U: U = Kp·E + Kd·ΔE', () => {
    // E = 1e-6, ΔE = 1e-6 − 0: U = 0.01 + 0.1 = 0.11 whatever U(t−1) was.
    const r = pidStep(5, 0, 100_000, 8000, 7000, 150_000, 1000, { ...pid, uMode: 'pd' });
    expect(r.u).toBeCloseTo(0.11, 12);
  });

  it('a negative error grows the window, at most ×2, up to the cap', () => {
    // E = −2 µs, ΔE = 0: U = −0.02 → W = 50 000·(1 + tanh 0.02) = 50 000·1.019997 = 50 999.9
    const r = pidStep(0, -2e-6, 50_000, 5000, 7000, 150_000, 1000, pid);
    expect(r.u).toBeCloseTo(-0.02, 12);
    expect(r.windowBytes).toBeCloseTo(50_999.87, 1);
    const capped = pidStep(-3, 0, 100_000, 5000, 7000, 150_000, 1000, pid);
    expect(capped.windowBytes).toBe(150_000);
    expect(capped.clamp).toBe('cap');
  });

  it('anti-windup resets U when the clamp binds in the direction U pushes (P4)', () => {
    // At the floor with U > 0: U → 0.
    const floor = pidStep(2, 0, 1000, 20_000, 7000, 150_000, 1000, pid);
    expect(floor.windowBytes).toBe(1000);
    expect(floor.clamp).toBe('floor');
    expect(floor.u).toBe(0);
    expect(floor.unwound).toBe(true);
    // At the cap with U < 0: U → 0; without anti-windup U keeps its value.
    const cap = pidStep(-1, 0, 150_000, 6000, 7000, 150_000, 1000, pid);
    expect(cap.u).toBe(0);
    const literal = pidStep(-1, 0, 150_000, 6000, 7000, 150_000, 1000, { ...pid, antiWindup: false });
    // U = −1 + 1e4·(−1e-6) + 1e5·(−1e-6) = −1.11
    expect(literal.u).toBeCloseTo(-1.11, 12);
    expect(literal.unwound).toBe(false);
  });
});

describe('RCC Alg. 1 decisions', () => {
  const base = 6000;
  // threshold 7200 ns; fair 37 500 B (N = 4); BDP 150 000 B; floor 1000 B
  const decide = (f: ReturnType<typeof newFlowCtl>, full: boolean, c: DecideConfig = cfg) =>
    decideWindow(f, 100, 37_500, 150_000, 1000, full, 12_000, c);

  it('no congestion: the fair share', () => {
    const f = newFlowCtl(150_000, base);
    recordSample(f, 7000, 12_000, cfg);
    expect(decide(f, false)).toBe(false);
    expect(f.cwndBytes).toBe(37_500);
    expect(f.cls).toBe(CongestionClass.None);
  });

  it('n consecutive delayed samples with a full last hop: last-hop congestion, EWA', () => {
    const f = newFlowCtl(150_000, base);
    for (let i = 0; i < 3; i++) recordSample(f, 9000, 12_000, cfg);
    expect(f.consec).toBe(3);
    expect(decide(f, true)).toBe(false);
    expect(f.cwndBytes).toBe(37_500);
    expect(f.cls).toBe(CongestionClass.LastHop);
    expect(f.inPid).toBe(false);
  });

  it('n consecutive delayed samples, last hop not full: in-network, sticky PID', () => {
    const f = newFlowCtl(150_000, base);
    f.cwndBytes = 20_000;
    recordSample(f, 9000, 12_000, cfg);
    recordSample(f, 9000, 12_000, cfg);
    expect(f.consec).toBe(2);
    recordSample(f, 9000, 12_000, cfg);
    expect(decide(f, false)).toBe(true);
    expect(f.inPid).toBe(true);
    expect(f.pidEntryNs).toBe(100);
    expect(f.cls).toBe(CongestionClass.InNetwork);
    // W_pid starts from the window assigned so far, capped by the fair share.
    expect(f.wPidBytes).toBe(20_000);
    // A sample below the threshold resets the counter, but PID is sticky.
    recordSample(f, 6000, 12_000, cfg);
    expect(decide(f, true)).toBe(false);
    expect(f.inPid).toBe(true);
  });

  it('a delay sample interrupting the run restarts the count', () => {
    const f = newFlowCtl(150_000, base);
    recordSample(f, 9000, 12_000, cfg);
    recordSample(f, 9000, 12_000, cfg);
    recordSample(f, 7100, 12_000, cfg);
    recordSample(f, 9000, 12_000, cfg);
    expect(f.consec).toBe(1);
  });

  it('the PID window is capped by the fair share and stepped from the latest sample', () => {
    const f = newFlowCtl(150_000, base);
    f.cwndBytes = 37_500;
    for (let i = 0; i < 3; i++) recordSample(f, 9000, 12_000, cfg);
    decide(f, false);
    // entry: newSample cleared, so the timer step without a new sample does nothing
    pidUpdate(f, 37_500, 1000, 12_000, cfg);
    expect(f.pidSteps).toBe(0);
    recordSample(f, 7600, 12_000, cfg);
    pidUpdate(f, 37_500, 1000, 12_000, cfg);
    // E = (7600 − 6600) ns = 1e-6 s, E(t−1) = 0 (entry 'zero'): U = 0.01 + 0.1 = 0.11
    expect(f.u).toBeCloseTo(0.11, 12);
    expect(f.wPidBytes).toBeCloseTo(37_500 * (1 - Math.tanh(0.11)), 6);
  });

  it('pidLastHop hold: no decrease on a sample taken while the last hop is full; increases and step mode go on', () => {
    const inPid = (c: DecideConfig) => {
      const f = newFlowCtl(150_000, base);
      f.cwndBytes = 30_000;
      for (let i = 0; i < 3; i++) recordSample(f, 9000, 12_000, c);
      decide(f, false, c);
      expect(f.inPid).toBe(true);
      return f;
    };
    /** One delay sample of `owdNs`, the window decision with the last hop full or not, one PID update. */
    const sampleAndStep = (f: ReturnType<typeof inPid>, owdNs: number, lastHopFull: boolean, c = cfg) => {
      recordSample(f, owdNs, 12_000, c);
      decideWindow(f, 100, 37_500, 150_000, 1000, true, 12_000, c, lastHopFull);
      pidUpdate(f, 37_500, 1000, 12_000, c);
    };
    const f = inPid(cfg);
    // A delayed sample while the last hop is full (B_R over the round): held, no state change.
    recordSample(f, 9000, 12_000, cfg);
    decideWindow(f, 100, 37_500, 150_000, 1000, true, 12_000, cfg, true);
    expect(f.cwndBytes).toBe(30_000);
    pidUpdate(f, 37_500, 1000, 12_000, cfg);
    expect(f.holds).toBe(1);
    expect(f.pidSteps).toBe(0);
    expect(f.wPidBytes).toBe(30_000);
    expect(f.u).toBe(0);
    expect(f.errorPrevS).toBe(0);
    // The recent-arrivals test alone (a burst of the flow's own packets) does not hold.
    sampleAndStep(f, 9000, false);
    expect(f.pidSteps).toBe(1);
    expect(f.wPidBytes).toBeLessThan(30_000);
    // A sample below the target while the last hop is full still grows the window.
    const g = inPid(cfg);
    sampleAndStep(g, 6000, true);
    expect(g.pidSteps).toBe(1);
    expect(g.wPidBytes).toBeGreaterThan(30_000);
    // step (Alg. 1 literal) and the RCC-PID ablation step on every sample.
    for (const c of [
      { ...cfg, pidLastHop: 'step' as const },
      { ...cfg, control: 'pid' as const },
    ]) {
      const h = inPid(c);
      sampleAndStep(h, 9000, true, c);
      expect(h.pidSteps).toBe(1);
      expect(h.holds).toBe(0);
    }
  });

  it('ablations: RCC-EWA never enters PID; RCC-PID ignores the last hop and caps at BDP', () => {
    const e = newFlowCtl(150_000, base);
    for (let i = 0; i < 5; i++) recordSample(e, 9000, 12_000, cfg);
    expect(decide(e, false, { ...cfg, control: 'ewa' })).toBe(false);
    expect(e.cwndBytes).toBe(37_500);
    const p = newFlowCtl(150_000, base);
    p.cwndBytes = 150_000;
    recordSample(p, 7000, 12_000, cfg);
    decide(p, true, { ...cfg, control: 'pid' });
    expect(p.cwndBytes).toBe(150_000);
    for (let i = 0; i < 3; i++) recordSample(p, 9000, 12_000, cfg);
    expect(decide(p, true, { ...cfg, control: 'pid' })).toBe(true);
    expect(p.wPidBytes).toBe(150_000);
  });

  it('no base delay yet: no congestion signal', () => {
    const f = newFlowCtl(150_000, Number.POSITIVE_INFINITY);
    for (let i = 0; i < 5; i++) recordSample(f, 90_000, 12_000, cfg);
    expect(f.consec).toBe(0);
  });
});
