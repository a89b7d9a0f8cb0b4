/**
 * Collective schedules and their flows (src/workload/collective): every algorithm moves the data
 * its operation promises (checked by playing its transfers on per-byte contribution sets), and
 * the generator turns them into flows whose gates wait for exactly the local events the
 * algorithm needs.
 */
import { describe, expect, it } from 'vitest';
import type { CollectiveWorkload } from '../../src/config/scenario.js';
import { createRng } from '../../src/env/rng.js';
import { buildLeafSpine } from '../../src/topology/build.js';
import {
  ALGORITHMS_OF,
  type CollectiveAlgorithm,
  type CollectiveOp,
} from '../../src/workload/collective/ops.js';
import { channelSchedule } from '../../src/workload/collective/schedule.js';
import { generateWorkload } from '../../src/workload/generate.js';
import { hostRange } from './specs.js';

const leafspine = buildLeafSpine({
  leaves: 2,
  hostsPerLeaf: 8,
  spines: 4,
  hostLink: { rateBps: 100e9, delayNs: 1000 },
});

/**
 * Play a schedule: each rank holds, per byte of the buffer, the set of ranks whose contribution
 * it has (a bit mask); a send in step k carries the sender's sets after its receives of earlier
 * steps, and a receive adds them (a reduction or a copy, alike). Returns each rank's sets.
 */
function play(op: CollectiveOp, algorithm: CollectiveAlgorithm, n: number, unit: number): number[][] {
  const s = channelSchedule({ op, algorithm, n, unitBytes: unit });
  const len = algorithm === 'double-binary-tree' ? 2 * unit : op === 'broadcast' ? unit : n * unit;
  const have = Array.from({ length: n }, (_, r) =>
    Array.from({ length: len }, (_, i) => {
      if (op === 'broadcast') return r === 0 ? 1 : 0;
      if (op === 'allgather') return Math.floor(i / unit) === r ? 1 << r : 0;
      return 1 << r;
    }),
  );
  for (let k = 0; k < s.steps; k++) {
    const sent = s.transfers
      .filter((t) => t.step === k)
      .map((t) => ({ t, data: have[t.src].slice(t.lo, t.hi) }));
    for (const { t, data } of sent)
      data.forEach((m, i) => {
        have[t.dst][t.lo + i] |= m;
      });
  }
  return have;
}

describe('collective schedules', () => {
  const full = (n: number) => (1 << n) - 1;
  for (const op of ['allreduce', 'allgather', 'reducescatter', 'broadcast'] as const)
    for (const algorithm of ALGORITHMS_OF[op])
      for (const n of algorithm === 'halving-doubling' ? [2, 4, 8, 16] : [2, 3, 5, 8, 16]) {
        it(`${algorithm} ${op} over ${n} ranks leaves every rank what ${op} promises`, () => {
          const unit = 3;
          const have = play(op, algorithm, n, unit);
          for (let r = 0; r < n; r++)
            have[r].forEach((m, i) => {
              const block = Math.floor(i / unit);
              if (op === 'allreduce') expect(m).toBe(full(n));
              else if (op === 'allgather') expect(m).toBe(1 << block);
              else if (op === 'broadcast') expect(m).toBe(1);
              else if (block === r) expect(m).toBe(full(n));
            });
        });
      }

  it('ring all-reduce: 2(n−1) steps, each rank sending one block to its successor per step', () => {
    const s = channelSchedule({ op: 'allreduce', algorithm: 'ring', n: 8, unitBytes: 10 });
    expect(s.steps).toBe(14);
    expect(s.transfers).toHaveLength(14 * 8);
    for (const t of s.transfers) {
      expect(t.dst).toBe((t.src + 1) % 8);
      expect(t.hi - t.lo).toBe(10);
    }
  });

  it('halving-doubling: partners n/2 apart first, sizes S/2, S/4, …, S/n and back', () => {
    const s = channelSchedule({ op: 'allreduce', algorithm: 'halving-doubling', n: 16, unitBytes: 1 });
    expect(s.steps).toBe(8);
    const of = (k: number) => s.transfers.filter((t) => t.step === k);
    expect(of(0).every((t) => Math.abs(t.dst - t.src) === 8 && t.hi - t.lo === 8)).toBe(true);
    expect(of(3).every((t) => Math.abs(t.dst - t.src) === 1 && t.hi - t.lo === 1)).toBe(true);
    expect(of(4).every((t) => Math.abs(t.dst - t.src) === 1 && t.hi - t.lo === 1)).toBe(true);
    expect(of(7).every((t) => Math.abs(t.dst - t.src) === 8 && t.hi - t.lo === 8)).toBe(true);
  });

  it('double binary tree: a rank is an inner node of at most one of the two trees', () => {
    for (const [op, n] of [
      ['allreduce', 16],
      ['allreduce', 9],
      ['broadcast', 16],
      ['broadcast', 9],
    ] as const) {
      const s = channelSchedule({ op, algorithm: 'double-binary-tree', n, unitBytes: 1 });
      const down = s.transfers.filter((t) => op === 'broadcast' || t.step > s.treeHeight);
      // Broadcast's rank 0 feeds both roots; every other rank forwards down at most one tree.
      const inner = (r: number, lo: number) => down.some((t) => t.src === r && t.lo === lo);
      for (let r = op === 'broadcast' ? 1 : 0; r < n; r++)
        expect(inner(r, 0) && inner(r, 1), `rank ${r}`).toBe(false);
    }
  });
});

function collective(
  o: Partial<CollectiveWorkload> & Pick<CollectiveWorkload, 'op' | 'sizeBytes'>,
): CollectiveWorkload {
  return {
    kind: 'collective',
    job: 'j',
    algorithm: ALGORITHMS_OF[o.op][0],
    ranks: hostRange(4),
    sizesBytes: null,
    skew: 0,
    channels: 1,
    chunkBytes: null,
    iterations: 1,
    gapNs: 0,
    startNs: 0,
    tag: null,
    ...o,
  };
}

describe('collective flows and gates', () => {
  const rng = createRng(1);

  it('ring all-reduce with chunks and channels: one flow per piece, each later step waiting for the matching piece', () => {
    const w = generateWorkload(
      leafspine,
      [collective({ op: 'allreduce', sizeBytes: 4 * 1000, channels: 2, chunkBytes: 200 })],
      { rng },
    );
    // 6 steps × 4 ranks × 2 channels × (500 B per channel and block / 200 B) = 3 pieces.
    expect(w.flows).toHaveLength(6 * 4 * 2 * 3);
    expect(w.flows.every((f) => f.verb === 'send')).toBe(true);
    expect(new Set(w.flows.map((f) => f.qpKey)).size).toBe(8);
    const c = w.collectives[0];
    expect(c.steps).toHaveLength(w.flows.length);
    for (const [i, f] of w.flows.entries()) {
      if (c.steps[i] === 0) {
        expect(f.gate).toBe(-1);
        continue;
      }
      const g = w.gates[f.gate];
      expect(g.host).toBe(f.src);
      expect(g.computeNs).toBe(0);
      // The same piece of the same channel from the predecessor, one step before (and, for the
      // all-gather half, the same piece received in the reduce-scatter half).
      for (const e of g.after) {
        expect(e.on).toBe('received');
        if (e.on !== 'received') continue;
        const d = w.flows[e.flow];
        expect(d.dst).toBe(f.src);
        expect(d.qpKey.split(':')[1]).toBe(f.qpKey.split(':')[1]);
        expect(d.sizeBytes).toBe(f.sizeBytes);
      }
      expect(g.after.some((e) => e.on === 'received' && c.steps[e.flow] === c.steps[i] - 1)).toBe(true);
    }
  });

  it("iterations and a job's entries in order: a rank starts its next collective gap after its own last one completed", () => {
    const w = generateWorkload(
      leafspine,
      [
        collective({ op: 'allreduce', sizeBytes: 4000, iterations: 2, gapNs: 500 }),
        collective({ op: 'alltoall', algorithm: 'direct', sizeBytes: 4000, iterations: 2, gapNs: 70 }),
        collective({ job: 'other', op: 'allgather', sizeBytes: 4000, ranks: hostRange(4, 9) }),
      ],
      { rng },
    );
    expect(w.collectives.map((c) => [c.job, c.iteration, c.entry])).toEqual([
      ['j', 0, 0],
      ['j', 0, 1],
      ['j', 1, 0],
      ['j', 1, 1],
      ['other', 0, 2],
    ]);
    // Entry 1 (the alltoall) of iteration 0: each rank's sends wait at a gate of that rank, 70 ns
    // after its own all-reduce flows were acknowledged and received.
    const [ar0, a2a0, ar1] = w.collectives;
    for (let i = 0; i < a2a0.steps.length; i++) {
      const f = w.flows[a2a0.firstFlow + i];
      const g = w.gates[f.gate];
      expect(g.computeNs).toBe(70);
      const mine = w.flows
        .slice(ar0.firstFlow, ar0.firstFlow + ar0.steps.length)
        .filter((x) => x.src === f.src || x.dst === f.src);
      expect(g.after).toHaveLength(mine.length);
    }
    // Iteration 1's all-reduce opens 500 ns after the rank's alltoall; its later steps also
    // wait for that opening.
    const first = w.flows[ar1.firstFlow];
    expect(w.gates[first.gate].computeNs).toBe(500);
    const later = w.flows[ar1.firstFlow + ar1.steps.length - 1];
    expect(w.gates[later.gate].after.some((e) => e.on === 'opened')).toBe(true);
    // The other job starts at its own start, concurrently.
    expect(w.flows.filter((f) => f.src === 'h9' && f.gate < 0).length).toBeGreaterThan(0);
  });

  it('skewed and explicit all-to-all sizes', () => {
    const skewed = generateWorkload(leafspine, [collective({ op: 'alltoall', sizeBytes: 4000, skew: 1 })], {
      rng,
    });
    // Shares ∝ 1, 1/2, 1/3, 1/4 of 4000 B: 1920, 960, 640, 480.
    const to = (dst: string) => skewed.flows.filter((f) => f.dst === dst).map((f) => f.sizeBytes);
    expect(to('h1')).toEqual([1920, 1920, 1920]);
    expect(to('h4')).toEqual([480, 480, 480]);
    const m = [
      [0, 10, 0, 30],
      [5, 0, 5, 5],
      [1, 2, 0, 3],
      [9, 0, 0, 0],
    ];
    const explicit = generateWorkload(
      leafspine,
      [collective({ op: 'alltoall', sizeBytes: 40, sizesBytes: m })],
      {
        rng,
      },
    );
    expect(explicit.flows.map((f) => [f.src, f.dst, f.sizeBytes])).toEqual([
      ['h1', 'h2', 10],
      ['h1', 'h4', 30],
      ['h2', 'h1', 5],
      ['h2', 'h3', 5],
      ['h2', 'h4', 5],
      ['h3', 'h1', 1],
      ['h3', 'h2', 2],
      ['h3', 'h4', 3],
      ['h4', 'h1', 9],
    ]);
  });
});
