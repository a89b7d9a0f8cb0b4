/**
 * HPCC reaction point (sender NIC, per QP; "HPCC: High Precision Congestion Control", SIGCOMM'19,
 * as the HPCC ns-3 simulator runs it, docs/algorithms/hpcc.md): per-ACK INT processing, the
 * reference rate Rc updated once per RTT (when an ACK covers data sent after the previous
 * reference update) and a fast reaction on every other ACK; both a pacing rate and the window
 * W = W_init·R/lineRate are enforced (the simulator's RATE_BOUND + VAR_WIN).
 *
 * Sequence positions are PSNs (24-bit, wrap-aware): `sndNxt` follows the NIC's next PSN through
 * TX events and go-back-N rewinds, which is what the simulator's `snd_nxt` is.
 */
import { PSN_MASK, psnDiff } from '../../wire/bth.js';
import type { IntHop } from '../../wire/packet.js';
import type { FlowInfo, RpAlgorithm, RpEvent, RpIo } from '../types.js';
import {
  computeRate,
  ewmaUtilisation,
  type HpccHop,
  hopUtilisation,
  INT_TIME_MODULO,
  intBytesModulo,
  windowForRate,
} from './machine.js';
import type { HpccParams } from './params.js';

type HopRecord = HpccHop;

/** Per-hop reference state (MULTI_RATE). */
export interface HopRef {
  u: number;
  rcBps: number;
  stage: number;
}

export interface HpccState {
  lineRateBps: number;
  baseRttNs: number;
  bdpBytes: number;
  rateAiBps: number;
  minRateBps: number;
  /** An ACK has been seen (the simulator's lastUpdateSeq ≠ 0). */
  started: boolean;
  /** A data packet has left (its PSN seeds unaPsn). */
  sent: boolean;
  lastUpdatePsn: number;
  /** Next PSN the NIC sends (snd_nxt). */
  sndNxtPsn: number;
  /** Next PSN the receiver expects, as far as ACKs told us (snd_una). */
  unaPsn: number;
  /** INT records of the previous ACK, per slot, and when (our clock) they were taken. */
  prev: (HopRecord | null)[];
  prevAtNs: number;
  /** EWMA utilisation U (init 1), reference rate Rc (init line rate), incStage. */
  u: number;
  rcBps: number;
  stage: number;
  hops: HopRef[];
  rateBps: number;
  windowBytes: number;
  referenceUpdates: number;
  fastReactions: number;
}

export function initHpcc(flow: FlowInfo, p: HpccParams): HpccState {
  const baseRttNs = Math.max(1, p.baseRttNs > 0 ? p.baseRttNs : flow.baseRttNs);
  const bdpBytes = p.bdpBytes > 0 ? p.bdpBytes : (flow.lineRateBps * baseRttNs) / 8e9;
  const scale = p.stepScaleRefBps > 0 ? flow.lineRateBps / p.stepScaleRefBps : 1;
  const windowAiBytes = p.expectedFlows > 0 ? (bdpBytes * (1 - p.eta)) / p.expectedFlows : p.windowAiBytes;
  const rateAiBps = windowAiBytes > 0 ? (windowAiBytes * 8e9) / baseRttNs : p.rateAiBps * scale;
  return {
    lineRateBps: flow.lineRateBps,
    baseRttNs,
    bdpBytes,
    rateAiBps,
    minRateBps: Math.min(p.minRateBps, flow.lineRateBps),
    started: false,
    sent: false,
    lastUpdatePsn: 0,
    sndNxtPsn: 0,
    unaPsn: 0,
    prev: [],
    prevAtNs: 0,
    u: 1,
    rcBps: flow.lineRateBps,
    stage: 0,
    hops: [],
    rateBps: flow.lineRateBps,
    windowBytes: bdpBytes,
    referenceUpdates: 0,
    fastReactions: 0,
  };
}

function copyHop(h: IntHop): HopRecord {
  return { lineRateBps: h.lineRateBps, timeNs: h.timeNs, txBytes: h.txBytes, qlenBytes: h.qlenBytes };
}

/** Samples older than this (our clock) may hide a wrap of the hop's time or byte counter. */
function staleAfterNs(p: HpccParams, lineRateBps: number): number {
  const bytesWrapNs = lineRateBps > 0 ? (intBytesModulo(p.intMulti) * 8e9) / lineRateBps : INT_TIME_MODULO;
  return Math.min(INT_TIME_MODULO, bytesWrapNs) / 2;
}

function apply(s: HpccState, p: HpccParams, io: RpIo, rateBps: number, why: string): void {
  s.rateBps = rateBps;
  if (p.pacing) io.setRate(rateBps, why);
  if (p.window) {
    s.windowBytes = windowForRate(rateBps, s.bdpBytes, s.lineRateBps);
    io.setWindow(s.windowBytes, why);
  }
}

/**
 * UpdateRateHp: fold the ACK's INT stack into U (or the per-hop U's) and set the rate; on a
 * full (once-per-RTT) update also move the reference Rc / incStage.
 */
export function hpccUpdate(
  s: HpccState,
  hops: readonly IntHop[],
  full: boolean,
  p: HpccParams,
  io: RpIo,
): void {
  const now = io.now();
  if (!s.started) {
    s.started = true;
    s.prev = hops.map(copyHop);
    s.prevAtNs = now;
    s.lastUpdatePsn = s.sndNxtPsn;
    return;
  }
  const fast = !full;
  const elapsedNs = now - s.prevAtNs;
  const updated: boolean[] = [];
  let anyUpdated = false;
  let uMax = 0;
  let tauOfMax = 0;
  for (let i = 0; i < hops.length; i++) {
    updated.push(false);
    const cur = hops[i];
    const prev = s.prev[i] ?? null;
    if (prev === null || elapsedNs >= staleAfterNs(p, cur.lineRateBps)) {
      s.prev[i] = copyHop(cur);
      continue;
    }
    if (p.sampleFeedback && fast && cur.qlenBytes === 0) continue;
    const sample = hopUtilisation(cur, prev, s.lineRateBps, s.bdpBytes, p.intMulti);
    s.prev[i] = copyHop(cur);
    if (sample === null) continue;
    updated[i] = true;
    anyUpdated = true;
    if (p.multiRate) {
      const h = (s.hops[i] ??= { u: 1, rcBps: s.lineRateBps, stage: 0 });
      h.u = ewmaUtilisation(h.u, sample.u, sample.tauNs, s.baseRttNs);
    } else if (sample.u > uMax) {
      uMax = sample.u;
      tauOfMax = sample.tauNs;
    }
  }
  s.prevAtNs = now;
  if (anyUpdated) {
    if (full) s.referenceUpdates++;
    else s.fastReactions++;
    const tag = full ? 'int:rtt' : 'int:ack';
    if (!p.multiRate) {
      s.u = ewmaUtilisation(s.u, uMax, tauOfMax, s.baseRttNs);
      const d = computeRate(
        s.rcBps,
        s.stage,
        s.u,
        p.eta,
        p.maxStage,
        s.rateAiBps,
        s.minRateBps,
        s.lineRateBps,
      );
      apply(s, p, io, d.rateBps, `${tag}:${d.kind}`);
      if (full) {
        s.rcBps = d.rateBps;
        s.stage = d.stage;
      }
    } else {
      let rate = s.lineRateBps;
      let kind = 'ai';
      for (let i = 0; i < hops.length; i++) {
        const h = s.hops[i];
        if (h === undefined) continue;
        if (!updated[i]) {
          if (h.rcBps < rate) rate = h.rcBps;
          continue;
        }
        const d = computeRate(
          h.rcBps,
          h.stage,
          h.u,
          p.eta,
          p.maxStage,
          s.rateAiBps,
          s.minRateBps,
          s.lineRateBps,
        );
        if (d.rateBps < rate) {
          rate = d.rateBps;
          kind = d.kind;
        }
        if (full) {
          h.rcBps = d.rateBps;
          h.stage = d.stage;
        }
      }
      apply(s, p, io, rate, `${tag}:${kind}`);
      if (full) s.rcBps = rate;
    }
  }
  if (full && psnDiff(s.sndNxtPsn, s.lastUpdatePsn) > 0) s.lastUpdatePsn = s.sndNxtPsn;
}

/** An ACK (`nextPsn` = first PSN not yet acknowledged) or NAK carrying an INT echo. */
function onFeedback(s: HpccState, hops: readonly IntHop[] | null, nextPsn: number, p: HpccParams, io: RpIo) {
  if (psnDiff(nextPsn, s.unaPsn) > 0) s.unaPsn = nextPsn;
  if (hops === null) return;
  const full = !s.started || psnDiff(nextPsn, s.lastUpdatePsn) > 0;
  if (full || p.fastReact) hpccUpdate(s, hops, full, p, io);
}

export const hpccRp: RpAlgorithm<HpccParams, HpccState> = {
  features: { int: 'hpcc', txTimestamp: false },
  init(flow, p, io) {
    const s = initHpcc(flow, p);
    io.setRate(s.lineRateBps, 'init');
    if (p.window) io.setWindow(s.bdpBytes, 'init');
    return s;
  },
  onEvent(s, ev: RpEvent, p, io) {
    switch (ev.type) {
      case 'tx':
        if (!s.sent) {
          s.sent = true;
          s.unaPsn = ev.pkt.psn;
        }
        s.sndNxtPsn = (ev.pkt.psn + 1) & PSN_MASK;
        break;
      case 'ack':
        onFeedback(s, ev.pkt.int?.hops ?? null, (ev.pkt.psn + 1) & PSN_MASK, p, io);
        break;
      case 'nack':
        // The NIC has rewound to the NAK's PSN (go-back-N): so does snd_nxt.
        onFeedback(s, ev.pkt.int?.hops ?? null, ev.pkt.psn, p, io);
        s.sndNxtPsn = ev.pkt.psn;
        break;
      case 'timeout':
        s.sndNxtPsn = s.unaPsn;
        break;
      default:
        // HPCC ignores ECN echoes, CNPs and CNMs: its only signal is the INT echo.
        break;
    }
  },
  inspect(s) {
    return {
      rcBps: s.rcBps,
      U: s.u,
      incStage: s.stage,
      hpccRateBps: s.rateBps,
      referenceUpdates: s.referenceUpdates,
      fastReactions: s.fastReactions,
    };
  },
};
