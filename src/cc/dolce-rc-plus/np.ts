/**
 * Dolce-RC+ notification point (paper §VI-A workflow steps 2-3):
 * counts the packets and CE marks of each message, and the ACK the NIC sends for a message's
 * last packet echoes the sender's stamp (MAB iteration, arm, first departure, message id) with
 * the message's bytes, CE count and packet count (Fig. 7b; exact counts, the sender computes
 * the ratio). No CNPs.
 */
import { isMessageEnd, isMessageStart } from '../../wire/opcodes.js';
import { Ecn, FrameKind, type Packet } from '../../wire/packet.js';
import { createExt } from '../../wire/packet-factory.js';
import type { NpAlgorithm } from '../types.js';
import type { DolceRcPlusParams } from './params.js';
import { F_ARM, F_CE, F_FIRST_TX, F_ITER, F_MSG, F_MSG_BYTES, F_PKTS } from './rp.js';

interface DolceRcPlusNpQp {
  msgId: number;
  iter: number;
  arm: number;
  firstTxNs: number;
  pkts: number;
  ce: number;
  bytes: number;
  /** The completed message's echo, waiting for the ACK of its last packet. */
  echo: Record<string, number> | null;
  /** PSN of that last packet: only the ACK of exactly that packet carries the echo. */
  echoPsn: number;
  messages: number;
}

export const dolceRcPlusNp: NpAlgorithm<DolceRcPlusParams, null, DolceRcPlusNpQp> = {
  initNic: () => null,
  initQp: () => ({
    msgId: -1,
    iter: 0,
    arm: 0,
    firstTxNs: 0,
    pkts: 0,
    ce: 0,
    bytes: 0,
    echo: null,
    echoPsn: -1,
    messages: 0,
  }),
  onData(qp, _nic, pkt: Packet) {
    const f = pkt.ext?.fields ?? null;
    const msgId = f?.[F_MSG];
    if (f === null || msgId === undefined) return; // not from a Dolce-RC+ sender
    if (isMessageStart(pkt.opcode) || msgId !== qp.msgId) {
      qp.msgId = msgId;
      qp.iter = f[F_ITER] ?? 0;
      qp.arm = f[F_ARM] ?? 0;
      qp.firstTxNs = f[F_FIRST_TX] ?? 0;
      qp.pkts = 0;
      qp.ce = 0;
      qp.bytes = 0;
    }
    qp.pkts++;
    qp.bytes += pkt.payloadLen;
    if (pkt.ecn === Ecn.Ce) qp.ce++;
    if (isMessageEnd(pkt.opcode)) {
      qp.messages++;
      qp.echoPsn = pkt.psn;
      qp.echo = {
        [F_ITER]: qp.iter,
        [F_ARM]: qp.arm,
        [F_FIRST_TX]: qp.firstTxNs,
        [F_MSG]: qp.msgId,
        [F_MSG_BYTES]: qp.bytes,
        [F_CE]: qp.ce,
        [F_PKTS]: qp.pkts,
      };
    }
  },
  decorateAck(qp, _nic, ack: Packet) {
    // The NIC ACKs every in-order last packet of a message right after onData saw it. A NAK, or
    // an out-of-order last packet the NIC drops, leaves the echo for the resent packet's ACK.
    if (qp.echo === null || ack.kind !== FrameKind.Ack || ack.psn !== qp.echoPsn) return;
    ack.ext ??= createExt();
    ack.ext.fields = qp.echo;
    qp.echo = null;
  },
  inspect: (qp) => ({ npMessages: qp.messages }),
};
