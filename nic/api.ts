/**
 * Contract between the NIC firmware and the runtimes / workload driver. The implementation
 * lives beside this file; runtimes only depend on these types and `createNic`.
 */
import type { ResolvedCc } from '../src/cc/resolve.js';
import type { NodeFirmware } from '../src/env/env.js';
import type { NicTrace } from '../src/env/trace.js';
import type { PathConfig } from './paths.js';
import type { RcccNicConfig } from './rccc/settings.js';

export type { PathConfig, PathPolicy } from './paths.js';

/**
 * Reliability protocol of a NIC (docs/scenario.md `nic.transport`): RoCEv2 go-back-N (today's
 * RC), IRN-style selective repeat over RoCEv2 frames, or UET's reliable unordered delivery (RUD)
 * with the reference simulator's ACK, NACK and RTO rules. Both ends of a QP must agree.
 */
export type TransportName = 'rocev2-gbn' | 'rocev2-sr' | 'uet';
export const TRANSPORTS: readonly TransportName[] = ['rocev2-gbn', 'rocev2-sr', 'uet'];

/** Selective-repeat settings (`rocev2-sr`, `uet`); docs/scenario.md names their sources. */
export interface SelectiveRepeatConfig {
  /**
   * Reorder buffer, packets: the receiver holds at most this many PSNs past the cumulative ACK
   * and the sender never has a packet further ahead in flight. A power of two.
   */
  windowPackets: number;
  /** The receiver ACKs once this many payload bytes arrived since its last ACK (and at once on CE). */
  ackBytes: number;
  /**
   * A packet is taken for lost (and resent) once this many later PSNs were selectively
   * acknowledged; `bdp`: 1.5 × the QP's bandwidth-delay product in packets, at least 5 (the
   * reference's SLEEK threshold with cwnd = BDP); null: never (only a NACK of a trimmed packet or
   * the RTO resends).
   */
  reorderThresholdPackets: number | 'bdp' | null;
  /**
   * ACK a QP's first data packet at once (the UEC reference's UecSink::processData when nothing
   * was received yet): the sender's first RTT sample, and the end of a speculative start, come a
   * coalescing interval sooner. The `uet` transport's rule; default false.
   */
  ackFirstPacket?: boolean;
  /**
   * An AckReq that arrives while packets are held out of order is answered at once and again when
   * the hole fills and nothing is held (the reference's UecSink::_ack_request: "also triggers
   * another ack later when the ooo queue drains"). Without it a sender whose window closed behind
   * the hole waits for the RTO: the repair carries no AckReq and the coalescing threshold is not
   * reached. The `uet` transport's rule; default false.
   */
  ackWhenDrained?: boolean;
}

/**
 * Congestion control of a QP: the algorithm object (src/cc/types.ts CcAlgorithm) and its
 * parameters, as `resolveCc` (src/cc/registry.ts) or `resolveAlgorithm` (src/cc/resolve.ts)
 * return them. The NIC re-resolves the parameters once (idempotent), so raw overrides also work;
 * `profile` names the parameter profile they apply to (default: the algorithm's default). The
 * NIC never looks an algorithm up by name (docs/cc-api.md).
 */
export type CcSpec = ResolvedCc;

export interface NicPortConfig {
  rateBps: number;
  mac: number;
  /** MAC of the peer port (first-hop switch), used as Ethernet destination. */
  peerMac: number;
}

export interface NicConfig {
  name: string;
  ip: number;
  port: NicPortConfig;
  /** RoCE path MTU: payload bytes per packet. */
  mtuBytes: number;
  /** Send an ACK every N data packets (and always on AckReq / message end). Default 1. */
  ackEveryPackets: number;
  /** Retransmission timeout, ns (go-back-N from the oldest unacked PSN); 0 disables it. */
  rtoNs: number;
  /** Priority (0..7) of data packets and of control frames (CNP; ACK/NAK unless ackPrio is set). */
  dataPrio: number;
  controlPrio: number;
  /**
   * Priority of ACK/NAK frames (default controlPrio). The NIC always sends them before data;
   * the priority decides which PFC class pauses them and which switch queue carries them
   * (= dataPrio reproduces the HPCC simulator, where ACKs share the data queue).
   */
  ackPrio?: number;
  /** Default congestion control of QPs created on this host, with resolved parameters. */
  cc: CcSpec;
  observer: NicObserver;
  /**
   * Minimum interval between two CNPs of one QP for the NIC's default NP, used by algorithms
   * that bring no NP of their own (e.g. `none`). Default 50 µs (DCQCN paper's N).
   */
  cnpMinIntervalNs?: number;
  /**
   * How many rate changes the NIC keeps for `rateTrace()` (oldest dropped first). Default 0: the
   * runtimes follow rate changes through `observer.onRateChange`, and a kept change outlives the
   * young generation, so V8 allocates every change in the old one (on the 320-host fat tree 4096
   * per NIC were about 80 % of what the old generation took in: docs/performance.md "Memory").
   */
  rateTraceCapacity?: number;
  /** (optional) Trace hooks (src/env/trace.ts), installed by a runtime's probe. Default none. */
  trace?: NicTrace | null;
  /** Reliability protocol; default `rocev2-gbn`. */
  transport?: TransportName;
  /** Selective-repeat settings of `rocev2-sr` / `uet` (ignored by go-back-N). */
  sr?: SelectiveRepeatConfig;
  /** Path (entropy) policy of the QPs this NIC sends on; default `ecmp`. */
  paths?: PathConfig;
  /**
   * Receiver credits (UET RCCC, docs/algorithms/rccc.md) for the QPs this NIC receives on: it
   * pulls their senders. Needs transport `uet`. Default none.
   */
  rccc?: RcccNicConfig | null;
}

/** Static facts about a connection, known at QP creation (from topology and routing). */
export interface QpPathInfo {
  /** Unloaded round-trip time of an MTU packet + ACK on this path, ns. */
  baseRttNs: number;
  /** Lowest link rate on the path, bit/s. */
  bottleneckRateBps: number;
  /** Number of switches on the path. */
  hops: number;
  /** Line rate of each link on the path in order ([0] = this host's port), bit/s (optional). */
  linkRatesBps?: readonly number[];
  /** One-way propagation delay of the path, ns (optional). */
  propDelayNs?: number;
}

export interface QpSetup {
  qpn: number;
  remoteQpn: number;
  remoteIp: number;
  /** UDP source port (ECMP entropy), constant per QP (docs/wire.md §1.3 UDP). */
  srcPort: number;
  path: QpPathInfo;
  /** Overrides the host default CC for this QP. */
  cc?: CcSpec;
  /** First PSN of the connection (both ends must agree). Default 0. */
  initialPsn?: number;
  /**
   * The remote end pulls this QP's data with credits (its NIC's `rccc`; transport `uet`): send
   * only on credit, with a speculative maxwnd = 1.5 × BDP of `networkRttNs` at the start.
   */
  receiverCredits?: { networkRttNs: number } | null;
}

export interface MessageRequest {
  qpn: number;
  /** Flow / message id in the results (unique in a run). */
  id: number;
  bytes: number;
  verb: 'send' | 'write';
}

export interface MessageCompletion {
  /**
   * Message id. Receiver role: the id given to `expect()` for this QP, in order; without one,
   * the message's 0-based ordinal on the QP (the receiver cannot see the sender's id).
   */
  id: number;
  qpn: number;
  bytes: number;
  /**
   * Sender: when the message was posted. Receiver: when its first packet arrived in order.
   * completeNs: when its last packet was acknowledged (sender) or delivered in order (receiver).
   */
  postNs: number;
  completeNs: number;
  role: 'sender' | 'receiver';
}

export interface RateChange {
  qpn: number;
  timeNs: number;
  rateBps: number;
  windowBytes: number | null;
  /** The event that caused it (e.g. "cnp", "timer:rate", "ack"). */
  why: string;
}

export interface NicObserver {
  onMessageComplete(c: MessageCompletion): void;
  /**
   * Receiver role: `payloadBytes` of local QP `qpn` were delivered in order to the application
   * (every transport: go-back-N as a packet is accepted, selective repeat as the cumulative ACK
   * passes a packet, however it arrived). Never for a trimmed packet.
   */
  onDelivered?(qpn: number, payloadBytes: number): void;
  onRateChange?(c: RateChange): void;
}

export interface HostCounters {
  cnpTx: number;
  cnpRx: number;
  nackTx: number;
  nackRx: number;
  /** Data packets sent again (go-back-N after a NAK or a timeout). */
  retransmits: number;
  timeouts: number;
  /** Application payload bytes delivered in order (goodput at this host). */
  rxBytes: number;
  /** Emulated bytes of every frame this NIC put on the wire (data and control). */
  txBytes: number;
  /** PFC frames received that paused at least one priority (resumes are not counted). */
  pfcPauseRx: number;
  /** Time during which a priority of the port was paused, summed over priorities. */
  pausedNs: number;
  malformed: number;
  dataPacketsTx: number;
  ackTx: number;
  ackRx: number;
  /** Data packets dropped by the responder because they were ahead of the expected PSN. */
  outOfOrderRx: number;
  /** Data packets received again (already delivered), re-ACKed. */
  duplicateRx: number;
  /** Payload bytes of every data packet sent (first sends and resends). */
  dataBytesTx: number;
  /** Payload bytes of data packets sent again (all transports). */
  retransmittedBytes: number;
  /** Trimmed data packets received (payload cut by a switch) and NACKed. */
  trimmedRx: number;
  /** Selective repeat: data packets dropped because they were past the reorder buffer. */
  reorderOverflowRx: number;
  /** Selective repeat: the most packets a QP's reorder buffer held at once (max over QPs). */
  reorderMaxPackets: number;
  /** Receiver credits (RCCC): pull frames sent (as a receiver) and received (as a sender). */
  pullTx: number;
  pullRx: number;
}

/** Every counter at zero, in the order results.json lists them. */
export function zeroHostCounters(): HostCounters {
  return {
    cnpTx: 0,
    cnpRx: 0,
    nackTx: 0,
    nackRx: 0,
    retransmits: 0,
    timeouts: 0,
    rxBytes: 0,
    txBytes: 0,
    pfcPauseRx: 0,
    pausedNs: 0,
    malformed: 0,
    dataPacketsTx: 0,
    ackTx: 0,
    ackRx: 0,
    outOfOrderRx: 0,
    duplicateRx: 0,
    dataBytesTx: 0,
    retransmittedBytes: 0,
    trimmedRx: 0,
    reorderOverflowRx: 0,
    reorderMaxPackets: 0,
    pullTx: 0,
    pullRx: 0,
  };
}

/**
 * Multipath transport statistics of a host (results.json `hosts[].multipath`, docs/results.md):
 * only for a NIC that sprays or runs selective repeat.
 */
export interface MultipathStats {
  transport: TransportName;
  policy: PathConfig['policy'];
  /** Entropies per QP. */
  entropies: number;
  /** Payload bytes sent per entropy index, summed over the host's QPs (index i of every QP). */
  entropyTxBytes: number[];
  dataBytesTx: number;
  retransmittedBytes: number;
  nackRx: number;
  nackTx: number;
  trimmedRx: number;
  timeouts: number;
  outOfOrderRx: number;
  reorderMaxPackets: number;
  reorderOverflowRx: number;
  /** Receiver credits (RCCC): pulls sent as a receiver and received as a sender; only with RCCC. */
  pullTx?: number;
  pullRx?: number;
}

export interface Nic extends NodeFirmware {
  /** Throws on a duplicate QPN or an unknown CC algorithm (programming errors of the runtime). */
  createQp(setup: QpSetup): void;
  /** Queue a message on QP `msg.qpn` (sender side). Throws on an unknown QP or a bad size. */
  post(msg: MessageRequest): void;
  /**
   * Receiver side: announce a message that will arrive on local QP `msg.qpn`, so the
   * receiver-role completion carries its id. Announce in posting order.
   */
  expect(msg: MessageRequest): void;
  counters(): HostCounters;
  /** Current pacing rate of a QP, bit/s (for rate series). NaN for an unknown QP. */
  qpRateBps(qpn: number): number;
  /** Current window of a QP in bytes, null when unlimited or unknown. */
  qpWindowBytes(qpn: number): number | null;
  /**
   * A QP's rate, window, in-flight bytes and the algorithm's `inspect()` variables (alpha, …),
   * the sender-side (RP) ones and then the receiver-side (NP) ones.
   */
  qpInspect(qpn: number): Record<string, number>;
  /** The most recent rate changes of all QPs, oldest first (bounded by `rateTraceCapacity`; none by default). */
  rateTrace(): RateChange[];
  /** Counters bumped by the CC algorithms through `io.count`, summed over QPs. */
  ccCounters(): Record<string, number>;
  /** Spraying and selective-repeat statistics; null under go-back-N with ecmp (today's NIC). */
  multipath(): MultipathStats | null;
}

export { createNic } from './nic.js';
