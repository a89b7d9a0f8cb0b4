/**
 * HPCC update rules against hand-computed values (docs/algorithms/hpcc.md, Li et al. SIGCOMM'19 Alg. 1
 * in the simulator's rate form). Unless noted: line rate B = 100 Gbit/s, T = 10 µs, so
 * W_init = B·T/8 = 125 000 B, η = 0.95, R_AI = 50 Mbit/s, maxStage = 0.
 */
import { describe, expect, it } from 'vitest';
import {
  computeRate,
  ewmaUtilisation,
  hopUtilisation,
  intBytesModulo,
  windowForRate,
  wrapDelta,
} from '../../../src/cc/hpcc/machine.js';
import type { HpccState } from '../../../src/cc/hpcc/rp.js';
import { listAlgorithms, resolveParams } from '../../../src/cc/registry.js';
import { readHpccHop, writeHpccHop } from '../../../src/wire/int-hpcc.js';
import { ack, expectClose, G, hop, M, nack, rig, tx } from './rig.js';

const W = 125_000;

describe('hpcc per-hop utilisation estimate', () => {
  it('u = txRate/B + min(qlen, qlen′)·B_nic/(B·W)', () => {
    // τ = 2000 − 1000 = 1000 ns; Δbytes = 22 500 − 10 000 = 12 500 B → 12 500·8/1 µs = 100 Gb/s
    // → txRate/B = 1.0; queue term min(10 000, 5 000)·100G/100G/125 000 = 0.04 → u = 1.04.
    const s = hopUtilisation(hop(2000, 22_500, 10_000), hop(1000, 10_000, 5_000), 100 * G, W)!;
    expect(s.tauNs).toBe(1000);
    expectClose(s.txRateBps, 100 * G);
    expectClose(s.u, 1.04);
  });

  it('uses the hop line rate: a 25 G hop carrying 12.5 Gb/s is at 0.5 plus its queue term ×4', () => {
    // Δbytes 1562.5 B in 1000 ns = 12.5 Gb/s → 0.5; queue 2 500·100G/25G/125 000 = 0.08 → 0.58.
    const s = hopUtilisation(hop(1000, 1562.5, 2500, 25 * G), hop(0, 0, 4000, 25 * G), 100 * G, W)!;
    expectClose(s.u, 0.58);
  });

  it('time and txBytes differences are wrap-aware (24-bit ns, 20-bit ×128·multi bytes)', () => {
    // ts 2^24 − 400 → 600: τ = 1000 ns; txBytes 2^27 − 2 500 → 10 000: Δ = 12 500 B → same u = 1.04.
    const prev = hop(2 ** 24 - 400, 2 ** 27 - 2500, 5_000);
    const s = hopUtilisation(hop(600, 10_000, 10_000), prev, 100 * G, W)!;
    expect(s.tauNs).toBe(1000);
    expectClose(s.u, 1.04);
    // INT_MULTI = 4: the byte counter wraps at 2^20·512 = 2^29.
    expect(intBytesModulo(4)).toBe(2 ** 29);
    const s4 = hopUtilisation(
      hop(600, 10_000, 10_000),
      hop(2 ** 24 - 400, 2 ** 29 - 2500, 5_000),
      100 * G,
      W,
      4,
    )!;
    expectClose(s4.u, 1.04);
    expect(wrapDelta(5, 2 ** 24 - 5, 2 ** 24)).toBe(10);
  });

  it('works on values decoded from the 42-byte wire stack across a wrap', () => {
    // Both samples through the codec (units of 128 B and 80 B): prev txBytes 134 216 192 =
    // (2^20 − 12)·128, cur 12 288 = 96·128 → Δ = 108 units = 13 824 B in 1 000 ns = 110.592 Gb/s
    // → 1.10592; qlen 8 000 and 16 000 (100 and 200 units) → min 8 000/125 000 = 0.064 → 1.16992.
    const word = new Uint8Array(8);
    const roundTrip = (h: ReturnType<typeof hop>) => {
      writeHpccHop(word, 0, h);
      return readHpccHop(word, 0);
    };
    const prev = roundTrip(hop(2 ** 24 - 300, 134_216_192, 8_000));
    const cur = roundTrip(hop(2 ** 24 + 700, 2 ** 27 + 12_288, 16_000));
    expect(cur.timeNs).toBe(700);
    const s = hopUtilisation(cur, prev, 100 * G, W)!;
    expect(s.tauNs).toBe(1000);
    expectClose(s.u, 1.16992);
  });

  it('no sample when no time passed', () => {
    expect(hopUtilisation(hop(5, 100, 0), hop(5, 0, 0), 100 * G, W)).toBeNull();
  });
});

describe('hpcc U, incStage and rate', () => {
  it('U is a time-weighted EWMA with τ capped at T', () => {
    // (1·9 000 + 1.04·1 000)/10 000 = 1.004
    expectClose(ewmaUtilisation(1, 1.04, 1000, 10_000), 1.004);
    // τ ≥ T: the new sample replaces U
    expectClose(ewmaUtilisation(1, 1.3, 25_000, 10_000), 1.3);
  });

  it('MI/MD toward η: R = Rc/(U/η) + R_AI', () => {
    // k = 1.004/0.95; R = 100G·0.95/1.004 + 0.05G = 94.62151394 + 0.05 = 94.67151394 Gb/s
    const d = computeRate(100 * G, 0, 1.004, 0.95, 0, 50 * M, 1 * G, 100 * G);
    expect(d.kind).toBe('mi');
    expect(d.stage).toBe(0);
    expectClose(d.rateBps, 94.67151394422311 * G);
  });

  it('AI while U < η and incStage < maxStage, then MI', () => {
    // maxStage 5, U = 0.5: stage 2 → R = 50G + 0.05G, stage 3
    const ai = computeRate(50 * G, 2, 0.5, 0.95, 5, 50 * M, 1 * G, 100 * G);
    expect(ai).toEqual({ rateBps: 50.05 * G, stage: 3, kind: 'ai' });
    // stage 5: R = 50G/(0.5/0.95) + 0.05G = 95 + 0.05 = 95.05 Gb/s, stage 0
    const mi = computeRate(50 * G, 5, 0.5, 0.95, 5, 50 * M, 1 * G, 100 * G);
    expect(mi.kind).toBe('mi');
    expect(mi.stage).toBe(0);
    expectClose(mi.rateBps, 95.05 * G);
  });

  it('clamps to [minRate, line rate]', () => {
    expect(computeRate(100 * G, 0, 0.1, 0.95, 0, 50 * M, 1 * G, 100 * G).rateBps).toBe(100 * G);
    // U = 200: 100G·0.95/200 + 0.05G = 0.525 G → floor 1 G
    expect(computeRate(100 * G, 0, 200, 0.95, 0, 50 * M, 1 * G, 100 * G).rateBps).toBe(1 * G);
  });

  it('window follows the rate: W = W_init·R/B', () => {
    expectClose(windowForRate(95.05 * G, W, 100 * G), 118_812.5);
  });
});

describe('hpcc RP: reference once per RTT, fast reaction on every ACK', () => {
  const base = { baseRttNs: 10_000 };

  it('hand-computed sequence (single rate, maxStage 0)', () => {
    const r = rig('hpcc', base);
    const s = r.state as HpccState;
    expect(r.rate()).toBe(100 * G);
    expect(r.window()).toBe(W);
    for (let p = 0; p < 10; p++) r.ev(tx(p)); // snd_nxt = 10
    // ACK 0: first ACK stores the INT records, lastUpdateSeq = snd_nxt = 10, no rate change.
    r.ev(ack(0, { hops: [hop(0, 0, 0)] }));
    expect(s.lastUpdatePsn).toBe(10);
    expect(r.rate()).toBe(100 * G);
    // ACK 1 (fast): u = 12 500 B/1 µs = 1.0 + min(20 000, 0)/W = 1.0; U = (9 000 + 1 000)/10 000 = 1.0
    // R = 100G·0.95/1.0 + 0.05G = 95.05 Gb/s; W = 118 812.5 B; Rc stays 100 G.
    r.at(1000);
    r.ev(ack(1, { hops: [hop(1000, 12_500, 20_000)] }));
    expectClose(r.rate(), 95.05 * G);
    expectClose(r.window()!, 118_812.5);
    expect(s.rcBps).toBe(100 * G);
    // ACK 2 (fast): u = 1 + min(20 000, 20 000)/125 000 = 1.16; U = (1.0·9 000 + 1.16·1 000)/10 000 = 1.016
    // R = 100G·0.95/1.016 + 0.05G = 93.55393701 Gb/s
    r.at(2000);
    r.ev(ack(2, { hops: [hop(2000, 25_000, 20_000)] }));
    expectClose(r.rate(), 93.55393700787401 * G);
    expect(s.rcBps).toBe(100 * G);
    for (let p = 10; p < 20; p++) r.ev(tx(p)); // snd_nxt = 20
    // ACK 10 acknowledges up to 11 > lastUpdateSeq 10: full update.
    // u = 1 + min(10 000, 20 000)/125 000 = 1.08; U = (1.016·9 000 + 1.08·1 000)/10 000 = 1.0224
    // R = 100G·0.95/1.0224 + 0.05G = 92.96862285 Gb/s → Rc; lastUpdateSeq = 20.
    r.at(3000);
    r.ev(ack(10, { hops: [hop(3000, 37_500, 10_000)] }));
    expectClose(r.rate(), 92.96862284820033 * G);
    expectClose(s.rcBps, 92.96862284820033 * G);
    expect(s.lastUpdatePsn).toBe(20);
    expectClose(r.window()!, 116_210.7785602504, 1e-9);
    // ACK 11 (fast, from the new reference): u = 1.0 (queue min(0, 10 000) = 0);
    // U = (1.0224·9 000 + 1·1 000)/10 000 = 1.02016; R = 92.96862285·0.95/1.02016 + 0.05 = 86.62484287 Gb/s
    r.at(4000);
    r.ev(ack(11, { hops: [hop(4000, 50_000, 0)] }));
    expectClose(r.rate(), 86.62484287346132 * G);
    expectClose(s.rcBps, 92.96862284820033 * G);
    expectClose(r.inspect().U, 1.02016);
  });

  it('incStage counts reference updates only; MI after maxStage AI stages (paper profile)', () => {
    const r = rig('hpcc', { ...base, profile: 'paper' });
    const s = r.state as HpccState;
    let psn = 0;
    let t = 0;
    let bytes = 0;
    // every ACK is a full update: one new packet before each ACK; INT samples T apart so U = u.
    const step = (bytesPerT: number, extra: () => void = () => {}) => {
      r.ev(tx(psn));
      t += 10_000;
      bytes += bytesPerT;
      r.at(t);
      r.ev(ack(psn, { hops: [hop(t, bytes, 0)] }));
      psn++;
      extra();
    };
    step(0); // first ACK: store only
    // u = 237 500 B/10 µs·8 = 190 Gb/s → 1.9 ≥ η: R = 100G/(1.9/0.95) + 0.05G = 50.05 Gb/s, stage 0
    step(237_500);
    expectClose(s.rcBps, 50.05 * G);
    expect(s.stage).toBe(0);
    // u = 0.5 < η: AI five times (stage 1..5): 50.10, 50.15, 50.20, 50.25, 50.30 Gb/s
    for (let i = 1; i <= 5; i++) {
      step(62_500);
      expectClose(s.rcBps, (50.05 + 0.05 * i) * G);
      expect(s.stage).toBe(i);
    }
    // stage 5 = maxStage: MI: R = 50.30G/(0.5/0.95) + 0.05G = 95.57 + 0.05 = 95.62 Gb/s, stage 0
    step(62_500);
    expectClose(s.rcBps, 95.62 * G);
    expect(s.stage).toBe(0);
  });

  it('fast reactions do not move the reference or the stage', () => {
    const r = rig('hpcc', { ...base, profile: 'paper' });
    const s = r.state as HpccState;
    for (let p = 0; p < 4; p++) r.ev(tx(p));
    r.ev(ack(0, { hops: [hop(0, 0, 0)] }));
    // u = 0.5 with τ = T → U = 0.5 < η, stage 0 < 5: fast AI R = Rc + R_AI = line (clamped), stage kept
    r.at(10_000);
    r.ev(ack(1, { hops: [hop(10_000, 62_500, 0)] }));
    expect(s.stage).toBe(0);
    expect(s.rcBps).toBe(100 * G);
    // fastReact off: nothing happens on ACKs inside the RTT
    const q = rig('hpcc', { ...base, fastReact: false });
    for (let p = 0; p < 4; p++) q.ev(tx(p));
    q.ev(ack(0, { hops: [hop(0, 0, 0)] }));
    q.at(1000);
    q.ev(ack(1, { hops: [hop(1000, 25_000, 50_000)] }));
    expect(q.rate()).toBe(100 * G);
  });

  it('multiRate keeps U, Rc per hop and sends at the minimum', () => {
    const r = rig('hpcc', { ...base, multiRate: true });
    r.ev(tx(0));
    r.ev(ack(0, { hops: [hop(0, 0, 0), hop(0, 0, 0)] }));
    r.ev(tx(1));
    r.at(10_000);
    // hop 0: u = 1.9 → R0 = 100G/2 + 0.05 = 50.05 G; hop 1: u = 0.5 → 190 G → line. min = 50.05 G
    r.ev(ack(1, { hops: [hop(10_000, 237_500, 0), hop(10_000, 62_500, 0)] }));
    expectClose(r.rate(), 50.05 * G);
    const s = r.state as HpccState;
    expectClose(s.hops[0].rcBps, 50.05 * G);
    expect(s.hops[1].rcBps).toBe(100 * G);
  });

  it('sampleFeedback skips empty-queue hops on fast reactions', () => {
    const r = rig('hpcc', { ...base, sampleFeedback: true });
    for (let p = 0; p < 4; p++) r.ev(tx(p));
    r.ev(ack(0, { hops: [hop(0, 0, 0)] }));
    r.at(1000);
    r.ev(ack(1, { hops: [hop(1000, 12_500, 0)] }));
    expect(r.rate()).toBe(100 * G);
  });

  it('a NAK with INT is feedback too and rewinds snd_nxt', () => {
    const r = rig('hpcc', base);
    const s = r.state as HpccState;
    for (let p = 0; p < 6; p++) r.ev(tx(p));
    r.ev(ack(0, { hops: [hop(0, 0, 0)] }));
    r.at(1000);
    r.ev(nack(3, [hop(1000, 12_500, 0)]));
    expectClose(r.rate(), 95.05 * G);
    expect(s.sndNxtPsn).toBe(3);
  });

  it('PSN wrap: reference updates keep working across 2^24', () => {
    const r = rig('hpcc', base);
    const s = r.state as HpccState;
    const start = 0xffffff - 2;
    for (let i = 0; i < 3; i++) r.ev(tx(start + i)); // snd_nxt wraps to 0
    r.ev(ack(start, { hops: [hop(0, 0, 0)] }));
    expect(s.lastUpdatePsn).toBe(0);
    r.ev(tx(0));
    r.at(1000);
    r.ev(ack(0, { hops: [hop(1000, 12_500, 0)] })); // next PSN 1 > 0: full
    expectClose(s.rcBps, 95.05 * G);
  });

  it('R_AI scales with line rate (run.py 10·bw/25) unless given as W_AI', () => {
    const r = rig('hpcc', base, { lineRateBps: 25 * G, bottleneckRateBps: 25 * G });
    expectClose((r.state as HpccState).rateAiBps, 12.5 * M);
    // W_AI = 80 B over T = 10 µs → 64 Mb/s
    const w = rig('hpcc', { ...base, windowAiBytes: 80 });
    expectClose((w.state as HpccState).rateAiBps, 64 * M);
    // paper rule W_AI = W_init·(1 − η)/N: 125 000·0.05/8 = 781.25 B → 781.25·8/10 µs = 625 Mb/s
    const n = rig('hpcc', { ...base, expectedFlows: 8 });
    expectClose((n.state as HpccState).rateAiBps, 625 * M);
  });
});

describe('hpcc parameters', () => {
  it('defaults are the simulator run.py hp values and every parameter is described', () => {
    const p = resolveParams('hpcc', {});
    expect(p).toMatchObject({ eta: 0.95, maxStage: 0, rateAiBps: 50e6, minRateBps: 1e9, fastReact: true });
    expect(resolveParams('hpcc', {}, 'paper').maxStage).toBe(5);
    expect(resolveParams('hpcc', { rai: '40Mbps', utgt: 0.9 })).toMatchObject({ rateAiBps: 40e6, eta: 0.9 });
    for (const name of ['hpcc', 'timely', 'dctcp', 'swift']) {
      const info = listAlgorithms().find((a) => a.name === name)!;
      expect(info.params.length).toBeGreaterThan(3);
      for (const param of info.params)
        expect(param.description.length, `${name}.${param.name}`).toBeGreaterThan(10);
    }
    expect(() => resolveParams('hpcc', { eta: 2 })).toThrow(/eta/);
  });
});
