/**
 * The analytic ideal time of a collective (docs/scenario.md "Ideal times"): what it takes on a
 * fabric where nothing else runs and no queue builds, from the rank links' rates and the paths'
 * delays. Per step k, τ_k is the busiest rank link's time for the step: the wire bytes of the
 * data it sends plus the ACK frames it returns for the data it receives (and the same for the
 * link's other direction), at the link's rate. ℓ, the per-step latency, is the mean over the
 * collective's sender→receiver pairs of the path's propagation delay plus one full-MTU frame's
 * serialisation at each switch (store and forward). a is the last ACK's way back (propagation
 * plus an ACK frame's serialisation per link). With C_k messages per channel in step k
 * (pipelining), a step's successor may start once the first message arrived:
 *
 *   ring, halving-doubling, direct (and an unpipelined ring broadcast):
 *                                    T = Σ_{k<s} max(τ_k, τ_k/C_k + ℓ) + τ_s + ℓ + a
 *   ring broadcast with C > 1 pieces (a chain of s = n−1 hops):  T = τ + (s−1)(τ/C + ℓ) + ℓ + a
 *   double-binary-tree:  T = τ + h(K·τ_m + ℓ) + a, h = the trees' height (+1 for broadcast: rank 0 to the roots)
 *
 * where for the tree and the chain τ is the busiest rank link's time over the whole collective,
 * τ_m the largest message's time at its sender's link and K the channels (the tree's bound when
 * its pieces are pipelined: the busiest link, a leaf of one tree, is busy from the start, and its
 * last piece still goes down the tree; without `chunk` a tree level waits for a whole half).
 * With one message per step (C = 1) the first line is the textbook s·(τ + ℓ): for ring
 * all-reduce 2(n−1)·(S/n at B + ℓ) = 2(n−1)/n·S/B + 2(n−1)·ℓ.
 */
import type { PlannedFlow } from '../runtime/app/plan.js';
import { ACK_FRAME_BYTES, dataFrameBytes } from '../topology/path.js';
import type { CollectiveInstance } from '../workload/collective/generate.js';
import { messageWireBytes } from './fct.js';

interface Load {
  /** Bytes on the rank's uplink and downlink per step. */
  up: number[];
  down: number[];
  upRateBps: number;
  downRateBps: number;
}

/** ns of one message's latency beyond its serialisation at the sender (ℓ of one pair). */
function pathLatencyNs(f: PlannedFlow): number {
  const frame = dataFrameBytes(f.mtuBytes);
  const links = f.qp.path.links;
  let ns = f.qp.path.propDelayNs;
  for (let i = 1; i < links.length; i++) ns += (frame * 8e9) / links[i].rateBps;
  return ns;
}

/** ns for an ACK to come back (propagation and an ACK frame's serialisation per link). */
function ackReturnNs(f: PlannedFlow): number {
  let ns = f.qp.path.propDelayNs;
  for (const l of f.qp.path.links) ns += (ACK_FRAME_BYTES * 8e9) / l.rateBps;
  return ns;
}

export interface IdealParts {
  idealNs: number;
  /** Per-step latency and the last ACK's return, ns (docs/scenario.md). */
  stepLatencyNs: number;
  ackReturnNs: number;
}

/** The ideal of one collective run whose flows are `flows` (the instance's, in order). */
export function collectiveIdeal(c: CollectiveInstance, flows: readonly PlannedFlow[]): IdealParts {
  const s = c.stepCount;
  const loads = new Map<string, Load>();
  const load = (host: string): Load => {
    let l = loads.get(host);
    if (l === undefined) {
      l = { up: new Array(s).fill(0), down: new Array(s).fill(0), upRateBps: 0, downRateBps: 0 };
      loads.set(host, l);
    }
    return l;
  };
  const pairs = new Map<string, PlannedFlow>();
  /** Messages per (step, sender, receiver, QP): the pipelining depth C_k. */
  const depth = new Map<string, number>();
  const chunks = new Array<number>(s).fill(1);
  /** The largest message's wire time at its sender's link, ns. */
  let pieceNs = 0;
  flows.forEach((f, i) => {
    const k = c.steps[i];
    const size = f.spec.sizeBytes;
    const packets = Math.max(1, Math.ceil(size / f.mtuBytes));
    const wire = messageWireBytes(size, f.mtuBytes, f.verb);
    const acks = Math.ceil(packets / f.ackEveryPackets) * ACK_FRAME_BYTES;
    const src = load(f.spec.src);
    const dst = load(f.spec.dst);
    const links = f.qp.path.links;
    src.upRateBps = links[0].rateBps;
    dst.downRateBps = links[links.length - 1].rateBps;
    pieceNs = Math.max(pieceNs, (wire * 8e9) / links[0].rateBps);
    src.up[k] += wire;
    dst.down[k] += wire;
    dst.up[k] += acks;
    src.down[k] += acks;
    pairs.set(`${f.spec.src}>${f.spec.dst}`, f);
    const key = `${k}|${f.qp.key}`;
    const n = (depth.get(key) ?? 0) + 1;
    depth.set(key, n);
    if (n > chunks[k]) chunks[k] = n;
  });
  const nsOf = (bytes: number, rateBps: number) => (rateBps > 0 ? (bytes * 8e9) / rateBps : 0);
  const tau = new Array<number>(s).fill(0);
  let whole = 0;
  for (const l of loads.values()) {
    let up = 0;
    let down = 0;
    for (let k = 0; k < s; k++) {
      tau[k] = Math.max(tau[k], nsOf(l.up[k], l.upRateBps), nsOf(l.down[k], l.downRateBps));
      up += l.up[k];
      down += l.down[k];
    }
    whole = Math.max(whole, nsOf(up, l.upRateBps), nsOf(down, l.downRateBps));
  }
  const meanOver = (fn: (f: PlannedFlow) => number) => {
    let sum = 0;
    for (const f of pairs.values()) sum += fn(f);
    return pairs.size > 0 ? sum / pairs.size : 0;
  };
  const lat = meanOver(pathLatencyNs);
  const ack = meanOver(ackReturnNs);
  const maxChunks = Math.max(...chunks);
  let t: number;
  if (c.algorithm === 'double-binary-tree') {
    // The busiest rank link (an inner node of one tree, a leaf of the other) is busy from the
    // start; its last piece then still goes down the tree (the channels' pieces share links).
    t = whole + c.treeHeight * (pieceNs * c.channels + lat) + ack;
  } else if (c.op === 'broadcast' && maxChunks > 1) {
    t = whole + (s - 1) * (whole / maxChunks + lat) + lat + ack;
  } else {
    const steps = tau.map((x, k) => ({ x, k })).filter((e) => e.x > 0);
    t = lat + ack;
    steps.forEach(({ x, k }, i) => {
      t += i === steps.length - 1 ? x : Math.max(x, x / chunks[k] + lat);
    });
  }
  return { idealNs: Math.round(t), stepLatencyNs: lat, ackReturnNs: ack };
}
