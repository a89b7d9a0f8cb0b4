/**
 * RoCEv2 go-back-N reliability (the InfiniBand RC transport the NICs implement): the responder
 * accepts only the expected PSN, drops anything ahead of it with one NAK (PSN sequence error) per
 * gap, re-ACKs duplicates; the requester rewinds to the oldest unacknowledged packet on a NAK
 * or a retransmission timeout. `transport: rocev2-gbn`, the default.
 */
import { PSN_MASK, psnDiff } from '../src/wire/bth.js';
import { isMessageEnd, isMessageStart, Opcode, Syndrome } from '../src/wire/opcodes.js';
import { Ecn, FrameKind, type Packet } from '../src/wire/packet.js';
import { ackFrame } from './frames.js';
import { byteOffsetOf, completeSent, deliverPayload, endMessage, msgIndexOf } from './messages.js';
import { PathFeedback } from './paths.js';
import type { Qp } from './qp.js';
import {
  finishAck,
  type NextData,
  newAckEvent,
  newNextData,
  type Transport,
  type TransportHost,
} from './transport.js';

/** PSN of absolute sequence number `seq` of `qp`. */
export function psnOf(qp: Qp, seq: number): number {
  return (qp.initialPsn + seq) & PSN_MASK;
}

export class GoBackN implements Transport {
  private readonly ackEvery: number;
  private readonly next: NextData = newNextData();
  private readonly ackEv = newAckEvent();

  constructor(private readonly host: TransportHost) {
    this.ackEvery = Math.max(1, Math.floor(host.cfg.ackEveryPackets));
  }

  canSend(qp: Qp): boolean {
    return qp.sndNxt < qp.sndMax && (qp.windowBytes === null || qp.nxtByte - qp.unaByte < qp.windowBytes);
  }

  inflightBytes(qp: Qp): number {
    return qp.nxtByte - qp.unaByte;
  }

  attach(_qp: Qp): void {}

  // -------------------------------------------------------------------------------------------
  // requester

  nextData(qp: Qp): NextData {
    const seq = qp.sndNxt;
    const m = qp.msgs[qp.txMsg];
    const k = seq - m.startSeq;
    const last = k === m.packets - 1;
    const payload = last ? m.bytes - k * this.host.mtu : this.host.mtu;
    const n = this.next;
    n.seq = seq;
    n.msg = qp.txMsg;
    n.index = k;
    n.payloadBytes = payload;
    n.retransmit = seq < qp.sndHigh;
    qp.sndNxt = seq + 1;
    qp.nxtByte += payload;
    if (last) qp.txMsg++;
    if (qp.sndNxt > qp.sndHigh) qp.sndHigh = qp.sndNxt;
    // Also ask for an ACK when this packet fills the window, or coalescing could stall the QP.
    const fillsWindow = qp.windowBytes !== null && qp.nxtByte - qp.unaByte >= qp.windowBytes;
    n.ackReq = last || fillsWindow;
    return n;
  }

  dataBuilt(qp: Qp, _pkt: Packet): void {
    if (qp.rtoDeadlineNs === Number.POSITIVE_INFINITY) this.armRto(qp);
  }

  private armRto(qp: Qp): void {
    const rtoNs = this.host.cfg.rtoNs;
    if (!(rtoNs > 0)) return;
    const env = this.host.env;
    qp.rtoDeadlineNs = env.now() + rtoNs;
    if (qp.rtoTimer === null) qp.rtoTimer = env.setTimer(qp.rtoDeadlineNs, this.rtoFireOf(qp));
  }

  private rtoFireOf(qp: Qp): () => void {
    if (qp.rtoFire === null) qp.rtoFire = () => this.onRtoTimer(qp);
    return qp.rtoFire;
  }

  private onRtoTimer(qp: Qp): void {
    qp.rtoTimer = null;
    if (qp.sndUna >= qp.sndHigh || qp.rtoDeadlineNs === Number.POSITIVE_INFINITY) {
      qp.rtoDeadlineNs = Number.POSITIVE_INFINITY;
      return;
    }
    const host = this.host;
    const now = host.env.now();
    if (now < qp.rtoDeadlineNs) {
      qp.rtoTimer = host.env.setTimer(qp.rtoDeadlineNs, this.rtoFireOf(qp));
      return;
    }
    host.counters.timeouts++;
    // Go-back-N keeps no entropy per packet: the timeout counts against no path in particular.
    if (!qp.paths.fixed) qp.paths.feedback(-1, PathFeedback.Timeout, now);
    this.rewind(qp);
    this.armRto(qp);
    host.cc.rpEvent(qp, { type: 'timeout' });
    host.reschedule(qp);
    host.kick();
  }

  /** Cumulative acknowledgement up to (excluding) `seq`; returns the payload bytes newly acked. */
  private advanceUna(qp: Qp, seq: number): number {
    const i = msgIndexOf(qp, seq);
    const byte = byteOffsetOf(qp, seq, i, this.host.mtu);
    const acked = byte - qp.unaByte;
    qp.sndUna = seq;
    qp.unaByte = byte;
    if (qp.sndNxt < seq) {
      qp.sndNxt = seq;
      qp.nxtByte = byte;
      qp.txMsg = i;
    }
    if (seq >= qp.sndHigh) qp.rtoDeadlineNs = Number.POSITIVE_INFINITY;
    else this.armRto(qp);
    return acked;
  }

  /** Go-back-N: resend from the oldest unacknowledged packet. */
  private rewind(qp: Qp): void {
    if (qp.sndNxt === qp.sndUna) return;
    qp.sndNxt = qp.sndUna;
    qp.nxtByte = qp.unaByte;
    qp.txMsg = msgIndexOf(qp, qp.sndUna);
  }

  onAck(qp: Qp, pkt: Packet): void {
    const host = this.host;
    const c = host.counters;
    const aeth = pkt.aeth!;
    const syndrome = aeth.syndrome;
    const rel = psnDiff(pkt.psn, psnOf(qp, qp.sndUna));
    if (pkt.kind === FrameKind.Ack) {
      if ((syndrome & 0x60) !== 0) {
        c.malformed++;
        return;
      }
      // BTH.PSN of an ACK is the newest PSN acknowledged.
      const seq = qp.sndUna + rel + 1;
      if (seq > qp.sndHigh) {
        c.malformed++;
        return;
      }
      c.ackRx++;
      if (!qp.paths.fixed)
        qp.paths.feedback(pkt.srcPort, pkt.becn ? PathFeedback.Ecn : PathFeedback.Good, host.env.now());
      const acked = seq > qp.sndUna ? this.advanceUna(qp, seq) : 0;
      const echo = pkt.ext?.tsEchoNs ?? null;
      const ev = this.ackEv;
      ev.pkt = pkt;
      ev.ackedBytes = acked;
      ev.rttNs = echo === null ? null : host.env.now() - echo;
      ev.ecnEcho = pkt.becn;
      host.cc.rpEvent(qp, ev);
      ev.pkt = null as unknown as Packet;
      completeSent(host, qp);
      host.reschedule(qp);
      return;
    }
    let subtype: 'oos' | 'rnr';
    if (syndrome === Syndrome.NakPsnSeqErr) subtype = 'oos';
    else if ((syndrome & 0x60) === Syndrome.RnrNakBase) subtype = 'rnr';
    else {
      c.malformed++;
      return;
    }
    // BTH.PSN of a NAK is the PSN the responder expects: everything before it arrived.
    const seq = qp.sndUna + rel;
    if (seq > qp.sndHigh) {
      c.malformed++;
      return;
    }
    // No path feedback: a go-back-N NAK echoes the entropy of a packet that arrived early, which
    // says nothing against its path.
    c.nackRx++;
    if (seq < qp.sndUna) return; // stale: an ACK already moved past it
    if (seq > qp.sndUna) this.advanceUna(qp, seq);
    this.rewind(qp);
    host.cc.rpEvent(qp, { type: 'nack', pkt, subtype });
    completeSent(host, qp);
    host.reschedule(qp);
  }

  // -------------------------------------------------------------------------------------------
  // responder

  onData(qp: Qp, pkt: Packet): void {
    const host = this.host;
    const c = host.counters;
    const d = psnDiff(pkt.psn, qp.rxExpectedPsn);
    if (pkt.trimHop > 0 && d >= 0) {
      // A switch cut its payload: to go-back-N that is a loss at this PSN (or past it), so NAK
      // the expected PSN once per gap episode, as for a packet that overtook a lost one.
      c.trimmedRx++;
      if (!qp.rxNakSent) {
        qp.rxNakSent = true;
        c.nackTx++;
        this.sendAck(qp, pkt, true, qp.rxExpectedPsn);
      }
      return;
    }
    if (d > 0) {
      c.outOfOrderRx++;
      if (!qp.rxNakSent) {
        qp.rxNakSent = true;
        c.nackTx++;
        this.sendAck(qp, pkt, true, qp.rxExpectedPsn);
      }
      return;
    }
    if (d < 0) {
      // Re-ACK every duplicate: after a timeout the requester may be window-limited on them.
      c.duplicateRx++;
      this.sendAck(qp, pkt, false, (qp.rxExpectedPsn - 1) & PSN_MASK);
      return;
    }
    const start = isMessageStart(pkt.opcode);
    const end = isMessageEnd(pkt.opcode);
    if (start === qp.rxInMsg) {
      // FIRST/ONLY inside a message or MIDDLE/LAST outside one: a broken requester.
      c.malformed++;
      return;
    }
    const now = host.env.now();
    deliverPayload(host, qp, start, pkt.payloadLen, now);
    qp.rxExpectedPsn = (pkt.psn + 1) & PSN_MASK;
    qp.rxNakSent = false;
    if (pkt.ecn === Ecn.Ce) qp.rxCeSinceAck = true;
    qp.rxAckPending++;
    if (end) endMessage(host, qp, now);
    if (pkt.ackReq || end || qp.ackRequested || qp.rxAckPending >= this.ackEvery) {
      this.sendAck(qp, pkt, false, pkt.psn);
    }
  }

  /** ACK or NAK about `data`: echoes its INT stack and send timestamp, ECN via BECN. */
  private sendAck(qp: Qp, data: Packet, nak: boolean, psn: number): void {
    const host = this.host;
    const ack = ackFrame(qp.addr, host.ackPrio, nak, psn, qp.rxMsn);
    if (!nak) {
      ack.becn = qp.rxCeSinceAck;
      qp.rxCeSinceAck = false;
      qp.rxAckPending = 0;
      host.counters.ackTx++;
    }
    finishAck(host, qp, data, ack);
  }
}

/** The opcode check of an ACK/NAK every transport applies before handing it over. */
export function isAckFrame(pkt: Packet): boolean {
  return pkt.aeth !== null && pkt.opcode === Opcode.Acknowledge;
}
