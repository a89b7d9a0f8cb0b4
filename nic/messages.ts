/**
 * Message accounting both transports share: which posted message holds a sequence number, its
 * byte offset, and the completions the application layer observes (src/runtime/app/host-app.ts):
 * a sender's message completes when all its packets are acknowledged, a receiver's when all its
 * bytes arrived, both in posting order.
 */
import { PSN_MASK } from '../src/wire/bth.js';
import type { Qp, SendMsg } from './qp.js';
import type { TransportHost } from './transport.js';

/** Index of the message holding sequence number `seq` (msgs.length past the last one). */
export function msgIndexOf(qp: Qp, seq: number): number {
  let i = qp.msgHead;
  const msgs = qp.msgs;
  while (i < msgs.length && msgs[i].startSeq + msgs[i].packets <= seq) i++;
  return i;
}

/** Payload bytes of the QP before sequence number `seq`, which message `i` holds. */
export function byteOffsetOf(qp: Qp, seq: number, i: number, mtu: number): number {
  if (i >= qp.msgs.length) return qp.postedBytes;
  const m = qp.msgs[i];
  return m.startByte + Math.min((seq - m.startSeq) * mtu, m.bytes);
}

/** Complete (sender role) every message wholly below the cumulative acknowledgement qp.sndUna. */
export function completeSent(host: TransportHost, qp: Qp): void {
  const msgs = qp.msgs;
  while (qp.msgHead < msgs.length) {
    const m: SendMsg = msgs[qp.msgHead];
    if (m.startSeq + m.packets > qp.sndUna) break;
    qp.msgHead++;
    const now = host.env.now();
    host.cfg.observer.onMessageComplete({
      id: m.id,
      qpn: qp.qpn,
      bytes: m.bytes,
      postNs: m.postNs,
      completeNs: now,
      role: 'sender',
    });
    host.cc.rpEvent(qp, {
      type: 'messageComplete',
      id: m.id,
      bytes: m.bytes,
      postNs: m.postNs,
      completeNs: now,
    });
  }
  if (qp.msgHead > 64 && qp.msgHead * 2 >= msgs.length) {
    msgs.splice(0, qp.msgHead);
    qp.txMsg -= qp.msgHead;
    qp.msgHead = 0;
  }
}

/** Hand `payloadBytes` delivered in order to the message layer (`start`: a message's first packet). */
export function deliverPayload(
  host: TransportHost,
  qp: Qp,
  start: boolean,
  payloadBytes: number,
  now: number,
): void {
  if (start) {
    qp.rxInMsg = true;
    qp.rxMsgBytes = 0;
    qp.rxMsgFirstNs = now;
  }
  qp.rxMsgBytes += payloadBytes;
  host.counters.rxBytes += payloadBytes;
  host.cfg.observer.onDelivered?.(qp.qpn, payloadBytes);
}

/** The packet just delivered in order ended its message: count it (AETH MSN) and complete it. */
export function endMessage(host: TransportHost, qp: Qp, now: number): void {
  qp.rxInMsg = false;
  qp.rxMsn = (qp.rxMsn + 1) & PSN_MASK;
  completeReceived(host, qp, now);
}

/** Complete (receiver role) the message whose last byte was just delivered in order. */
function completeReceived(host: TransportHost, qp: Qp, now: number): void {
  let id = qp.rxOrdinal;
  if (qp.expectHead < qp.expectQ.length) {
    id = qp.expectQ[qp.expectHead++].id;
    if (qp.expectHead > 64 && qp.expectHead * 2 >= qp.expectQ.length) {
      qp.expectQ.splice(0, qp.expectHead);
      qp.expectHead = 0;
    }
  }
  qp.rxOrdinal++;
  host.cfg.observer.onMessageComplete({
    id,
    qpn: qp.qpn,
    bytes: qp.rxMsgBytes,
    postNs: qp.rxMsgFirstNs,
    completeNs: now,
    role: 'receiver',
  });
}
