/**
 * A8 (docs/algorithms/dcqcn-plus.md "Tests"): the DCQCN+ NP's CNP schedule, exact in virtual time. With l
 * records all marked continuously and one record checked per δ, each record gets a CNP every
 * ⌈T_cnp/(l·δ)⌉·l·δ and every CNP carries τ = l·δ; the NIC sends at most one CNP per δ; a record that stops
 * being marked gets no more CNPs and leaves the list after E_idle = 256 visits. Also the same through the
 * NIC: CNPs on the wire carry the period and the sender adopts it.
 */
import { describe, expect, it } from 'vitest';
import { dcqcnPlusNp, type NpNicState } from '../../../src/cc/dcqcn-plus/np.js';
import { resolveCc } from '../../../src/cc/registry.js';
import { driveNp } from '../../../src/cc/testing/index.js';
import { createRng } from '../../../src/env/rng.js';
import { bench } from '../../../src/runtime/virtual/nic-bench.js';
import { Ecn, FrameKind } from '../../../src/wire/packet.js';
import { flowInfo, params } from './rig.js';

const US = 1000;

interface Sent {
  qpn: number;
  t: number;
  periodNs: number;
}

/** The NP's NIC-wide hooks on the one harness (src/cc/testing): CNPs recorded with their period. */
function npRig(o: Record<string, unknown> = {}) {
  const p = params(o);
  const d = driveNp(dcqcnPlusNp, p, { rng: createRng(1), flow: (qpn) => ({ ...flowInfo(10e9), qpn }) });
  return {
    nic: d.nic() as NpNicState,
    get sent(): Sent[] {
      return d.cnps.map((c) => ({ qpn: c.qpn, t: c.t, periodNs: c.fields?.cnpPeriodNs ?? 0 }));
    },
    mark(qpn: number) {
      d.mark(qpn);
    },
    /** Advance to the next visit (after calling `before` at that instant); false when idle. */
    step: (before?: () => void) => d.step(before),
    now: d.now,
  };
}

function cnpTimesOf(sent: Sent[], qpn: number): number[] {
  return sent.filter((s) => s.qpn === qpn).map((s) => s.t);
}

function gaps(times: number[]): number[] {
  return times.slice(1).map((t, i) => t - times[i]);
}

describe('DCQCN+ NP schedule (A8)', () => {
  for (const [l, deltaNs, expectedGapNs] of [
    // ⌈45/(10·1)⌉·10 µs = 5·10 µs
    [10, 1 * US, 50 * US],
    // ⌈45/540⌉·540 µs = 540 µs
    [540, 1 * US, 540 * US],
    // δ = 2 µs: τ = 20 µs, ⌈45/20⌉·20 µs = 60 µs
    [10, 2 * US, 60 * US],
    // l = 45: τ = 45 µs = T_cnp exactly, one CNP per traversal
    [45, 1 * US, 45 * US],
  ] as const) {
    it(`l = ${l}, δ = ${deltaNs / US} µs: every record gets a CNP every ${expectedGapNs / US} µs carrying τ = ${(l * deltaNs) / US} µs`, () => {
      const r = npRig({ npCheckIntervalNs: deltaNs });
      const ids = Array.from({ length: l }, (_, i) => 100 + i);
      for (const q of ids) r.mark(q);
      const markAll = () => {
        for (const q of ids) r.mark(q);
      };
      while (r.now() < 20 * expectedGapNs) r.step(markAll);
      for (const q of ids) {
        const g = gaps(cnpTimesOf(r.sent, q));
        expect(g.length).toBeGreaterThanOrEqual(15);
        expect(new Set(g)).toEqual(new Set([expectedGapNs]));
      }
      expect(new Set(r.sent.map((s) => s.periodNs))).toEqual(new Set([l * deltaNs]));
      // The first record is visited one δ after the first mark, and so on round-robin.
      expect(cnpTimesOf(r.sent, ids[0])[0]).toBe(deltaNs);
      expect(cnpTimesOf(r.sent, ids[1])[0]).toBe(2 * deltaNs);
      // At most one CNP per δ NIC-wide.
      const all = r.sent.map((s) => s.t);
      expect(Math.min(...gaps(all))).toBeGreaterThanOrEqual(deltaNs);
    });
  }

  it('a record that stops being marked gets no further CNP and is evicted after 256 visits; τ then shrinks', () => {
    const r = npRig();
    const ids = Array.from({ length: 10 }, (_, i) => i + 1);
    for (const q of ids) r.mark(q);
    let marking = new Set(ids);
    const markSome = () => {
      for (const q of marking) r.mark(q);
    };
    // Visits every 10 µs per record; record 3's first CNP is at 3 µs, its next would be at 53 µs.
    while (r.now() < 3 * US) r.step(markSome);
    expect(cnpTimesOf(r.sent, 3)).toEqual([3 * US]);
    marking = new Set(ids.filter((q) => q !== 3));
    // 256 idle visits of record 3: at 13, 23, … µs, the 256th at 3 + 2560 µs.
    while (r.now() < 2562 * US) {
      r.step(markSome);
      expect(r.nic.list.records.length).toBe(10);
    }
    r.step(markSome);
    expect(r.now()).toBe(2563 * US);
    expect(r.nic.list.byQpn.has(3)).toBe(false);
    expect(r.nic.list.records.length).toBe(9);
    expect(cnpTimesOf(r.sent, 3)).toEqual([3 * US]);
    while (r.now() < 3000 * US) r.step(markSome);
    expect(r.sent.at(-1)!.periodNs).toBe(9 * US);
  });

  it('an unmarked flow never enters the list; the traversal stops when the list empties', () => {
    const r = npRig({ evictIdleVisits: 2 });
    r.mark(7);
    // Visits: 1 µs CNP, 2 µs idle 1, 3 µs idle 2 → evicted, list empty, no further timer.
    while (r.step()) {}
    expect(r.sent).toEqual([{ qpn: 7, t: US, periodNs: US }]);
    expect(r.now()).toBe(3 * US);
    expect(r.nic.list.records.length).toBe(0);
    expect(r.nic.traversing).toBe(false);
    // A new mark restarts it.
    r.mark(8);
    expect(r.step()).toBe(true);
    expect(r.sent.at(-1)).toEqual({ qpn: 8, t: 4 * US, periodNs: US });
  });

  it('through the NIC: every CE packet marks, CNPs carry τ on the wire and the sender adopts it', () => {
    const cc = resolveCc('dcqcn-plus');
    const b = bench({
      cc,
      rateBps: 10e9,
      delayNs: 1000,
      mutate: (pkt, from) => {
        if (from === 'a' && pkt.kind === FrameKind.Data) pkt.ecn = Ecn.Ce;
      },
    });
    const [qpn] = b.connect(1);
    b.send(qpn, 1, 2_000_000);
    b.sched.run(500 * US);
    const cnps = b.wire.filter((w) => w.from === 'b' && w.pkt.kind === FrameKind.Cnp);
    expect(cnps.length).toBeGreaterThan(3);
    // One flow: τ = 1·δ = 1 µs, and while marked packets keep coming one CNP per T_cnp = 45 µs
    // (later the cut rate leaves fewer than one packet per 45 µs; visits sit on a 1 µs grid).
    expect(new Set(cnps.map((c) => c.pkt.ext?.cnpPeriodNs))).toEqual(new Set([1000]));
    const us = gaps(cnps.map((c) => c.sentNs)).map((g) => Math.round(g / 1000));
    expect(us.slice(0, 3)).toEqual([45, 45, 45]);
    expect(Math.min(...us)).toBe(45);
    expect(b.b.counters().cnpTx).toBe(cnps.length);
    const st = b.a.qpInspect(qpn);
    expect(st.tauNs).toBe(1000);
    // τ ≤ 50 µs: DCQCN's 55 µs timers.
    expect(st.rateTimerNs).toBe(55_000);
    expect(st.alphaTimerNs).toBe(55_000);
    expect(st.cnps).toBe(b.a.counters().cnpRx);
  });
});
