/**
 * DCQCN rate-machine trajectories against hand-computed values (rates in Gbit/s in comments).
 * Oracles: Dolce-RC check AC3 (DCQCN line), docs/algorithms/dcqcn.md "Paper machine" and
 * "HPCC-simulator machine". Relative tolerance 1e-9 as AC3 asks.
 */
import { describe, expect, it } from 'vitest';
import { dcqcn } from '../../src/cc/dcqcn/index.js';
import {
  alphaDecay,
  alphaOnCnp,
  cutRate,
  hpccSimIncrease,
  paperIncrease,
} from '../../src/cc/dcqcn/machine.js';
import type { DcqcnParams } from '../../src/cc/dcqcn/params.js';
import type { DcqcnState, HpccSimState, PaperState } from '../../src/cc/dcqcn/rp.js';
import { resolveParams } from '../../src/cc/registry.js';
import { ackEvent, driveRp, flowInfo } from '../../src/cc/testing/index.js';
import type { FlowInfo } from '../../src/cc/types.js';
import { createRng } from '../../src/env/rng.js';

const G = 1e9;
const M = 1e6;
const g = 1 / 256;

function expectRel(actual: number, expected: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-9 * Math.abs(expected));
}

function flow(lineRateBps = 100 * G): FlowInfo {
  return flowInfo({ lineRateBps, bottleneckRateBps: lineRateBps, baseRttNs: 4000 });
}

/** DCQCN's RP on the one harness (src/cc/testing), plus the timer times by slot. */
function rig(params: DcqcnParams, lineRateBps = 100 * G) {
  const d = driveRp(dcqcn.rp, params, flow(lineRateBps), { rng: createRng(1) });
  const s: DcqcnState = d.s;
  return {
    s,
    io: d.io,
    timers: {
      get: (slot: number) => d.timers.get(slot)?.at,
      get size() {
        return d.timers.size;
      },
    },
    log: d.log,
    rate: d.rate,
    at: d.at,
    cnp: () => d.cnp(),
    tx: (sizeBytes: number) => d.tx(sizeBytes),
    ack(ecnEcho: boolean) {
      d.ev(ackEvent(0, { ecn: ecnEcho }));
    },
    fireTimer: () => d.fire(),
  };
}

const paper = (o: Record<string, unknown> = {}) => resolveParams('dcqcn', o, 'paper') as DcqcnParams;
const hpccSim = (o: Record<string, unknown> = {}) => resolveParams('dcqcn', o, 'hpcc-sim') as DcqcnParams;

describe('DCQCN pure rate functions', () => {
  it('cut, alpha update and decay (Eqs. 2-4, 10)', () => {
    expect(cutRate(40 * G, 0.5, 0)).toBe(30 * G);
    expect(cutRate(40 * G, 1, 25 * G)).toBe(25 * G);
    expect(alphaOnCnp(0.5, g)).toBe(0.501953125);
    expect(alphaOnCnp(1, g)).toBe(1);
    expectRel(alphaDecay(0.5, g, 3), 0.5 * (255 / 256) ** 3);
    expect(alphaDecay(0.5, g, 0)).toBe(0.5);
  });

  it('paper increase: FR below F, AI, HI when both counters exceed F, clamped to line rate', () => {
    const step = (t: number, bc: number) => paperIncrease(30 * G, 40 * G, t, bc, 5, 40 * M, 100 * M, 100 * G);
    expect(step(4, 0)).toEqual({ rcBps: 35 * G, rtBps: 40 * G, phase: 'fr' });
    expect(step(5, 0)).toEqual({ rcBps: 35.02 * G, rtBps: 40.04 * G, phase: 'ai' });
    expect(step(5, 9)).toEqual({ rcBps: 35.02 * G, rtBps: 40.04 * G, phase: 'ai' });
    // i = min(T, BC) − F = 2 → Rt + 200 Mbit/s.
    expect(step(7, 8)).toEqual({ rcBps: 35.1 * G, rtBps: 40.2 * G, phase: 'hi' });
    const top = paperIncrease(99.99 * G, 99.99 * G, 5, 0, 5, 40 * M, 100 * M, 100 * G);
    expect(top.rtBps).toBe(100 * G);
    expect(top.rcBps).toBeLessThanOrEqual(100 * G);
  });

  it('hpcc-sim increase: FR below F, one AI at F, HAI above', () => {
    const step = (stage: number) => hpccSimIncrease(30 * G, 40 * G, stage, 1, 20 * M, 200 * M, 100 * G);
    expect(step(0)).toEqual({ rcBps: 35 * G, rtBps: 40 * G, phase: 'fr' });
    expect(step(1)).toEqual({ rcBps: 35.01 * G, rtBps: 40.02 * G, phase: 'ai' });
    expect(step(2)).toEqual({ rcBps: 35.1 * G, rtBps: 40.2 * G, phase: 'hi' });
  });
});

describe('DCQCN paper machine', () => {
  it('Dolce-RC check AC3 (docs/algorithms/dolce-rc.md): Rc = 40, α = 0.5, one CNP → α = 0.501953125, Rc = 29.9609375, Rt = 40 (α updated first)', () => {
    const r = rig(paper({ alpha0: 0.5, cutWithUpdatedAlpha: true }));
    const s = r.s as PaperState;
    s.rcBps = 40 * G;
    s.rtBps = 40 * G;
    r.cnp();
    expect(s.alpha).toBe(0.501953125);
    expectRel(s.rcBps, 29.9609375 * G);
    expect(s.rtBps).toBe(40 * G);
    expectRel(r.rate(), 29.9609375 * G);
  });

  it('paper order (cut with the old α), then timer and byte-counter increases through FR, AI and HI', () => {
    const p = paper({ alpha0: 0.5 });
    const r = rig(p);
    const s = r.s as PaperState;
    s.rcBps = 40 * G;
    s.rtBps = 40 * G;
    // Not armed before the first CNP; bytes before it do not count.
    expect(r.timers.size).toBe(0);
    r.tx(20_000_000);
    expect(s.byteCount).toBe(0);
    r.cnp(); // t = 0: Rc = 40·(1 − 0.5/2) = 30, Rt = 40, α = 0.501953125
    expect(s.rcBps).toBe(30 * G);
    expect(s.alpha).toBe(0.501953125);
    expect(r.timers.get(0)).toBe(55_000);
    // Six timer expirations (T = 1..6, BC = 0), each Rc ← (Rt + Rc)/2:
    //   T=1..4 FR: 35, 37.5, 38.75, 39.375
    //   T=5 AI: Rt = 40.04, Rc = (40.04 + 39.375)/2 = 39.7075
    //   T=6 AI: Rt = 40.08, Rc = (40.08 + 39.7075)/2 = 39.89375
    const expectedT = [35, 37.5, 38.75, 39.375, 39.7075, 39.89375];
    for (let i = 0; i < 6; i++) {
      r.at((i + 1) * 55_000);
      expectRel(s.rcBps, expectedT[i] * G);
    }
    expectRel(s.rtBps, 40.08 * G);
    expect(r.log.map((x) => x.why).slice(-6)).toEqual([
      'timer:fr',
      'timer:fr',
      'timer:fr',
      'timer:fr',
      'timer:ai',
      'timer:ai',
    ]);
    // Byte counter (B = 10 MB of wire bytes): BC = 1..5 AI (min(T, BC) ≤ F), BC = 6 HI (i = 1).
    //   BC=1: Rt 40.12, Rc 40.006875      BC=2: Rt 40.16, Rc 40.0834375
    //   BC=3: Rt 40.20, Rc 40.14171875    BC=4: Rt 40.24, Rc 40.190859375
    //   BC=5: Rt 40.28, Rc 40.2354296875  BC=6: Rt 40.38, Rc 40.30771484375
    const expectedB = [40.006875, 40.0834375, 40.14171875, 40.190859375, 40.2354296875, 40.30771484375];
    for (let i = 0; i < 6; i++) {
      for (let k = 0; k < 4; k++) r.tx(2_500_000);
      expectRel(s.rcBps, expectedB[i] * G);
    }
    expectRel(s.rtBps, 40.38 * G);
    expect(r.log.at(-1)!.why).toBe('bytes:hi');
    // T=7 (BC=6): HI, i = 1: Rt 40.48, Rc 40.393857421875.
    r.at(7 * 55_000);
    expectRel(s.rtBps, 40.48 * G);
    expectRel(s.rcBps, 40.393857421875 * G);
    // BC=7 (T=7): HI, i = 2: Rt 40.68, Rc 40.5369287109375. One 10 MB packet event counts once.
    r.tx(10_000_000);
    expectRel(s.rtBps, 40.68 * G);
    expectRel(s.rcBps, 40.5369287109375 * G);
    expect(s.bytesAcc).toBe(0);
  });

  it('decays α once per K_α without CNPs and cuts with the decayed α', () => {
    const p = paper({ alpha0: 0.5 });
    const r = rig(p);
    const s = r.s as PaperState;
    s.rcBps = 40 * G;
    s.rtBps = 40 * G;
    r.cnp(); // t = 0: Rc 30, α 0.501953125
    // Three rate-timer FR steps (55, 110, 165 µs): Rc 35, 37.5, 38.75.
    r.at(165_001);
    expect(s.rcBps).toBe(38.75 * G);
    // α decayed three times: 0.501953125·(255/256)^3 = 0.49609380948822945.
    expect(dcqcn.rp.inspect!(s, p, 165_001).alpha).toBeCloseTo(0.49609380948822945, 15);
    r.cnp();
    // Rt = 38.75; Rc = 38.75·(1 − 0.49609380948822945/2) = 29.138182441165554.
    expect(s.rtBps).toBe(38.75 * G);
    expectRel(s.rcBps, 29.138182441165554 * G);
    // α = (255/256)·0.49609380948822945 + 1/256 = 0.49806219304491606.
    expectRel(s.alpha, 0.49806219304491606);
    expect(r.timers.get(0)).toBe(165_001 + 55_000);
  });

  it('clamps at R_min = line rate / 10000', () => {
    const r = rig(paper());
    const s = r.s as PaperState;
    // α0 = 1 stays 1 under Eq. (4): every CNP halves the rate; 100 G/2^14 < 10 Mbit/s.
    for (let i = 0; i < 20; i++) r.cnp();
    expect(s.rcBps).toBe(10 * M);
    expect(r.rate()).toBe(10 * M);
  });

  it('stops the rate timer once back at line rate', () => {
    const r = rig(paper());
    const s = r.s as PaperState;
    r.cnp(); // 100 → 50
    expect(s.rcBps).toBe(50 * G);
    let fired = 0;
    while (r.timers.size > 0 && fired < 1000) {
      r.fireTimer();
      fired++;
    }
    expect(r.timers.size).toBe(0);
    expect(s.rcBps).toBe(100 * G);
    expect(s.rtBps).toBe(100 * G);
    expect(fired).toBeLessThan(100);
  });

  it('optional rate-reduce monitor period ignores CNPs that follow a cut too closely', () => {
    const r = rig(paper({ rateReduceMonitorPeriodNs: '4us' }));
    const s = r.s as PaperState;
    r.cnp(); // 100 → 50
    r.at(3_000);
    r.cnp(); // ignored
    expect(s.rcBps).toBe(50 * G);
    r.at(4_000);
    r.cnp(); // 50 → 25
    expect(s.rcBps).toBe(25 * G);
  });

  it('reacts to ECN-echo ACKs only with the ack-flag transport', () => {
    const r = rig(paper());
    r.ack(true);
    expect((r.s as PaperState).rcBps).toBe(100 * G);
    const f = rig(paper({ cnpTransport: 'ack-flag' }));
    f.ack(false);
    expect((f.s as PaperState).rcBps).toBe(100 * G);
    f.ack(true);
    expect((f.s as PaperState).rcBps).toBe(50 * G);
  });
});

describe('DCQCN hpcc-sim machine (HPCC ns-3 CX4-style)', () => {
  it('first CNP arms the timers; cut at the 4 µs decrease check; FR, AI, HAI every 300 µs', () => {
    const p = hpccSim();
    const r = rig(p);
    const s = r.s as HpccSimState;
    r.cnp(); // t = 0: α = 1, Rc = Rt = 100 (RateOnFirstCnp = 1): no immediate cut
    expect(s.rcBps).toBe(100 * G);
    expect(r.timers.get(1)).toBe(4_001);
    // Decrease check at 4001 ns, after α ticks at 1..4 µs without a CNP: α = (255/256)^4 =
    // 0.9844663145486265; Rc = 100·(1 − α/2) = 50.77668427256867; Rt stays 100 (stage 0).
    r.at(4_001);
    expectRel(s.alpha, 0.9844663145486265);
    expectRel(s.rcBps, 50.77668427256867 * G);
    expect(s.rtBps).toBe(100 * G);
    expect(r.timers.get(0)).toBe(304_001);
    // 304001: FR (stage 0 < F = 1): Rc = (50.77668427256867 + 100)/2 = 75.38834213628434.
    r.at(304_001);
    expectRel(s.rcBps, 75.38834213628434 * G);
    // CNP at 310 µs: the next decrease check on the 4 µs grid is 4001 + 77·4000 = 312001.
    r.at(310_000);
    r.cnp();
    expect(r.timers.get(1)).toBe(312_001);
    // α: (255/256)^310 at 310 µs, the tick at 311 µs adds g, the tick at 312 µs decays:
    // α = 0.2987857936343244. stage = 1 ≠ 0 → Rt = Rc = 75.38834213628434;
    // Rc = 75.38834213628434·(1 − α/2) = 64.1258593183015.
    r.at(312_001);
    expectRel(s.alpha, 0.2987857936343244);
    expectRel(s.rtBps, 75.38834213628434 * G);
    expectRel(s.rcBps, 64.1258593183015 * G);
    // The increase timer restarts from the cut: 612001 FR, 912001 AI (+20 Mbit/s), 1212001 HAI (+200).
    expect(r.timers.get(0)).toBe(612_001);
    r.at(612_001);
    expectRel(s.rcBps, 69.75710072729291 * G);
    r.at(912_001);
    expectRel(s.rtBps, 75.40834213628433 * G);
    expectRel(s.rcBps, 72.58272143178863 * G);
    r.at(1_212_001);
    expectRel(s.rtBps, 75.60834213628434 * G);
    expectRel(s.rcBps, 74.09553178403648 * G);
    expect(r.log.map((x) => x.why)).toEqual([
      'init',
      'cnp:decrease',
      'timer:fr',
      'cnp:decrease',
      'timer:fr',
      'timer:ai',
      'timer:hi',
    ]);
  });

  it('cuts once per decrease period however many CNPs arrive, and floors at MinRate = 1 Gbit/s', () => {
    const r = rig(hpccSim());
    const s = r.s as HpccSimState;
    for (let t = 0; t < 4_000; t += 100) {
      r.at(t);
      r.cnp();
    }
    r.at(4_001);
    expect(r.log.filter((x) => x.why === 'cnp:decrease').length).toBe(1);
    for (let t = 4_001; t < 200_000; t += 500) {
      r.at(t);
      r.cnp();
    }
    expect(s.rcBps).toBe(1 * G);
  });

  it('scales R_AI and R_HAI with line rate like run.py (5·bw/25 and 50·bw/25 Mbit/s)', () => {
    const r = rig(hpccSim(), 25 * G);
    expect((r.s as HpccSimState).rateAiBps).toBe(5 * M);
    expect((r.s as HpccSimState).rateHaiBps).toBe(50 * M);
    const q = rig(paper(), 25 * G);
    expect((q.s as PaperState).rateAiBps).toBe(40 * M);
    expect((q.s as PaperState).minRateBps).toBe(2.5 * M);
  });
});
