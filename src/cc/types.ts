/**
 * The congestion-control plug-in contract (docs/cc-api.md), shaped after the NVIDIA DOCA PCC
 * programming guide (per-QP user algorithm hooks) and Linux tcp_congestion_ops: an algorithm is a small table
 * of hooks per role, each called with (state, event, params, io). State is a plain object the
 * hook mutates; every output goes through `io` so the NIC can enforce, trace and export it.
 *
 * Roles (DCQCN's terms): RP = sender NIC, NP = receiver NIC, CP = switch.
 * Non-DOCA extensions (timers, CNP payload, INT, windows, CNM, message completion) are marked.
 *
 * Events are only valid during the hook call: the NIC reuses event objects on hot paths, so an
 * algorithm must copy what it wants to keep.
 */
import type { z } from 'zod';
import type { Rng } from '../env/rng.js';
import type { CnpPayload } from '../wire/cnp.js';
import type { Packet } from '../wire/packet.js';
import type { CcSwitchSide } from './switch-side.js';

export type { ActiveFlowRequest, CcSwitchSide, CpBuildContext } from './switch-side.js';

/** Static facts about a flow (QP) handed to `init`. */
export interface FlowInfo {
  qpn: number;
  remoteQpn: number;
  lineRateBps: number;
  mtuBytes: number;
  /** Unloaded RTT of the path, ns (from topology). */
  baseRttNs: number;
  bottleneckRateBps: number;
  /** Switches on the path. */
  hops: number;
  /**
   * Line rate of every link the data crosses, in path order: [0] the sender NIC's port, [h + 1]
   * the egress of switch h (MPCC's per-hop R_link). Absent when the runtime does not know it.
   */
  linkRatesBps?: readonly number[];
  /** One-way propagation delay of the path, ns (absent when unknown). */
  propDelayNs?: number;
  /**
   * The receiver paces this flow with credits (RCCC: the receiver NIC's `rccc` setting), so a
   * sender window algorithm may leave last-hop congestion to it (NSCC). Absent = no.
   */
  receiverCredits?: boolean;
}

/** Outputs and services available to RP hooks. */
export interface RpIo {
  now(): number;
  rng: Rng;
  /** Set the QP's pacing rate (bit/s), clamped by the NIC to (0, line rate]. `why` is traced. */
  setRate(rateBps: number, why: string): void;
  /** Set (bytes) or clear (null) the QP's window of unacknowledged bytes. Non-DOCA. */
  setWindow(bytes: number | null, why: string): void;
  /** Arm timer `slot` (a small integer chosen by the algorithm) to fire at `atNs`. Non-DOCA. */
  setTimer(slot: number, atNs: number): void;
  cancelTimer(slot: number): void;
  /** Current rate and window as enforced by the NIC. */
  rateBps(): number;
  windowBytes(): number | null;
  /** Payload bytes sent and not yet acknowledged. Non-DOCA. */
  inflightBytes(): number;
  /** True while the QP's data priority is PFC-paused at this NIC (DCQCN+ §VI-E). Non-DOCA. */
  paused(): boolean;
  /** Bump an algorithm counter (exported as a metric and in results). */
  count(name: string, delta?: number): void;
}

export type RpEvent =
  /**
   * A data packet of this QP is leaving the NIC (DOCA ROCE_TX, uncoalesced). `bytes` is the
   * payload; `pkt.sizeBytes` the emulated size on the link.
   */
  | { type: 'tx'; pkt: Packet; bytes: number; retransmit: boolean }
  /**
   * ACK (possibly not advancing: `ackedBytes` 0). `rttNs` from the echoed send timestamp, when
   * the packet carried one; under the selective-repeat transports (`rocev2-sr`, `uet`) also, without
   * one, from the send time of the packet the ACK answers (not when that packet was resent), and
   * `ackedBytes` counts the selectively acknowledged bytes too. `pkt.srcPort` is the entropy of
   * the data packet the ACK answers (ACKs echo it). `ecnEcho`: some data packet covered by this ACK arrived CE-marked
   * (BTH.BECN on the ACK, as native InfiniBand CC does).
   */
  | { type: 'ack'; pkt: Packet; ackedBytes: number; rttNs: number | null; ecnEcho: boolean }
  /**
   * NAK. `oos`/`rnr`: RoCEv2's PSN sequence error / receiver not ready (go-back-N). `trim`: the
   * selective-repeat transports' NACK of a packet whose payload a switch trimmed (`rocev2-sr`,
   * `uet`); `lastHop` when the trimming switch faced the receiver (UET's NSCC does not shrink its
   * window for those when RCCC runs), `nackedBytes` the payload the NIC will resend (0 when the
   * packet was already resent or acknowledged). Both are false/0 for `oos`/`rnr`.
   */
  | { type: 'nack'; pkt: Packet; subtype: 'oos' | 'rnr' | 'trim'; lastHop?: boolean; nackedBytes?: number }
  /** RoCEv2 CNP, with its payload (DCQCN+ period, Dolce-RC counts) in pkt.ext / pkt.bthResv7. */
  | { type: 'cnp'; pkt: Packet }
  /** Switch congestion notification (SRCC). Non-DOCA. */
  | { type: 'cnm'; pkt: Packet }
  /** A timer armed with io.setTimer fired. Non-DOCA (DOCA emulates timers on TX events). */
  | { type: 'timer'; slot: number }
  /**
   * Retransmission timeout of the QP: go-back-N has already rewound to the oldest unacked PSN;
   * selective repeat has marked the timed-out packets for resending.
   */
  | { type: 'timeout' }
  /** A message of this QP was fully acknowledged. Non-DOCA. */
  | { type: 'messageComplete'; id: number; bytes: number; postNs: number; completeNs: number };

/** What the RP wants the NIC to put on its data packets. */
export interface RpFeatures {
  /** Request an INT stack of this layout on every data packet (echoed in ACKs). */
  int: 'hpcc' | 'mpcc' | null;
  /** Stamp a send timestamp on data packets (echoed in ACKs → rttNs). */
  txTimestamp: boolean;
}

export interface RpAlgorithm<P, S> {
  features: RpFeatures | ((params: P) => RpFeatures);
  /** Initial state; should also set the initial rate/window through io. */
  init(flow: FlowInfo, params: P, io: RpIo): S;
  onEvent(state: S, ev: RpEvent, params: P, io: RpIo): void;
  /** Fill algorithm fields of an outgoing data packet (pkt.ext). Optional. */
  decorateData?(state: S, pkt: Packet, params: P, io: RpIo): void;
  /** Main state variables for metrics and traces (e.g. { alpha }), as of `nowNs`. */
  inspect?(state: S, params: P, nowNs: number): Record<string, number>;
}

/** Services available to per-QP NP hooks. */
export interface NpIo {
  now(): number;
  rng: Rng;
  /**
   * Send a CNP for this QP now (to the remote sender QP), with optional payload fields: those
   * the wire can carry (src/wire/cnp.ts), e.g. DCQCN+'s period or Dolce-RC's ECN count.
   */
  sendCnp(fields?: CnpPayload): void;
  /** Ask the NIC to ACK the packet being handled now (beyond its own coalescing policy). */
  requestAck(): void;
  /** Per-QP timers: `onTimer` fires with this QP's state. Non-DOCA. */
  setTimer(slot: number, atNs: number): void;
  cancelTimer(slot: number): void;
  count(name: string, delta?: number): void;
}

/** Services available to NIC-wide NP hooks (state shared by all QPs of one algorithm). */
export interface NpNicIo {
  now(): number;
  rng: Rng;
  /** Send a CNP on behalf of local QP `qpn` (e.g. DCQCN+'s round-robin CNP scheduler). */
  sendCnp(qpn: number, fields?: CnpPayload): void;
  /** NIC-wide timers: `onNicTimer` fires. Non-DOCA. */
  setTimer(slot: number, atNs: number): void;
  cancelTimer(slot: number): void;
  count(name: string, delta?: number): void;
}

export interface NpAlgorithm<P, NicState, QpState> {
  /**
   * Per receiver-NIC state shared by all its QPs that run this algorithm with these parameters
   * (e.g. DCQCN+'s congested-flow list). Created when the first such QP is created.
   */
  initNic(params: P, io: NpNicIo): NicState;
  initQp(flow: FlowInfo, params: P, nic: NicState): QpState;
  /** Every data packet received on the QP (in order or not), before the NIC acts on it. */
  onData(qp: QpState, nic: NicState, pkt: Packet, params: P, io: NpIo): void;
  /** Fill extension fields (e.g. a receiver-assigned window) of an ACK/NAK about to be queued. */
  decorateAck?(qp: QpState, nic: NicState, ack: Packet, params: P, io: NpIo): void;
  /** Per-QP timers armed through NpIo.setTimer. */
  onTimer?(qp: QpState, nic: NicState, slot: number, params: P, io: NpIo): void;
  /** NIC-wide timers armed through NpNicIo.setTimer. */
  onNicTimer?(nic: NicState, slot: number, params: P, io: NpNicIo): void;
  /**
   * Receiver-side state variables of the QP for metrics and traces (e.g. RCC's mode and PID
   * entry time), as of `nowNs`; merged into `Nic.qpInspect` after the RP's. Non-DOCA.
   */
  inspect?(qp: QpState, nic: NicState, params: P, nowNs: number): Record<string, number>;
}

/**
 * A registered algorithm. `params` is a zod object schema with the paper's defaults (and a
 * description per key); `profiles` are named parameter sets (e.g. DCQCN "paper" vs "hpcc-sim")
 * applied under user overrides; `defaultProfile` is used when none is named.
 */
export interface CcAlgorithm<P = Record<string, unknown>> {
  name: string;
  summary: string;
  // biome-ignore lint/suspicious/noExplicitAny: the schema's input type is loose (unit strings)
  params: z.ZodType<P, any>;
  profiles?: Record<string, Partial<P>>;
  defaultProfile?: string;
  /** Short parameter names accepted in overrides (e.g. `rai` → `rateAiBps`). */
  aliases?: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: state types are private to each algorithm
  rp: RpAlgorithm<P, any>;
  /** Receiver role; the NIC's default NP (ECN → CNP with a per-QP minimum interval) when absent. */
  // biome-ignore lint/suspicious/noExplicitAny: state types are private to each algorithm
  np?: NpAlgorithm<P, any, any>;
  /**
   * What this algorithm needs of the switches when any host runs it (DCQCN's CP role): a
   * plug-in (SRCC's CNM generator) and/or settings of their active-flow counter (MPCC's T_flow).
   * A typed extension in switch-side.ts, so switch-only needs stay out of the host contract.
   */
  cp?: CcSwitchSide<P>;
}
