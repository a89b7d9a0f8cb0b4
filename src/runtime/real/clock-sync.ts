/**
 * Clock sync of the real runtime (docs/realtime.md "Clock sync"): a PTP-like two-way exchange over the same
 * links the data uses, hop by hop like PTP boundary clocks. The reference node's clock is the truth; every
 * other node synchronises to its parent, the neighbour one hop closer to the reference (BFS over the
 * topology), and serves its own children with its corrected clock.
 *
 *   child  t1 ──Sync request──▶ t2  parent
 *          t4 ◀─Sync response── t3
 *   offset θ = ((t2 − t1) + (t3 − t4)) / 2 (parent − child),  delay = (t4 − t1) − (t3 − t2)
 *
 * A round is `exchanges` request/response pairs; the sample with the smallest delay is the one
 * least disturbed by queueing and event-loop scheduling, and its θ is added to the correction
 * (RealClock.setOffsetNs). Rounds repeat every `intervalMs` real ms, so the clock also tracks drift.
 * The θ measured by a round before it applies it is the residual the previous round left: that
 * is what rocelab_clock_offset_seconds shows.
 *
 * Timestamps are the node's corrected emulated clock as an unrounded double (so a time-dilated
 * clock keeps sub-ns resolution), carried as f64 fields `t1`, `t2`, `t3` of a FrameKind.Sync frame
 * (Ethernet 0x88B5 inner frame, fields in the Geneve Fields option; docs/realtime.md). Sync frames
 * always travel in Geneve, whatever overlay the data uses, because VXLAN has no room for them.
 */
import type { Topology } from '../../topology/model.js';
import { FrameKind, type Packet } from '../../wire/packet.js';
import { createExt, createPacket } from '../../wire/packet-factory.js';

export interface SyncSample {
  offsetNs: number;
  delayNs: number;
}

/** Parent of every node in the sync tree rooted at `ref` (null for the root), and the node's own port towards it. */
export function syncTree(topo: Topology, ref: string): Map<string, { parent: string; port: number } | null> {
  const out = new Map<string, { parent: string; port: number } | null>();
  if (!topo.byName.has(ref)) return out;
  out.set(ref, null);
  const queue = [ref];
  while (queue.length > 0) {
    const name = queue.shift()!;
    const node = topo.byName.get(name)!;
    for (const p of node.ports) {
      if (out.has(p.peerNode)) continue;
      out.set(p.peerNode, { parent: name, port: p.peerPort });
      queue.push(p.peerNode);
    }
  }
  return out;
}

/** Default reference: the first switch (the core of a star), else the first node. */
export function defaultSyncRef(topo: Topology): string {
  return (topo.switches[0] ?? topo.nodes[0]).name;
}

export function syncRequest(seq: number, srcIp: number, dstIp: number, t1: number): Packet {
  const p = createPacket();
  p.kind = FrameKind.Sync;
  p.srcIp = srcIp;
  p.dstIp = dstIp;
  p.psn = seq >>> 0;
  p.prio = 7;
  p.ext = createExt();
  p.ext.fields = { t1 };
  return p;
}

export function syncResponse(req: Packet, t2: number, t3: number, srcIp: number): Packet | null {
  const t1 = req.ext?.fields?.t1;
  if (typeof t1 !== 'number') return null;
  const p = createPacket();
  p.kind = FrameKind.Sync;
  p.srcIp = srcIp;
  p.dstIp = req.srcIp;
  p.psn = req.psn;
  p.prio = 7;
  p.ext = createExt();
  p.ext.fields = { t1, t2, t3 };
  return p;
}

export function isSyncResponse(p: Packet): boolean {
  return typeof p.ext?.fields?.t3 === 'number';
}

export function sampleOf(resp: Packet, t4: number): SyncSample | null {
  const f = resp.ext?.fields;
  if (f === null || f === undefined) return null;
  const { t1, t2, t3 } = f;
  if (typeof t1 !== 'number' || typeof t2 !== 'number' || typeof t3 !== 'number') return null;
  return { offsetNs: (t2 - t1 + (t3 - t4)) / 2, delayNs: t4 - t1 - (t3 - t2) };
}

export interface ClockSyncOptions {
  /** Request/response pairs per round. */
  exchanges: number;
  /** Real ms between two exchanges of a round. */
  spacingMs: number;
  /** Real ms between rounds. */
  intervalMs: number;
  /** Corrected emulated clock, unrounded ns. */
  now(): number;
  /** Current correction and a way to change it (RealClock.offsetNs / setOffsetNs). */
  getCorrectionNs(): number;
  setCorrectionNs(ns: number): void;
  /** Send a Sync frame to the parent. */
  sendToParent(pkt: Packet): void;
  /** Called after every round with the residual it measured (emulated ns) and its best sample. */
  onRound?(residualNs: number, best: SyncSample, round: number): void;
}

/** The child side: rounds of exchanges with the parent. */
export class ClockSyncClient {
  private seq = 1;
  private readonly pending = new Map<number, number>();
  private samples: SyncSample[] = [];
  private timer: NodeJS.Timeout | null = null;
  private sent = 0;
  private closed = false;
  rounds = 0;
  /** Residual measured by the latest round, emulated ns (NaN before the first). */
  lastResidualNs = Number.NaN;
  lastDelayNs = Number.NaN;
  /** Rounds in which no response came back. */
  emptyRounds = 0;
  /** Rounds whose best sample was too slow to trust (queued behind traffic), not applied. */
  skippedRounds = 0;
  /** Smallest two-way delay seen so far, emulated ns: the path's unloaded delay. */
  minDelayNs = Number.POSITIVE_INFINITY;

  constructor(
    private readonly opts: ClockSyncOptions,
    private readonly srcIp: number,
    private readonly parentIp: number,
  ) {}

  start(): void {
    this.schedule(0);
  }

  close(): void {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    this.timer = setTimeout(this.step, ms);
    this.timer.unref();
  }

  private readonly step = (): void => {
    this.timer = null;
    if (this.sent < this.opts.exchanges) {
      const seq = this.seq++ >>> 0;
      const t1 = this.opts.now();
      this.pending.set(seq, t1);
      this.sent++;
      this.opts.sendToParent(syncRequest(seq, this.srcIp, this.parentIp, t1));
      this.schedule(this.opts.spacingMs);
      return;
    }
    this.finishRound();
    // The first rounds follow each other quickly so the clock is right before emulated t=0.
    this.schedule(this.rounds + this.skippedRounds + this.emptyRounds < 4 ? 40 : this.opts.intervalMs);
  };

  /** A response from the parent arrived (t4 taken by the caller on receipt). */
  onResponse(pkt: Packet, t4: number): void {
    if (!this.pending.delete(pkt.psn)) return;
    const s = sampleOf(pkt, t4);
    if (s !== null && Number.isFinite(s.offsetNs) && s.delayNs >= 0) this.samples.push(s);
  }

  private finishRound(): void {
    this.sent = 0;
    this.pending.clear();
    const samples = this.samples;
    this.samples = [];
    if (samples.length === 0) {
      this.emptyRounds++;
      return;
    }
    let best = samples[0];
    for (const s of samples) if (s.delayNs < best.delayNs) best = s;
    if (best.delayNs < this.minDelayNs) this.minDelayNs = best.delayNs;
    // A round whose best exchange took much longer than the unloaded path was queued somewhere
    // (busy event loop, traffic): its offset carries that asymmetry, so it is not applied.
    if (best.delayNs > 2 * this.minDelayNs) {
      this.skippedRounds++;
      return;
    }
    this.rounds++;
    this.lastResidualNs = best.offsetNs;
    this.lastDelayNs = best.delayNs;
    this.opts.setCorrectionNs(this.opts.getCorrectionNs() + best.offsetNs);
    this.opts.onRound?.(best.offsetNs, best, this.rounds);
  }
}
