/**
 * Selective-repeat responder (`rocev2-sr`, `uet`): accepts data packets in any order within a
 * bounded reorder buffer, delivers them to the message layer in PSN order, and acknowledges with
 * selective-ACK information. The model is IRN (Mittal et al., "Revisiting Network Support for
 * RDMA", SIGCOMM 2018, §3.1: per-packet ACKs carry the cumulative ACK and the PSN that triggered
 * them, out-of-order arrivals are kept in a bitmap) with the UEC reference simulator's
 * coalescing (ultraethernet/uet-htsim, UecSink::processData: an ACK every 16 KB, at once on a
 * CE mark, on a requested ACK and on a duplicate) and its NACK of a trimmed packet
 * (UecSink::processTrimmed: at once, with the last-hop flag).
 *
 * The cumulative acknowledgement is the BTH PSN as in RoCEv2 (ACK: newest PSN received in
 * order; NAK: PSN expected); `ext.sack` carries the rest (src/wire/packet.ts SackInfo). Reorder
 * state is typed arrays indexed by PSN mod the window, so PSN wrap needs no special case (the
 * window divides 2^24).
 */
import { PSN_MASK, psnDiff } from '../src/wire/bth.js';
import { isMessageEnd, isMessageStart } from '../src/wire/opcodes.js';
import { Ecn, type Packet } from '../src/wire/packet.js';
import { createExt } from '../src/wire/packet-factory.js';
import { ackFrame } from './frames.js';
import { deliverPayload, endMessage } from './messages.js';
import type { Qp } from './qp.js';
import { SrWindowed } from './sr-window.js';
import { finishAck } from './transport.js';

const RX_HELD = 1;
const RX_START = 2;
const RX_END = 4;
/** Bits of a SACK bitmap (the reference's and UET's 64). */
const SACK_BITS = 64;

export class SrResponder extends SrWindowed {
  /** Give a new QP its reorder buffer. */
  attach(qp: Qp): void {
    qp.rxFlags = new Uint8Array(this.window);
    qp.rxLen = new Uint32Array(this.window);
  }

  onData(qp: Qp, pkt: Packet): void {
    const c = this.host.counters;
    const d = psnDiff(pkt.psn, qp.rxExpectedPsn);
    const flags = qp.rxFlags!;
    if (d < 0 || (d > 0 && d < this.window && (flags[pkt.psn & this.mask] & RX_HELD) !== 0)) {
      // Already here: the requester resent it (a NACK crossed an ACK, or a timeout); tell it now.
      c.duplicateRx++;
      if (pkt.trimHop > 0) c.trimmedRx++;
      this.sendAck(qp, pkt, false, false);
      return;
    }
    if (d >= this.window) {
      c.reorderOverflowRx++;
      return;
    }
    if (pkt.trimHop > 0) {
      c.trimmedRx++;
      c.nackTx++;
      this.sendAck(qp, pkt, true, pkt.ecn === Ecn.Ce);
      return;
    }
    if (pkt.ecn === Ecn.Ce) qp.rxCeSinceAck = true;
    const start = isMessageStart(pkt.opcode);
    const end = isMessageEnd(pkt.opcode);
    // A message end delivered (now, or from the buffer behind this packet) is acknowledged at
    // once: the requester completes the message on it, and its AckReq may have been answered
    // while the message still had a hole (the reference's "ACK again when the OOO queue drains").
    let endDelivered = false;
    if (d === 0) {
      endDelivered = end;
      this.deliver(qp, start, end, pkt.payloadLen);
      // Then everything held behind it, in PSN order.
      for (let psn = qp.rxExpectedPsn; (flags[psn & this.mask] & RX_HELD) !== 0; psn = qp.rxExpectedPsn) {
        const i = psn & this.mask;
        const f = flags[i];
        flags[i] = 0;
        qp.rxOoo--;
        if ((f & RX_END) !== 0) endDelivered = true;
        this.deliver(qp, (f & RX_START) !== 0, (f & RX_END) !== 0, qp.rxLen![i]);
      }
    } else {
      const i = pkt.psn & this.mask;
      flags[i] = RX_HELD | (start ? RX_START : 0) | (end ? RX_END : 0);
      qp.rxLen![i] = pkt.payloadLen;
      qp.rxOoo++;
      c.outOfOrderRx++;
      if (qp.rxOoo > c.reorderMaxPackets) c.reorderMaxPackets = qp.rxOoo;
    }
    qp.rxAckBytes += pkt.payloadLen;
    if (
      pkt.ecn === Ecn.Ce ||
      pkt.ackReq ||
      qp.ackRequested ||
      qp.rxAckBytes >= this.cfg.ackBytes ||
      endDelivered
    )
      this.sendAck(qp, pkt, false, false);
  }

  /** Hand the packet at the expected PSN to the message layer. */
  private deliver(qp: Qp, start: boolean, end: boolean, payloadBytes: number): void {
    const host = this.host;
    qp.rxExpectedPsn = (qp.rxExpectedPsn + 1) & PSN_MASK;
    if (start === qp.rxInMsg) {
      // FIRST/ONLY inside a message or MIDDLE/LAST outside one: a broken requester. The PSN is
      // consumed all the same (selective repeat cannot ask for it again).
      host.counters.malformed++;
      return;
    }
    const now = host.env.now();
    deliverPayload(host, qp, start, payloadBytes, now);
    if (end) endMessage(host, qp, now);
  }

  /**
   * A SACK (or, `nak`, the NACK of trimmed `data`): cumulative PSN in the BTH, then a 64-bit
   * bitmap from max(data's PSN − 63, expected + 1), as the reference's sackBitmapBase.
   */
  private sendAck(qp: Qp, data: Packet, nak: boolean, ce: boolean): void {
    const host = this.host;
    const expected = qp.rxExpectedPsn;
    const ack = ackFrame(qp.addr, host.ackPrio, nak, nak ? expected : (expected - 1) & PSN_MASK, qp.rxMsn);
    if (nak) ack.becn = ce;
    else {
      ack.becn = qp.rxCeSinceAck;
      qp.rxCeSinceAck = false;
      qp.rxAckBytes = 0;
      host.counters.ackTx++;
    }
    const ref = psnDiff(data.psn, expected);
    const baseOff = Math.max(ref - (SACK_BITS - 1), 1);
    let lo = 0;
    let hi = 0;
    if (qp.rxOoo > 0) {
      const flags = qp.rxFlags!;
      const n = Math.min(SACK_BITS, this.window - baseOff);
      for (let b = 0; b < n; b++) {
        if ((flags[(expected + baseOff + b) & this.mask] & RX_HELD) === 0) continue;
        if (b < 32) lo |= 1 << b;
        else hi |= 1 << (b - 32);
      }
    }
    ack.ext = createExt();
    ack.ext.sack = {
      refPsn: data.psn,
      basePsn: (expected + baseOff) & PSN_MASK,
      bitsLo: lo >>> 0,
      bitsHi: hi >>> 0,
      oooPackets: qp.rxOoo,
      lastHop: nak && data.trimLastHop,
    };
    finishAck(host, qp, data, ack);
  }
}
