/**
 * RED/ECN marking (issue acceptance item): a queue held at a known length is marked with
 * probability pmax·(q − kmin)/(kmax − kmin) between the thresholds, never at or below kmin and
 * always above kmax. The queue is held constant by a closed loop: every frame the switch puts
 * on the wire is replaced at once by a new arrival, so each departure leaves the same backlog.
 */
import { describe, expect, it } from 'vitest';
import { Ecn, type Packet } from '../../src/wire/packet.js';
import type { EcnConfig } from '../../switch/api.js';
import type { SwitchCpFactory } from '../../switch/cp.js';
import { createSwitch } from '../../switch/switch.js';
import { baseConfig, dataPkt, makeWorld, pfcPkt } from './harness.js';

const KMIN = 100_000;
const KMAX = 200_000;
const PKT = 1000;

interface HoldResult {
  departures: number;
  marked: number;
  counterMarked: number;
  /** Distinct queue bytes of prio 3 left behind by the counted departures. */
  qlens: Set<number>;
}

/** Hold prio 3 of port 1 at `backlog` frames after each departure, for `n` departures. */
function holdQueue(
  backlogFrames: number,
  n: number,
  ecn: EcnConfig,
  seed = 11,
  ecnCodepoint: Ecn = Ecn.Ect0,
): HoldResult {
  const w = makeWorld(seed);
  const qlens: number[] = [];
  const probe: SwitchCpFactory = (io) => ({
    name: 'probe',
    onDequeue: (_pkt, port, q) => {
      if (port === 1 && q === 3) qlens.push(io.queueBytesOf(1, 3));
    },
  });
  const sw = createSwitch(w.env, baseConfig({ ecn, cp: [probe] }));
  // Fill while the port is paused by its downstream, then release it.
  sw.receive(1, pfcPkt(1 << 3, [0, 0, 0, 65535, 0, 0, 0, 0]));
  for (let k = 0; k < backlogFrames + 1; k++) sw.receive(0, dataPkt({ sizeBytes: PKT, ecn: ecnCodepoint }));
  const out: Packet[] = [];
  w.onSend = (port, pkt) => {
    if (port !== 1) return;
    out.push(pkt);
    if (out.length < n) sw.receive(0, dataPkt({ sizeBytes: PKT, ecn: ecnCodepoint }));
  };
  sw.receive(1, pfcPkt(1 << 3, [0, 0, 0, 0, 0, 0, 0, 0]));
  w.sched.run();
  // The tail drains the queue: only count departures that left the full backlog behind.
  const held = out.slice(0, n - backlogFrames);
  // Every counted departure left exactly the intended backlog behind.
  expect(new Set(qlens.slice(0, held.length))).toEqual(new Set([backlogFrames * PKT]));
  return {
    departures: held.length,
    marked: held.filter((p) => p.ecn === Ecn.Ce).length,
    counterMarked: sw.portCounters()[1].ecnMarked,
    qlens: new Set(qlens.slice(0, held.length)),
  };
}

/** |observed − n·p| within z binomial standard deviations. */
function expectBinomial(marked: number, n: number, p: number, z = 5): void {
  const sd = Math.sqrt(n * p * (1 - p));
  expect(Math.abs(marked - n * p)).toBeLessThanOrEqual(z * sd);
}

describe('RED/ECN marking at dequeue', () => {
  const ecn: EcnConfig = { kminBytes: KMIN, kmaxBytes: KMAX, pmax: 0.2 };

  it('marks ~pmax/2 at the midpoint between kmin and kmax', () => {
    const r = holdQueue(150, 20_000, ecn);
    expect(r.qlens).toEqual(new Set([150_000]));
    expect(r.departures).toBe(19_850);
    // p = 0.2 · 50/100 = 0.1; sd ≈ 42 marks.
    expectBinomial(r.marked, r.departures, 0.1);
    expect(r.marked / r.departures).toBeGreaterThan(0.09);
    expect(r.marked / r.departures).toBeLessThan(0.11);
  });

  it('marks with the linear probability elsewhere in the band', () => {
    const r = holdQueue(175, 20_000, ecn, 12);
    expectBinomial(r.marked, r.departures, 0.15);
    const r2 = holdQueue(120, 20_000, ecn, 13);
    expectBinomial(r2.marked, r2.departures, 0.04);
  });

  it('never marks at or below kmin', () => {
    expect(holdQueue(100, 5_000, ecn).marked).toBe(0);
    expect(holdQueue(20, 5_000, ecn).marked).toBe(0);
  });

  it('always marks above kmax', () => {
    const r = holdQueue(201, 5_000, ecn);
    expect(r.marked).toBe(r.departures);
  });

  it('step-marks when kmin = kmax (DCTCP)', () => {
    const step: EcnConfig = { kminBytes: 50_000, kmaxBytes: 50_000, pmax: 1 };
    expect(holdQueue(50, 3_000, step).marked).toBe(0);
    const r = holdQueue(51, 3_000, step);
    expect(r.marked).toBe(r.departures);
  });

  it('counts only its own marks and leaves Not-ECT and CE alone', () => {
    const notEct = holdQueue(250, 3_000, ecn, 1, Ecn.NotEct);
    expect(notEct.marked).toBe(0);
    expect(notEct.counterMarked).toBe(0);
    const ce = holdQueue(250, 3_000, ecn, 1, Ecn.Ce);
    expect(ce.marked).toBe(ce.departures);
    expect(ce.counterMarked).toBe(0);
    const ect1 = holdQueue(250, 3_000, ecn, 1, Ecn.Ect1);
    expect(ect1.marked).toBe(ect1.departures);
  });

  it('is off when ecn.enabled is false', () => {
    expect(holdQueue(250, 3_000, { ...ecn, enabled: false }).marked).toBe(0);
  });

  it('is reproducible for a seed', () => {
    expect(holdQueue(150, 3_000, ecn, 5).marked).toBe(holdQueue(150, 3_000, ecn, 5).marked);
  });
});

describe('RED/ECN marking at enqueue', () => {
  it('uses the bytes ahead of the arriving frame', () => {
    // In the closed loop each arrival finds the same backlog the last departure left.
    const ecn: EcnConfig = { kminBytes: KMIN, kmaxBytes: KMAX, pmax: 0.2, markAt: 'enqueue' };
    const r = holdQueue(150, 20_000, ecn, 21);
    expectBinomial(r.marked, r.departures, 0.1);
    expect(holdQueue(100, 3_000, ecn).marked).toBe(0);
  });
});

describe('per-port ECN parameters', () => {
  it('override the switch-wide ones', () => {
    const w = makeWorld();
    const cfg = baseConfig({ ecn: { kminBytes: 0, kmaxBytes: 0, pmax: 1 } });
    cfg.ports[1] = { ...cfg.ports[1], ecn: { kminBytes: 1e9, kmaxBytes: 2e9, pmax: 1 } };
    const sw = createSwitch(w.env, cfg);
    for (let k = 0; k < 50; k++) sw.receive(0, dataPkt());
    for (let k = 0; k < 50; k++) sw.receive(1, dataPkt({ dstIp: dataPkt().srcIp, srcIp: dataPkt().dstIp }));
    w.sched.run();
    const marked = (port: number) => w.sent.filter((s) => s.port === port && s.pkt.ecn === Ecn.Ce).length;
    expect(marked(1)).toBe(0);
    // Port 0 uses kmax 0: everything that leaves a non-empty queue behind is marked.
    expect(marked(0)).toBe(48);
  });
});
