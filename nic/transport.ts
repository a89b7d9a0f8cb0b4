/**
 * What a reliability protocol (go-back-N in gbn.ts, selective repeat in sr.ts) needs from the
 * NIC, and what the NIC asks of it. The NIC owns the port scheduler, frame building and the CC
 * enforcement; the transport owns sequence state, ACK/NAK generation and handling, the RTO and
 * message completions.
 */
import type { RpEvent } from '../src/cc/types.js';
import type { FirmwareEnv } from '../src/env/env.js';
import type { Packet } from '../src/wire/packet.js';
import { createExt } from '../src/wire/packet-factory.js';
import type { HostCounters, NicConfig } from './api.js';
import type { CcHost } from './cc-host.js';
import { copyInt } from './frames.js';
import type { Qp } from './qp.js';

/** The NIC's side, handed to a transport at construction. */
export interface TransportHost {
  readonly env: FirmwareEnv;
  readonly cfg: NicConfig;
  /** RoCE path MTU, payload bytes. */
  readonly mtu: number;
  readonly counters: HostCounters;
  readonly cc: CcHost;
  readonly ackPrio: number;
  /** Queue an ACK/NAK frame (sent ahead of data, after CNPs). */
  queueAck(ack: Packet): void;
  /** Put a QP that may have become sendable into the scheduler. */
  reschedule(qp: Qp): void;
  /** Start the next frame if the port is idle. */
  kick(): void;
}

/** The data packet a transport chose to send next (reused; valid until the next call). */
export interface NextData {
  /** Absolute (unwrapped) sequence number. */
  seq: number;
  /** Index of its message in qp.msgs, and the packet's index within the message. */
  msg: number;
  index: number;
  payloadBytes: number;
  retransmit: boolean;
  /** Ask the responder for an ACK (message end, window full, …). */
  ackReq: boolean;
}

/** A reusable NextData (one per transport instance). */
export function newNextData(): NextData {
  return { seq: 0, msg: 0, index: 0, payloadBytes: 0, retransmit: false, ackReq: false };
}

/** A reusable ACK event (events are only valid during the hook, src/cc/types.ts). */
export function newAckEvent(): Extract<RpEvent, { type: 'ack' }> {
  return { type: 'ack', pkt: null as unknown as Packet, ackedBytes: 0, rttNs: null, ecnEcho: false };
}

export interface Transport {
  /** The QP has a data packet to send that its window allows. */
  canSend(qp: Qp): boolean;
  /** Pick the next data packet of `qp` (canSend was true) and account it as sent. */
  nextData(qp: Qp): NextData;
  /** The frame of the packet nextData chose is built (entropy picked, CC decorated); arm timers now. */
  dataBuilt(qp: Qp, pkt: Packet): void;
  /** A data frame arrived for local QP `qp` (responder). */
  onData(qp: Qp, pkt: Packet): void;
  /** An ACK or NAK arrived for local QP `qp` (requester). */
  onAck(qp: Qp, pkt: Packet): void;
  /** Payload bytes sent and not yet acknowledged (RpIo.inflightBytes). */
  inflightBytes(qp: Qp): number;
  /** Set up the transport's per-QP state of a new QP. */
  attach(qp: Qp): void;
}

/**
 * Echo `data`'s INT stack and send timestamp into `ack`, let the NP decorate it, and queue it:
 * the tail every ACK/NAK of either transport shares.
 */
export function finishAck(host: TransportHost, qp: Qp, data: Packet, ack: Packet): void {
  // The ACK takes the entropy of the data it answers: sprayed like the data, and the sender
  // learns which path the feedback is about (the reference's ACKs echo the data's EV).
  ack.srcPort = data.srcPort;
  if (data.int !== null) ack.int = copyInt(data.int);
  const ts = data.ext?.txTsNs ?? null;
  if (ts !== null) {
    if (ack.ext === null) ack.ext = createExt();
    ack.ext.tsEchoNs = ts;
  }
  host.cc.decorateAck(qp, ack);
  host.queueAck(ack);
}
