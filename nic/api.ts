/**
 * Contract between the NIC firmware and the runtimes / workload driver. The implementation
 * lives beside this file; runtimes only depend on these types and `createNic`.
 */
import type { NodeFirmware } from '../src/env/env.js';

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
  /** Retransmission timeout, ns (go-back-N from the oldest unacked PSN). */
  rtoNs: number;
  /** Priority (0..7) of data packets and of control frames (ACK/NAK/CNP/CNM). */
  dataPrio: number;
  controlPrio: number;
  /** Default congestion control of QPs created on this host, with resolved parameters. */
  cc: { name: string; params: Record<string, unknown> };
  observer: NicObserver;
}

/** Static facts about a connection, known at QP creation (from topology and routing). */
export interface QpPathInfo {
  /** Unloaded round-trip time of an MTU packet + ACK on this path, ns. */
  baseRttNs: number;
  /** Lowest link rate on the path, bit/s. */
  bottleneckRateBps: number;
  /** Number of switches on the path. */
  hops: number;
}

export interface QpSetup {
  qpn: number;
  remoteQpn: number;
  remoteIp: number;
  /** UDP source port (ECMP entropy), constant per QP (wire.md §3). */
  srcPort: number;
  path: QpPathInfo;
  /** Overrides the host default CC for this QP. */
  cc?: { name: string; params: Record<string, unknown> };
}

export interface MessageRequest {
  qpn: number;
  /** Flow / message id in the results (unique in a run). */
  id: number;
  bytes: number;
  verb: 'send' | 'write';
}

export interface MessageCompletion {
  id: number;
  qpn: number;
  bytes: number;
  /** When the message was posted, when its last byte was acknowledged (sender) or delivered (receiver). */
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
  onRateChange?(c: RateChange): void;
}

export interface HostCounters {
  cnpTx: number;
  cnpRx: number;
  nackTx: number;
  nackRx: number;
  retransmits: number;
  timeouts: number;
  rxBytes: number;
  txBytes: number;
  pfcPauseRx: number;
  pausedNs: number;
  malformed: number;
}

export interface Nic extends NodeFirmware {
  createQp(setup: QpSetup): void;
  post(msg: MessageRequest): void;
  counters(): HostCounters;
  /** Current pacing rate of a QP, bit/s (for rate series). */
  qpRateBps(qpn: number): number;
}
