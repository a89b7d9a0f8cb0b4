/**
 * Per-QP state of the NIC: requester (send queue, PSNs, go-back-N, pacing, RTO), responder
 * (expected PSN, ACK coalescing, NAK episode) and the bound congestion-control hooks. Behaviour
 * lives in nic.ts; this file only shapes the data so V8 keeps one hidden class per QP.
 */

import type { NpAlgorithm, NpIo, NpNicIo, RpAlgorithm, RpFeatures, RpIo } from '../src/cc/types.js';
import type { TimerId } from '../src/env/env.js';
import type { MessageRequest, QpPathInfo } from './api.js';
import type { FrameAddr } from './frames.js';
import type { PathSelector } from './paths.js';
import type { RcccSink } from './rccc/pull-pacer.js';
import type { RcccCredit } from './rccc/sender-credit.js';
import type { HeapItem } from './sched.js';

/** A posted message; packet indices are absolute (unwrapped) sequence numbers. */
export interface SendMsg {
  id: number;
  verb: 'send' | 'write';
  bytes: number;
  postNs: number;
  startSeq: number;
  packets: number;
  /** Payload bytes of all earlier messages of the QP. */
  startByte: number;
}

/** NIC-wide NP state of one (algorithm, parameters) pair. */
export interface NpNicBinding {
  // biome-ignore lint/suspicious/noExplicitAny: algorithm-private state
  np: NpAlgorithm<any, any, any>;
  params: Record<string, unknown>;
  state: unknown;
  io: NpNicIo;
  timers: Map<number, TimerId>;
}

/** Resolved congestion control of a QP. */
export interface CcBinding {
  name: string;
  params: Record<string, unknown>;
  // biome-ignore lint/suspicious/noExplicitAny: algorithm-private state
  rp: RpAlgorithm<any, any>;
  features: RpFeatures;
  npNic: NpNicBinding;
}

export const SCHED_NONE = 0;
export const SCHED_RING = 1;
export const SCHED_HEAP = 2;

export class Qp implements HeapItem {
  // requester: messages[msgHead..] are not yet fully acknowledged; txMsg holds sndNxt
  msgs: SendMsg[] = [];
  msgHead = 0;
  txMsg = 0;
  /** Oldest unacknowledged, next to send, one past the highest ever sent, one past the last posted. */
  sndUna = 0;
  sndNxt = 0;
  sndHigh = 0;
  sndMax = 0;
  unaByte = 0;
  nxtByte = 0;
  postedBytes = 0;

  // rate limiter and scheduler membership
  rateBps: number;
  windowBytes: number | null = null;
  nextAvailNs = Number.NEGATIVE_INFINITY;
  lastTxStartNs = Number.NEGATIVE_INFINITY;
  lastTxBits = 0;
  sched = SCHED_NONE;
  heapIndex = -1;

  // retransmission timeout: the timer may fire early and re-arm itself at the deadline
  rtoDeadlineNs = Number.POSITIVE_INFINITY;
  rtoTimer: TimerId | null = null;
  /** The RTO timer's callback, made once per QP by its transport: a closure per arm was garbage. */
  rtoFire: (() => void) | null = null;

  // congestion control
  cc!: CcBinding;
  rpState: unknown = null;
  rpIo!: RpIo;
  rpTimers: (TimerId | undefined)[] = [];
  npState: unknown = null;
  npIo!: NpIo;
  npTimers: (TimerId | undefined)[] = [];

  // path (entropy) selection of the data this QP sends (paths.ts)
  paths!: PathSelector;

  // selective repeat (sr-tx.ts, sr-rx.ts): rings indexed by sequence number mod the window;
  // null under go-back-N
  /** Requester: per sequence number, SR_* state, payload bytes, last send time, source port, sends. */
  srState: Uint8Array | null = null;
  srBytes: Uint32Array | null = null;
  srSentNs: Float64Array | null = null;
  srPort: Uint16Array | null = null;
  srSends: Uint8Array | null = null;
  /**
   * Requester: per sequence number, 1 when a NACK said a switch trimmed a copy of it, so that copy's
   * payload never arrived and the next ACK that answers it answers a resend (an RTT sample).
   */
  srTrimmed: Uint8Array | null = null;
  /** Packets marked lost and not yet resent, payload bytes in flight, one past the highest SACKed. */
  srLost = 0;
  srInflightBytes = 0;
  srHighSacked = 0;
  /** Lowest sequence number that may still be lost (resend scan) / not yet examined for a SACK gap. */
  srRtxScan = 0;
  srGapScan = 0;
  /** Reorder threshold of this QP, packets (Infinity: off); raised by reordering seen when `srReorderLearn`. */
  srReorderThreshold = Number.POSITIVE_INFINITY;
  srReorderLearn = false;
  /** Smallest RTT sampled from a packet sent once (spurious-resend test), ns. */
  srMinRttNs = Number.POSITIVE_INFINITY;
  /** Responder: per PSN past the expected one, received flag (bit 0), message start (1) and end (2); payload bytes. */
  rxFlags: Uint8Array | null = null;
  rxLen: Uint32Array | null = null;
  /** Packets held out of order; payload bytes since the last ACK; a data packet arrived yet. */
  rxOoo = 0;
  rxAckBytes = 0;
  rxAny = false;
  /** An AckReq arrived while packets were held: ACK again once none is (SelectiveRepeatConfig.ackWhenDrained). */
  rxAckOnDrain = false;
  /** Source port (entropy) of the newest data packet received: CNPs take it. */
  rxPort = 0;

  // receiver credits (UET RCCC, rccc/credits.ts): null unless the flow runs them
  /** Sender: credit from this QP's receiver. */
  credit: RcccCredit | null = null;
  /** Sender: a timed-out packet may leave without credit (once per network RTT), and when it last did. */
  creditRtsDue = false;
  creditLastRtsNs = Number.NEGATIVE_INFINITY;
  /** Receiver: this QP's sender in the NIC's pull pacer, and the rotating entropy of its pulls. */
  sink: RcccSink | null = null;
  pullEntropy = 0;

  // responder
  rxExpectedPsn: number;
  rxMsn = 0;
  rxAckPending = 0;
  rxNakSent = false;
  rxCeSinceAck = false;
  rxInMsg = false;
  rxMsgBytes = 0;
  rxMsgFirstNs = 0;
  rxOrdinal = 0;
  ackRequested = false;
  expectQ: MessageRequest[] = [];
  expectHead = 0;

  constructor(
    readonly qpn: number,
    readonly remoteQpn: number,
    readonly remoteIp: number,
    readonly initialPsn: number,
    readonly path: QpPathInfo,
    readonly addr: FrameAddr,
    readonly order: number,
    lineRateBps: number,
  ) {
    this.rateBps = lineRateBps;
    this.rxExpectedPsn = initialPsn;
    this.rxPort = addr.srcPort;
  }
}
