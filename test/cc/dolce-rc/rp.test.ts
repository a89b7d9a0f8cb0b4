/**
 * Dolce-RC's rate machine and reaction point: AC3 (trajectories), AC4 (qualified-CNP gating),
 * the ECN-ratio windows of both estimators and the CNP payload read. Rates in Gbit/s in comments.
 */
import { describe, expect, it } from 'vitest';
import { ac4Drive } from '../../../experiments/dolce-rc/learning.js';
import { cut, initMachine, type MachineParams, Stage, timerEvent } from '../../../src/cc/dolce-rc/machine.js';
import type { DolceRcParams } from '../../../src/cc/dolce-rc/params.js';
import { cnpMarks, type DolceRcState, dolceRcRp } from '../../../src/cc/dolce-rc/rp.js';
import { resolveParams } from '../../../src/cc/registry.js';
import { createExt, createPacket } from '../../../src/wire/packet-factory.js';
import { flowInfo, G, M, rpRig, US } from './rig.js';

const params = (o: Record<string, unknown> = {}, profile?: string) =>
  resolveParams('dolce-rc', o, profile) as DolceRcParams;

function expectRel(actual: number, expected: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-9 * Math.abs(expected));
}

const MP: MachineParams = {
  lineRateBps: 100 * G,
  minRateBps: 100 * M,
  rateAiBps: 40 * M,
  rateHaiBps: 200 * M,
  fastRecoveryTimes: 5,
  byteCounterBytes: 10e6,
  rateIncreasePeriodNs: 60 * US,
};

describe('rate machine (AC3)', () => {
  it('arm (0.5, 1.125) from 40: cut to Rt 45 / Rc 30, four FR steps, then AI', () => {
    const m = initMachine(100 * G);
    m.rcBps = 40 * G;
    cut(m, 0.5, 1.125, MP);
    // Rt = 1.125 · 40 = 45, Rc = (1 − 0.25) · 40 = 30
    expectRel(m.rtBps, 45 * G);
    expectRel(m.rcBps, 30 * G);
    expect(m.stage).toBe(Stage.Fr);
    // FR: Rc = (Rc + 45)/2 for ticks 1-4; tick 5: AI (Rt 45.04); tick 6: AI (Rt 45.08)
    const rc = [37.5, 41.25, 43.125, 44.0625, 44.55125, 44.815625];
    const rt = [45, 45, 45, 45, 45.04, 45.08];
    for (let k = 0; k < 6; k++) {
      expect(timerEvent(m, MP)).toBe(60 * US);
      expectRel(m.rcBps, rc[k] * G);
      expectRel(m.rtBps, rt[k] * G);
    }
    expect(m.stage).toBe(Stage.Ai);
  });

  it('arm (0.125, 0.875): β < 1 − α/2, so fast recovery lowers Rc toward 35', () => {
    const m = initMachine(100 * G);
    m.rcBps = 40 * G;
    cut(m, 0.125, 0.875, MP);
    // Rt = 35, Rc = 0.9375 · 40 = 37.5; FR: (37.5 + 35)/2 = 36.25, (36.25 + 35)/2 = 35.625
    expectRel(m.rtBps, 35 * G);
    expectRel(m.rcBps, 37.5 * G);
    timerEvent(m, MP);
    expectRel(m.rcBps, 36.25 * G);
    timerEvent(m, MP);
    expectRel(m.rcBps, 35.625 * G);
  });

  it('hyper increase once both counters reach F: step R_HAI·(min − F + 1), timer halved', () => {
    const m = initMachine(100 * G);
    m.rcBps = 40 * G;
    cut(m, 0.5, 1, MP);
    // Rt = 40, Rc = 30
    m.bcCount = 5;
    for (let k = 0; k < 4; k++) timerEvent(m, MP);
    // tick 5: T = 5, BC = 5 → HAI, step 200 Mbit/s · (5 − 5 + 1): Rt 40.2
    const rcBefore = m.rcBps;
    expect(timerEvent(m, MP)).toBe(60 * US);
    expect(m.stage).toBe(Stage.Hai);
    expectRel(m.rtBps, 40.2 * G);
    expectRel(m.rcBps, (rcBefore + 40.2 * G) / 2);
    // in HAI the timer runs at T/2 and tick 6 steps by 200 · (5 − 5 + 1) again (BC = 5)
    expect(timerEvent(m, MP)).toBe(30 * US);
    expectRel(m.rtBps, 40.4 * G);
  });

  it('the RP follows the same trajectory, capped at line rate, then stops its timer', () => {
    const r = rpRig(dolceRcRp, params({ arms: [[0.5, 1.125]] }), flowInfo(100 * G));
    const s = r.s as DolceRcState;
    s.m.rcBps = 40 * G;
    r.cnp();
    expectRel(r.rate(), 30 * G);
    expect(r.log.at(-1)!.why).toBe('cnp:arm0');
    const expected = [37.5, 41.25, 43.125, 44.0625, 44.55125, 44.815625];
    for (const rc of expected) {
      r.fire();
      expectRel(r.rate(), rc * G);
      expect(r.now() % (60 * US)).toBe(0);
    }
    // Keep firing: AI steps of 40 Mbit/s never exceed line rate; the timer stops at 100.
    let n = 0;
    while (r.timers.size > 0 && n++ < 20000) r.fire();
    expect(r.rate()).toBe(100 * G);
    expect(r.timers.size).toBe(0);
  });

  it('the byte counter starts with the first CNP and counts link bytes', () => {
    const r = rpRig(dolceRcRp, params({ arms: [[0.5, 1]], byteCounterBytes: 10_000 }), flowInfo(100 * G));
    for (let k = 0; k < 20; k++) r.tx(1000);
    expect(r.log.length).toBe(1); // only `init`: no byte events before a CNP
    r.cnp();
    // 100 → Rc 75, Rt 100; 11 × 1000 B leave B = 10 000 B below zero once: FR to 87.5
    for (let k = 0; k < 11; k++) r.tx(1000);
    expect(r.log.at(-1)!.why).toBe('bytes:fr');
    expectRel(r.rate(), 87.5 * G);
  });
});

describe('qualified-CNP gating (AC4)', () => {
  it('200 CNPs every 50 µs: 39 qualified at 250 µs multiples, every CNP cuts with the arm of that instant', () => {
    const { r, s, arms: windowArms } = ac4Drive(params());
    expect(windowArms.slice(0, 4)).toEqual([0, 1, 2, 3]);
    expect(r.counts.get('dolceRcUpdates')).toBe(39);
    expect(s.qualified).toBe(39);
    expect(s.mab.t).toBe(39);
    const cuts = r.log.filter((e) => e.why.startsWith('cnp'));
    expect(cuts.length).toBe(200);
    cuts.forEach((e, j) => {
      const q = j > 0 && j % 5 === 0;
      expect(e.t).toBe(j * 50 * US);
      expect(e.why).toBe(`${q ? 'cnp:q' : 'cnp'}:arm${windowArms[Math.floor(j / 5)]}`);
    });
  });

  it('a window in which nothing was sent gives no update but still re-selects', () => {
    const r = rpRig(dolceRcRp, params(), flowInfo(100 * G));
    r.cnp();
    r.at(300 * US);
    r.cnp();
    expect(r.counts.get('dolceRcEmptyWindows')).toBe(1);
    expect(r.counts.get('dolceRcUpdates')).toBeUndefined();
    expect((r.s as DolceRcState).mab.t).toBe(0);
  });
});

describe('ECN-ratio windows and CNP payload', () => {
  it('ideal mode: reward = 1 − marks/packets over the window, marks from the exact count', () => {
    const r = rpRig(dolceRcRp, params({ rateCuts: false }), flowInfo(100 * G));
    const s = r.s as DolceRcState;
    r.cnp();
    for (let k = 0; k < 300; k++) {
      r.at(k * US);
      r.tx();
    }
    r.at(300 * US);
    r.cnp((pkt) => {
      pkt.ext = createExt();
      pkt.ext.ecnCount = 30;
      pkt.bthResv7 = 30;
    });
    // 30 marks / 300 packets → X = 0.9; no rate change with cuts off
    expect(s.lastReward).toBeCloseTo(0.9, 12);
    expect(r.log.length).toBe(1);
  });

  it('reads the exact count, or the 7-bit field (saturated), or counts a bare CNP as one mark', () => {
    const pkt = createPacket();
    pkt.bthResv7 = 127;
    pkt.ext = createExt();
    pkt.ext.ecnCount = 500;
    expect(cnpMarks(pkt, params())).toBe(500);
    expect(cnpMarks(pkt, params({ cnpCount: 'resv7' }))).toBe(127);
    expect(cnpMarks(createPacket(), params())).toBe(1);
  });

  it('actual mode: CNPs ÷ 1-µs Tx slots; cuts at most every 50 µs', () => {
    const r = rpRig(dolceRcRp, params({}, 'hardware'), flowInfo(100 * G));
    const s = r.s as DolceRcState;
    r.cnp(); // anchor + cut at 0
    // packets every 80 ns → every 1-µs slot has a transmission; a CNP every 1.6 µs (before the
    // packet of the same instant)
    let cnps = 0;
    for (let k = 0; k < 3750; k++) {
      const t = k * 80;
      r.at(t);
      if (t > 0 && t % 1600 === 0) {
        r.cnp();
        cnps++;
      }
      r.tx();
    }
    expect(cnps).toBe(187);
    // Cuts: at 0, then the first CNP ≥ 50 µs after each cut (every 51.2 µs) → 6 in 300 µs.
    const cutsLogged = r.log.filter((e) => e.why.startsWith('cnp')).length;
    expect(cutsLogged).toBe(6);
    expect(r.counts.get('dolceRcCnpNoCut')).toBe(cnps + 1 - 6);
    // The first CNP ≥ 250 µs after the anchor (251.2 µs) closes the window: CNPs at 1.6 … 251.2 µs
    // = 157 marked slots over Tx slots 0 … 251 = 252 → X = 1 − 157/252
    expect(s.lastReward).toBeCloseTo(1 - 157 / 252, 12);
  });
});
