/**
 * Collective jobs → flows and gates (docs/scenario.md "kind: collective"). One flow per message:
 * each transfer of the channel schedules (./schedule.ts) split into `chunk`-sized pieces, on one
 * QP per (job, channel, sender, receiver), posted with SEND so the receiver's NIC reports each
 * message's arrival. Every dependency is a gate of the sending rank (../gate.ts):
 * - a piece whose bytes this rank received earlier in the collective waits for those receives
 *   (all of them: a reduction needs every contribution), and for the rank to have started;
 * - a rank starts a collective `gap` after its own previous collective of the job completed
 *   there (its sends acknowledged, its receives arrived); its first collective of the job starts
 *   at `start`.
 * Flows are generated job by job, iteration by iteration, the job's entries in order, then by
 * step, sender rank, receiver rank, channel and piece: every dependency points to an earlier flow.
 */
import type { CollectiveWorkload, Verb } from '../../config/scenario.js';
import { WorkloadError } from '../cdf.js';
import type { FlowEvent, LocalEvent } from '../gate.js';
import type { Gen } from '../generate.js';
import type { CollectiveAlgorithm, CollectiveOp } from './ops.js';
import { type ChannelShape, channelSchedule } from './schedule.js';

/** A collective as the generator runs it: a `kind: collective` entry, or an alltoall's shorthand. */
export type CollectiveSpec = Omit<CollectiveWorkload, 'kind'> & { verb: Verb };

/** One collective of one iteration of a job: what results.json's `collectives` reports. */
export interface CollectiveInstance {
  job: string;
  entry: number;
  iteration: number;
  op: CollectiveOp;
  algorithm: CollectiveAlgorithm;
  ranks: string[];
  sizeBytes: number;
  channels: number;
  /** Compute time at each rank before it (after the rank's previous collective of the job). */
  gapNs: number;
  /** Its flows are ids firstFlow .. firstFlow + steps.length − 1; steps[i] is flow i's step. */
  firstFlow: number;
  steps: number[];
  stepCount: number;
  /** double-binary-tree: the trees' height. */
  treeHeight: number;
}

/** `total` split into `parts` nearly equal shares, the first ones one byte larger. */
export const share = (total: number, parts: number, k: number) =>
  Math.floor(total / parts) + (k < total % parts ? 1 : 0);

/** alltoall: each rank's buffer split over destinations by weight (k+1)^−skew, largest remainders. */
function skewedShares(sizeBytes: number, n: number, skew: number): number[] {
  const w = Array.from({ length: n }, (_, k) => (k + 1) ** -skew);
  const sum = w.reduce((a, b) => a + b, 0);
  const exact = w.map((x) => (sizeBytes * x) / sum);
  const out = exact.map(Math.floor);
  let left = sizeBytes - out.reduce((a, b) => a + b, 0);
  const order = exact.map((x, k) => [x - out[k], k]).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (let i = 0; left > 0; i++, left--) out[order[i][1]]++;
  return out;
}

/** Bytes rank i sends rank j in an alltoall (i ≠ j). */
function pairBytesOf(c: CollectiveSpec): (i: number, j: number) => number {
  const n = c.ranks.length;
  if (c.sizesBytes !== null) {
    const m = c.sizesBytes;
    return (i, j) => m[i][j];
  }
  if (c.skew === 0) return () => c.sizeBytes / n;
  const s = skewedShares(c.sizeBytes, n, c.skew);
  return (_i, j) => s[j];
}

/** The schedule's unit for one channel (see ChannelShape.unitBytes). */
function channelShape(c: CollectiveSpec, ch: number): ChannelShape {
  const n = c.ranks.length;
  const k = c.channels;
  const base = { op: c.op, algorithm: c.algorithm, n };
  if (c.op === 'alltoall') {
    const pair = pairBytesOf(c);
    return { ...base, unitBytes: 0, pairBytes: (i, j) => share(pair(i, j), k, ch) };
  }
  if (c.algorithm === 'double-binary-tree') return { ...base, unitBytes: share(c.sizeBytes / 2, k, ch) };
  if (c.op === 'broadcast') return { ...base, unitBytes: share(c.sizeBytes, k, ch) };
  return { ...base, unitBytes: share(c.sizeBytes / n, k, ch) };
}

interface Piece {
  step: number;
  src: number;
  dst: number;
  ch: number;
  lo: number;
  hi: number;
}

function pieces(c: CollectiveSpec): { pieces: Piece[]; steps: number; treeHeight: number } {
  const out: Piece[] = [];
  let steps = 0;
  let treeHeight = 0;
  for (let ch = 0; ch < c.channels; ch++) {
    const s = channelSchedule(channelShape(c, ch));
    steps = Math.max(steps, s.steps);
    treeHeight = Math.max(treeHeight, s.treeHeight);
    for (const t of s.transfers) {
      const len = t.hi - t.lo;
      const chunk = c.chunkBytes ?? len;
      for (let lo = t.lo; lo < t.hi; lo += chunk)
        out.push({ step: t.step, src: t.src, dst: t.dst, ch, lo, hi: Math.min(t.hi, lo + chunk) });
    }
  }
  out.sort((a, b) => a.step - b.step || a.src - b.src || a.dst - b.dst || a.ch - b.ch || a.lo - b.lo);
  return { pieces: out, steps, treeHeight };
}

interface Received {
  step: number;
  lo: number;
  hi: number;
  flow: number;
}

/**
 * A job: its entries (workload order) repeated `iterations` times. `out` gets one instance per
 * collective run.
 */
export function generateJob(
  gen: Gen,
  entries: readonly { entry: number; spec: CollectiveSpec }[],
  out: CollectiveInstance[],
): void {
  const iterations = entries[0].spec.iterations;
  /** Each rank's events of its latest collective in the job. */
  const previous = new Map<string, LocalEvent[]>();
  for (let it = 0; it < iterations; it++) {
    for (const { entry, spec: c } of entries) {
      const what = `workload[${entry}] (collective)`;
      const ranks = gen.hosts(c.ranks, what);
      const { pieces: ps, steps, treeHeight } = pieces(c);
      const first = gen.flows.length;
      const started = ranks.map((h) => (previous.has(h) ? gen.gate(h, previous.get(h)!, c.gapNs) : -1));
      const events = ranks.map((): FlowEvent[] => []);
      // What each rank received in this collective, per channel, in flow order.
      const received = ranks.map(() => Array.from({ length: c.channels }, (): Received[] => []));
      const stepOf: number[] = [];
      for (const p of ps) {
        const after: LocalEvent[] = [];
        for (const r of received[p.src][p.ch])
          if (r.step < p.step && r.lo < p.hi && p.lo < r.hi) after.push({ flow: r.flow, on: 'received' });
        let gate = started[p.src];
        if (after.length > 0) {
          if (gate >= 0) after.push({ gate, on: 'opened' });
          gate = gen.gate(ranks[p.src], after, 0);
        }
        const f = gen.add({
          src: ranks[p.src],
          dst: ranks[p.dst],
          sizeBytes: p.hi - p.lo,
          startNs: c.startNs,
          verb: c.verb,
          entry,
          tag: c.tag,
          qpKey: `${c.job}:${p.ch}:${ranks[p.src]}>${ranks[p.dst]}`,
          gate,
        });
        received[p.dst][p.ch].push({ step: p.step, lo: p.lo, hi: p.hi, flow: f.id });
        events[p.src].push({ flow: f.id, on: 'acked' });
        events[p.dst].push({ flow: f.id, on: 'received' });
        stepOf.push(p.step);
      }
      if (ps.length === 0) throw new WorkloadError(`${what}: moves no data`);
      ranks.forEach((h, r) => {
        if (events[r].length > 0)
          previous.set(
            h,
            events[r].sort((a, b) => a.flow - b.flow),
          );
      });
      out.push({
        job: c.job,
        entry,
        iteration: it,
        op: c.op,
        algorithm: c.algorithm,
        ranks,
        sizeBytes: c.sizeBytes,
        channels: c.channels,
        gapNs: c.gapNs,
        firstFlow: first,
        steps: stepOf,
        stepCount: steps,
        treeHeight,
      });
    }
  }
}
