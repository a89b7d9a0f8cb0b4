/**
 * Selective-repeat requester (`rocev2-sr`, `uet`): resends exactly the packets that are missing.
 * A packet is resent when
 * - a NACK names it (its payload was trimmed by a switch): at once;
 * - SACKs show `reorderThresholdPackets` later PSNs arrived while it did not, and it was sent only
 *   once (IRN §3.1's loss recovery, with a threshold instead of the first gap so the reordering
 *   spraying causes is not taken for loss; nic/sr-loss.ts, where `bdp` learns deeper reordering);
 * - it was sent `rtoNs` ago and is still unacknowledged (per packet, as the reference's
 *   UecSrc::rtxTimerExpired: only the timed-out packets are resent, never a window).
 * Resent packets go before new ones. The sender never has a PSN in flight `windowPackets` or
 * more past the cumulative ACK, so the responder's reorder buffer cannot overflow.
 *
 * Per-sequence state lives in typed arrays on the QP, indexed by sequence number mod the window.
 */
import type { RpEvent } from '../src/cc/types.js';
import { psnDiff } from '../src/wire/bth.js';
import { FrameKind, type Packet, type SackInfo } from '../src/wire/packet.js';
import { psnOf } from './gbn.js';
import { completeSent, msgIndexOf } from './messages.js';
import { PathFeedback } from './paths.js';
import type { Qp } from './qp.js';
import {
  learnReorder,
  markGapLosses,
  markLost,
  SR_FREE,
  SR_INFLIGHT,
  SR_LOST,
  SR_SACKED,
} from './sr-loss.js';
import { SrWindowed } from './sr-window.js';
import { type NextData, newAckEvent, newNextData } from './transport.js';

type NackEvent = Extract<RpEvent, { type: 'nack' }>;

export class SrRequester extends SrWindowed {
  private readonly next: NextData = newNextData();
  private readonly ackEv = newAckEvent();
  private readonly nackEv: NackEvent = {
    type: 'nack',
    pkt: null as unknown as Packet,
    subtype: 'trim',
    lastHop: false,
    nackedBytes: 0,
    rttNs: null,
  };

  attach(qp: Qp): void {
    const w = this.window;
    qp.srState = new Uint8Array(w);
    qp.srBytes = new Uint32Array(w);
    qp.srSentNs = new Float64Array(w);
    qp.srPort = new Uint16Array(w);
    qp.srSends = new Uint8Array(w);
    qp.srTrimmed = new Uint8Array(w);
    const t = this.cfg.reorderThresholdPackets;
    if (t === 'bdp') {
      const bdpBytes = (qp.path.bottleneckRateBps * qp.path.baseRttNs) / 8e9;
      qp.srReorderThreshold = Math.max(5, Math.ceil((1.5 * bdpBytes) / this.host.mtu));
      qp.srReorderLearn = true;
    } else qp.srReorderThreshold = t === null ? Number.POSITIVE_INFINITY : t;
  }

  canSend(qp: Qp): boolean {
    const resend = qp.srLost > 0;
    if (!resend && !(qp.sndNxt < qp.sndMax && qp.sndNxt - qp.sndUna < this.window)) return false;
    // A window of unacknowledged bytes holds the next packet whole (the UEC reference's
    // can_send_NSCC: cwnd >= in_flight + packet), and never stops the first one.
    const w = qp.windowBytes;
    if (w === null || qp.srInflightBytes === 0) return true;
    return qp.srInflightBytes + (resend ? this.host.mtu : this.nextNewBytes(qp)) <= w;
  }

  /** Payload bytes of the next new packet (sndNxt < sndMax). */
  private nextNewBytes(qp: Qp): number {
    const m = qp.msgs[qp.txMsg];
    const k = qp.sndNxt - m.startSeq;
    return k === m.packets - 1 ? m.bytes - k * this.host.mtu : this.host.mtu;
  }

  nextData(qp: Qp): NextData {
    const n = this.next;
    const state = qp.srState!;
    if (qp.srLost > 0) {
      let s = Math.max(qp.srRtxScan, qp.sndUna);
      while (s < qp.sndNxt && state[s & this.mask] !== SR_LOST) s++;
      if (s >= qp.sndNxt)
        throw new Error(`nic: QP ${qp.qpn} counts ${qp.srLost} lost packets but holds none`);
      qp.srRtxScan = s + 1;
      const i = s & this.mask;
      state[i] = SR_INFLIGHT;
      qp.srLost--;
      const bytes = qp.srBytes![i];
      qp.srInflightBytes += bytes;
      const msg = msgIndexOf(qp, s);
      n.seq = s;
      n.msg = msg;
      n.index = s - qp.msgs[msg].startSeq;
      n.payloadBytes = bytes;
      n.retransmit = true;
      // A resent packet is acknowledged at once, so the hole closes without waiting for coalescing.
      n.ackReq = true;
      return n;
    }
    const seq = qp.sndNxt;
    const m = qp.msgs[qp.txMsg];
    const k = seq - m.startSeq;
    const last = k === m.packets - 1;
    const payload = last ? m.bytes - k * this.host.mtu : this.host.mtu;
    const i = seq & this.mask;
    state[i] = SR_INFLIGHT;
    qp.srBytes![i] = payload;
    qp.srSends![i] = 0;
    qp.srTrimmed![i] = 0;
    qp.srInflightBytes += payload;
    n.seq = seq;
    n.msg = qp.txMsg;
    n.index = k;
    n.payloadBytes = payload;
    n.retransmit = false;
    qp.sndNxt = seq + 1;
    qp.sndHigh = qp.sndNxt;
    qp.nxtByte += payload;
    if (last) qp.txMsg++;
    // The reference's AckReq: the last packet, or the window (with the next full packet) is full.
    const fillsWindow =
      (qp.windowBytes !== null && qp.srInflightBytes + this.host.mtu >= qp.windowBytes) ||
      qp.sndNxt - qp.sndUna >= this.window;
    n.ackReq = last || fillsWindow;
    return n;
  }

  dataBuilt(qp: Qp, pkt: Packet): void {
    const i = this.next.seq & this.mask;
    qp.srSentNs![i] = this.host.env.now();
    qp.srPort![i] = pkt.srcPort;
    if (qp.srSends![i] < 255) qp.srSends![i]++;
    if (qp.rtoTimer === null) this.armRto(qp, this.host.env.now());
  }

  // -------------------------------------------------------------------------------------------
  // ACK / NAK

  onAck(qp: Qp, pkt: Packet): void {
    const host = this.host;
    const c = host.counters;
    const syndrome = pkt.aeth!.syndrome;
    const isAck = pkt.kind === FrameKind.Ack;
    if (isAck ? (syndrome & 0x60) !== 0 : syndrome !== 0x60) {
      c.malformed++;
      return;
    }
    const rel = psnDiff(pkt.psn, psnOf(qp, qp.sndUna));
    const cum = qp.sndUna + rel + (isAck ? 1 : 0);
    if (cum > qp.sndNxt) {
      c.malformed++;
      return;
    }
    const sack = pkt.ext?.sack ?? null;
    const now = host.env.now();
    let rttNs: number | null = null;
    let refSeq = -1;
    if (sack !== null) {
      refSeq = qp.sndUna + psnDiff(sack.refPsn, psnOf(qp, qp.sndUna));
      if (refSeq >= qp.sndUna && refSeq < qp.sndNxt) {
        if (qp.srState![refSeq & this.mask] !== SR_FREE) rttNs = this.rttSample(qp, refSeq, now);
      } else refSeq = -1;
    }
    if (qp.srReorderLearn && refSeq >= 0) learnReorder(qp, refSeq, now, this.mask);
    if (rttNs !== null && rttNs < qp.srMinRttNs) qp.srMinRttNs = rttNs;
    let acked = cum > qp.sndUna ? this.ackUpTo(qp, cum) : 0;
    if (sack !== null) acked += this.applySack(qp, sack);
    const echo = pkt.ext?.tsEchoNs ?? null;
    if (echo !== null) rttNs = now - echo;
    if (isAck) {
      c.ackRx++;
      if (!qp.paths.fixed)
        qp.paths.feedback(pkt.srcPort, pkt.becn ? PathFeedback.Ecn : PathFeedback.Good, now);
      markGapLosses(qp, this.mask);
      const ev = this.ackEv;
      ev.pkt = pkt;
      ev.ackedBytes = acked;
      ev.rttNs = rttNs;
      ev.ecnEcho = pkt.becn;
      host.cc.rpEvent(qp, ev);
      ev.pkt = null as unknown as Packet;
    } else {
      c.nackRx++;
      const lastHop = sack?.lastHop ?? false;
      let nacked = 0;
      let nackRtt: number | null = null;
      if (refSeq >= 0) {
        const i = refSeq & this.mask;
        if (qp.srState![i] === SR_INFLIGHT) {
          nacked = qp.srBytes![i];
          qp.srTrimmed![i] = 1;
          // The reference's processNack: the round trip from the packet's latest send.
          nackRtt = now - qp.srSentNs![i];
          markLost(qp, refSeq, this.mask);
        }
      }
      if (!qp.paths.fixed) {
        // The reference: a last-hop trim says nothing against the path, any other is a penalty.
        const what = lastHop ? (pkt.becn ? PathFeedback.Ecn : PathFeedback.Good) : PathFeedback.Nack;
        qp.paths.feedback(pkt.srcPort, what, now);
      }
      const ev = this.nackEv;
      ev.pkt = pkt;
      ev.lastHop = lastHop;
      ev.nackedBytes = nacked;
      ev.rttNs = nackRtt;
      host.cc.rpEvent(qp, ev);
      ev.pkt = null as unknown as Packet;
    }
    completeSent(host, qp);
    host.reschedule(qp);
  }

  /**
   * The RTT sample of an ACK that answers sequence `seq`, from its latest send: when it was sent
   * once, or twice after a switch trimmed the first copy (that copy's payload never arrived, so
   * the ACK answers the resend). Any other resend is ambiguous (Karn): no sample. The UEC
   * reference's validateSendTs takes a first resend's sample when the ACK echoes that it answers
   * the resend; a trimmed first copy is the case where the requester knows so without the echo.
   */
  private rttSample(qp: Qp, seq: number, now: number): number | null {
    const i = seq & this.mask;
    const sends = qp.srSends![i];
    return sends === 1 || (sends === 2 && qp.srTrimmed![i] === 1) ? now - qp.srSentNs![i] : null;
  }

  /** Cumulative acknowledgement up to (excluding) `cum`; returns the payload bytes newly acked. */
  private ackUpTo(qp: Qp, cum: number): number {
    const state = qp.srState!;
    const bytes = qp.srBytes!;
    let acked = 0;
    for (let s = qp.sndUna; s < cum; s++) {
      const i = s & this.mask;
      const st = state[i];
      if (st === SR_INFLIGHT) {
        qp.srInflightBytes -= bytes[i];
        acked += bytes[i];
      } else if (st === SR_LOST) {
        qp.srLost--;
        acked += bytes[i];
      }
      state[i] = SR_FREE;
    }
    qp.sndUna = cum;
    if (qp.srHighSacked < cum) qp.srHighSacked = cum;
    return acked;
  }

  private applySack(qp: Qp, sack: SackInfo): number {
    if (sack.bitsLo === 0 && sack.bitsHi === 0) return 0;
    const state = qp.srState!;
    const base = qp.sndUna + psnDiff(sack.basePsn, psnOf(qp, qp.sndUna));
    let acked = 0;
    for (let b = 0; b < 64; b++) {
      const word = b < 32 ? sack.bitsLo : sack.bitsHi;
      if (((word >>> (b & 31)) & 1) === 0) continue;
      const s = base + b;
      if (s < qp.sndUna || s >= qp.sndNxt) continue;
      const i = s & this.mask;
      const st = state[i];
      if (st === SR_INFLIGHT) {
        qp.srInflightBytes -= qp.srBytes![i];
        acked += qp.srBytes![i];
      } else if (st === SR_LOST) {
        qp.srLost--;
        acked += qp.srBytes![i];
      } else continue;
      state[i] = SR_SACKED;
      if (s + 1 > qp.srHighSacked) qp.srHighSacked = s + 1;
    }
    return acked;
  }

  // -------------------------------------------------------------------------------------------
  // retransmission timeout, per packet

  private armRto(qp: Qp, atNs: number): void {
    const rtoNs = this.host.cfg.rtoNs;
    if (!(rtoNs > 0)) return;
    qp.rtoDeadlineNs = Math.ceil(atNs + rtoNs);
    qp.rtoTimer = this.host.env.setTimer(qp.rtoDeadlineNs, this.rtoFireOf(qp));
  }

  private rtoFireOf(qp: Qp): () => void {
    if (qp.rtoFire === null) qp.rtoFire = () => this.onRtoTimer(qp);
    return qp.rtoFire;
  }

  private onRtoTimer(qp: Qp): void {
    qp.rtoTimer = null;
    const host = this.host;
    const now = host.env.now();
    const rtoNs = host.cfg.rtoNs;
    const state = qp.srState!;
    const sent = qp.srSentNs!;
    let oldest = Number.POSITIVE_INFINITY;
    let lost = 0;
    let lostBytes = 0;
    for (let s = qp.sndUna; s < qp.sndNxt; s++) {
      const i = s & this.mask;
      if (state[i] !== SR_INFLIGHT) continue;
      if (sent[i] + rtoNs <= now) {
        markLost(qp, s, this.mask);
        lost++;
        lostBytes += qp.srBytes![i];
        qp.paths.feedback(qp.srPort![i], PathFeedback.Timeout, now);
      } else if (sent[i] < oldest) oldest = sent[i];
    }
    // After a timeout the next one waits a whole RTO from now (TCP's rule, RFC 6298 §5.5 without
    // the doubling): the packets sent just after the lost one are most likely held at the
    // responder behind coalescing, and the resend's ACK will tell.
    if (lost > 0) this.armRto(qp, now);
    else if (oldest < Number.POSITIVE_INFINITY) this.armRto(qp, oldest);
    else qp.rtoDeadlineNs = Number.POSITIVE_INFINITY;
    if (lost === 0) return;
    host.counters.timeouts++;
    host.cc.rpEvent(qp, { type: 'timeout', packets: lost, lostBytes });
    // Unless the window (as the CC just set it) holds the resend back behind packets still in
    // flight: then no ACK can come, and those time out at their own deadlines, each taking its
    // bytes off the window, until the resend fits (the reference's recalculateRTO re-arms from
    // the oldest send every time). Waiting a whole RTO here stalled a flow ~1 ms (parity
    // lb-failed-sender/04@k8, seed 7).
    if (oldest < Number.POSITIVE_INFINITY && !this.canSend(qp)) {
      host.env.cancelTimer(qp.rtoTimer!);
      this.armRto(qp, oldest);
    }
    host.timedOut(qp);
    host.reschedule(qp);
    host.kick();
  }
}
