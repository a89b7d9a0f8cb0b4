/**
 * A9 and A10 (docs/algorithms/dcqcn-plus.md "Tests"): the DCQCN+ sender's timer periods (Eqs. 16-17) and its
 * rate steps (Eqs. 12-15, 18-23), against hand-computed values (rates in Mbit/s in comments) and a reference
 * trace written straight from the paper's RP rules (DCQCN+ §IV-B-3).
 */
import { describe, expect, it } from 'vitest';
import {
  alphaDecay,
  computeTimers,
  cutOnCnp,
  increaseOnTimer,
  increaseStepBps,
  phaseOf,
} from '../../../src/cc/dcqcn-plus/machine.js';
import { decodeFrame, encodeFrame } from '../../../src/wire/frame.js';
import { Opcode } from '../../../src/wire/opcodes.js';
import { FrameKind, type Packet } from '../../../src/wire/packet.js';
import { createExt, createPacket } from '../../../src/wire/packet-factory.js';
import { params, rpRig } from './rig.js';

const US = 1000;
const MS = 1e6;
const M = 1e6;
const G = 1e9;
const g = 1 / 256;

function expectRel(actual: number, expected: number, rel = 1e-12): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(rel * Math.abs(expected));
}

describe('DCQCN+ timers (A9)', () => {
  const p = params();

  it('τ = 540 µs, R_C = 10 Gbps/540: K = 1080 µs, K_α = 540 µs (Eqs. 16-17)', () => {
    // M/R_C = 8000 bit / 18.52 Mbit/s = 432 µs < τ, so both periods follow τ.
    expect(computeTimers(540 * US, (10 * G) / 540, p)).toEqual({
      rateTimerNs: 1080 * US,
      alphaTimerNs: 540 * US,
    });
  });

  it('τ = 40 µs (≤ the 50 µs gate): DCQCN’s 55 µs / 55 µs; τ = 50 µs is not "larger than 50 µs" either', () => {
    expect(computeTimers(40 * US, (10 * G) / 540, p)).toEqual({
      rateTimerNs: 55 * US,
      alphaTimerNs: 55 * US,
    });
    expect(computeTimers(50 * US, 1 * M, p)).toEqual({ rateTimerNs: 55 * US, alphaTimerNs: 55 * US });
    expect(computeTimers(0, 1 * M, p)).toEqual({ rateTimerNs: 55 * US, alphaTimerNs: 55 * US });
  });

  it('τ = 540 µs, R_C = R_min = 1 Mbps: M/R_C = 8 ms dominates → K = 16 ms, K_α = 8 ms', () => {
    expect(computeTimers(540 * US, 1 * M, p)).toEqual({ rateTimerNs: 16 * MS, alphaTimerNs: 8 * MS });
  });

  it('gate "always": max(55 µs, λ·max{τ, M/R_C}) at every τ', () => {
    const a = params({}, 'gate-always');
    // τ = 40 µs at 10 Gbps: K = max(55, 2·40) = 80 µs, K_α = max(55, 40) = 55 µs.
    expect(computeTimers(40 * US, 10 * G, a)).toEqual({ rateTimerNs: 80 * US, alphaTimerNs: 55 * US });
    expect(computeTimers(10 * US, 10 * G, a)).toEqual({ rateTimerNs: 55 * US, alphaTimerNs: 55 * US });
    expect(computeTimers(540 * US, 1 * M, a)).toEqual({ rateTimerNs: 16 * MS, alphaTimerNs: 8 * MS });
  });

  it('a CNP carrying cnpPeriodNs = 540000 (through the wire codec) yields τ = 540 µs; the timers see the post-cut R_C', () => {
    const cnp: Packet = createPacket();
    cnp.kind = FrameKind.Cnp;
    cnp.opcode = Opcode.Cnp;
    cnp.becn = true;
    cnp.destQp = 2;
    cnp.ext = createExt();
    cnp.ext.cnpPeriodNs = 540_000;
    const decoded = decodeFrame(encodeFrame(cnp));
    expect('kind' in decoded && decoded.kind === FrameKind.Cnp).toBe(true);
    const period = (decoded as Packet).ext?.cnpPeriodNs;
    expect(period).toBe(540_000);

    const r = rpRig(p, 10 * G);
    // Before the CNP R_C = 10 Mbit/s; the cut (α = 1) leaves 5 Mbit/s, M/R_C = 1.6 ms > τ.
    r.s.rcBps = 10 * M;
    r.s.rtBps = 10 * M;
    r.cnp(period!);
    expect(r.inspect()).toMatchObject({
      tauNs: 540 * US,
      rcBps: 5 * M,
      rateTimerNs: 3.2 * MS,
      alphaTimerNs: 1.6 * MS,
    });
    expect(r.timers.get(0)!.at).toBe(3.2 * MS);
    expect(r.timers.get(1)!.at).toBe(1.6 * MS);
    // A CNP without a period (a DCQCN receiver) keeps the last τ.
    r.at(100 * US);
    r.cnp();
    expect(r.inspect().tauNs).toBe(540 * US);
  });
});

/**
 * The DCQCN+ RP (§IV-B-3) written out once more, independently of src/cc/dcqcn-plus, for the reference trace.
 */
function referenceTrace(rcBefore: number, lineRate: number, expiries: number) {
  let rt = rcBefore;
  let rc = rcBefore / 2; // α0 = 1: R_C·(1 − α/2)
  let alpha = 1; // (1 − g)·1 + g
  const out: { s: number; rt: number; rc: number; phase: string }[] = [];
  for (let s = 1; s <= expiries; s++) {
    let phase: string;
    if (s < 5) {
      phase = 'fr';
    } else if (s <= 20) {
      phase = 'ai';
      rt += alpha > 0.1 ? Math.min(rc / 5, lineRate / 50) : Math.min(rc / 10, lineRate / 100);
    } else {
      phase = 'hi';
      rt += Math.min(rc, ((s - 20) / 100) * lineRate);
    }
    rc = (rt + rc) / 2;
    rt = Math.min(rt, lineRate);
    rc = Math.min(rc, lineRate);
    out.push({ s, rt, rc, phase });
    // Rate and α timers share the 55 µs period; the rate timer was armed first, so at each
    // instant it runs before the α decay.
    alpha *= 1 - g;
  }
  return out;
}

describe('DCQCN+ rate steps (A10)', () => {
  const p = params();

  it('pure steps: cut (12)-(15), phases FR < F ≤ AI ≤ 4F < HI, AI and HI steps (19), (21)', () => {
    // 100 → R_T 100, R_C 50, α stays 1.
    expect(cutOnCnp(100 * M, 1, 0.5, g, 1 * M)).toEqual({ rtBps: 100 * M, rcBps: 50 * M, alpha: 1 });
    // Floor: 1.5 Mbit/s → 0.75, raised to R_min = 1.
    expect(cutOnCnp(1.5 * M, 1, 0.5, g, 1 * M).rcBps).toBe(1 * M);
    // Cut with the old α (paper order): α 0.5 → R_C·0.75, then α = 255/256·0.5 + 1/256.
    const c = cutOnCnp(80 * M, 0.5, 0.5, g, 0);
    expect(c.rcBps).toBe(60 * M);
    expect(c.alpha).toBe(0.5 * (255 / 256) + 1 / 256);
    expect([1, 4, 5, 20, 21].map((s) => phaseOf(s, 5))).toEqual(['fr', 'fr', 'ai', 'ai', 'hi']);
    // AI at 10 Gbit/s: α > 0.1 → min(R_C/5, 200 Mbit/s); α ≤ 0.1 → min(R_C/10, 100 Mbit/s).
    expect(increaseStepBps(5, 100 * M, 0.5, 10 * G, p)).toBe(20 * M);
    expect(increaseStepBps(5, 5 * G, 0.5, 10 * G, p)).toBe(200 * M);
    expect(increaseStepBps(5, 100 * M, 0.1, 10 * G, p)).toBe(10 * M);
    expect(increaseStepBps(20, 5 * G, 0.05, 10 * G, p)).toBe(100 * M);
    // R_C = 10 Gbps/540 with α ≤ 0.1 → step R_C/10 = 1.85 Mbit/s.
    expectRel(increaseStepBps(10, (10 * G) / 540, 0.05, 10 * G, p), (10 * G) / 5400);
    // HI: min(R_C, (S − 20)/100 · R_l): S = 21 → 100 Mbit/s cap, S = 23 → 300, small R_C binds.
    expect(increaseStepBps(21, 1 * G, 0.5, 10 * G, p)).toBe(100 * M);
    expect(increaseStepBps(23, 1 * G, 0.5, 10 * G, p)).toBe(300 * M);
    expect(increaseStepBps(23, 50 * M, 0.5, 10 * G, p)).toBe(50 * M);
    // hiScale multiplies the step (P19 in docs/algorithms/dcqcn-plus.md).
    expect(increaseStepBps(21, 1 * G, 0.5, 10 * G, params({ hiScale: 5 }))).toBe(500 * M);
    // Clamp after the average (P11 in docs/algorithms/dcqcn-plus.md): R_T 9.9 + 0.2 → 10.1 →
    // R_C = (10.1 + 9.9)/2 = 10 → both 10.
    const top = increaseOnTimer(6, 9.9 * G, 9.9 * G, 0.5, 10 * G, p);
    expect(top).toEqual({ rtBps: 10 * G, rcBps: 10 * G, phase: 'ai' });
    expectRel(alphaDecay(1, g, 3), (255 / 256) ** 3);
  });

  it('from a CNP at 100 Mbit/s (R_l 10 Gbit/s, α0 = 1) through 25 timer expiries: exact vs. the reference', () => {
    const r = rpRig(p, 10 * G);
    r.s.rcBps = 100 * M;
    r.s.rtBps = 100 * M;
    r.cnp();
    // Cut: R_T = 100, R_C = 50, α = 1; no τ → 55 µs timers.
    expect(r.inspect()).toMatchObject({ rtBps: 100 * M, rcBps: 50 * M, alpha: 1, stateCounter: 0 });
    const got: { s: number; rt: number; rc: number; why: string }[] = [];
    while (got.length < 25) {
      const slot = r.fire();
      if (slot !== 0) continue;
      const st = r.inspect();
      got.push({ s: st.stateCounter, rt: st.rtBps, rc: st.rcBps, why: r.log.at(-1)!.why });
    }
    expect(r.now()).toBe(25 * 55 * US);
    // Hand values: FR 75, 87.5, 93.75, 96.875; S = 5: step 96.875/5 = 19.375 → R_T 119.375,
    // R_C (119.375 + 96.875)/2 = 108.125; S = 6: step 21.625 → R_T 141, R_C 124.5625.
    const hand = [75, 87.5, 93.75, 96.875, 108.125, 124.5625].map((x) => x * M);
    for (const [i, rc] of hand.entries()) expectRel(got[i].rc, rc);
    expectRel(got[4].rt, 119.375 * M);
    expectRel(got[5].rt, 141 * M);
    const ref = referenceTrace(100 * M, 10 * G, 25);
    for (let i = 0; i < 25; i++) {
      expect(got[i].s).toBe(i + 1);
      expectRel(got[i].rt, ref[i].rt);
      expectRel(got[i].rc, ref[i].rc);
      expect(got[i].why).toBe(`timer:${ref[i].phase}`);
      expect(got[i].rc).toBeLessThanOrEqual(10 * G);
      expect(got[i].rt).toBeLessThanOrEqual(10 * G);
    }
    // HI entry: S = 21 adds min(R_C, 100 Mbit/s) = 100 (R_C is far above 100 by then), S = 22 adds 200.
    expect(got[19].rc).toBeGreaterThan(200 * M);
    expectRel(got[20].rt - got[19].rt, 100 * M);
    expectRel(got[21].rt - got[20].rt, 200 * M);
    // α decayed once per 55 µs; the 25th decay is due at this instant, after the increase.
    expectRel(r.inspect().alpha, (255 / 256) ** 24);
    r.fire();
    expectRel(r.inspect().alpha, (255 / 256) ** 25);
  });

  it('a rate-timer expiry while the data priority is PFC-paused leaves S, R_C, R_T unchanged; α still decays', () => {
    const r = rpRig(p, 10 * G);
    r.s.rcBps = 100 * M;
    r.s.rtBps = 100 * M;
    r.cnp();
    r.at(3 * 55 * US); // S = 3: 93.75
    const before = r.inspect();
    expect(before.stateCounter).toBe(3);
    r.setPaused(true);
    r.at(4 * 55 * US);
    const during = r.inspect();
    expect(during).toMatchObject({ stateCounter: 3, rcBps: before.rcBps, rtBps: before.rtBps });
    expectRel(during.alpha, (255 / 256) ** 4);
    expect(r.counts.get('dcqcnPlusPausedExpiries')).toBe(1);
    // The timer was re-armed: recovery resumes at the next expiry once the pause is over.
    expect(r.timers.get(0)!.at).toBe(5 * 55 * US);
    r.setPaused(false);
    r.at(5 * 55 * US);
    expect(r.inspect()).toMatchObject({ stateCounter: 4, rcBps: 96.875 * M });
  });

  it('the pause check can be turned off (plain DCQCN behaviour)', () => {
    const r = rpRig(params({ pauseCheck: false }), 10 * G);
    r.s.rcBps = 100 * M;
    r.s.rtBps = 100 * M;
    r.cnp();
    r.setPaused(true);
    r.at(55 * US);
    expect(r.inspect()).toMatchObject({ stateCounter: 1, rcBps: 75 * M });
  });

  it('timers stop at line rate; α keeps decaying on the stopped timer’s grid and the next cut uses it', () => {
    const r = rpRig(p, 10 * G);
    r.cnp();
    // 10 → R_T 10, R_C 5 Gbit/s; FR 7.5, 8.75, 9.375, 9.6875; S = 5 AI +200 Mbit/s → R_C 9.94375;
    // S = 6 → R_C (10.2 + 9.94375)/2 > 10 → both clamped to 10: line rate at 6·55 = 330 µs.
    r.at(330 * US);
    expect(r.inspect()).toMatchObject({ rcBps: 10 * G, rtBps: 10 * G, stateCounter: 6 });
    expect(r.timers.size).toBe(0);
    // The α timer due at 330 µs was cancelled by the rate timer armed before it: decays at
    // 55…275 µs (5) plus 330, 385, …, 990 µs (13) by 1000 µs.
    r.at(1000 * US);
    expectRel(r.inspect().alpha, (255 / 256) ** 18);
    r.cnp(2000);
    expectRel(r.inspect().rcBps, 10 * G * (1 - (255 / 256) ** 18 / 2));
    expectRel(r.inspect().alpha, (255 / 256) ** 19 + 1 / 256);
    expect(r.timers.size).toBe(2);
  });
});
