/**
 * Contract between the switch firmware and the runtimes. The implementation lives beside this
 * file; runtimes only depend on these types and `createSwitch`.
 *
 * Fields marked "(optional)" were added after the first contract; leaving them out gives the
 * documented default, so configs written against the original shape keep working.
 * Semantics of every field: docs/switch.md.
 */
import type { NodeFirmware } from '../src/env/env.js';
import type { SwitchTrace } from '../src/env/trace.js';
import type { RoutingTable } from '../src/topology/model.js';
import type { FrameKind } from '../src/wire/packet.js';
import type { SwitchCpFactory } from './cp.js';

export interface EcnConfig {
  kminBytes: number;
  kmaxBytes: number;
  pmax: number;
  /** (optional) false turns marking off on this port/switch. Default true. */
  enabled?: boolean;
  /**
   * (optional) Where the RED decision is taken. 'dequeue' (default, as the HPCC simulator):
   * on the bytes left behind the departing packet in its queue. 'enqueue': on the bytes ahead
   * of the arriving packet in its queue.
   */
  markAt?: 'dequeue' | 'enqueue';
}

export interface PfcConfig {
  enabled: boolean;
  /** Static XOFF threshold per ingress port/priority, bytes (used when `dynamic` is null). */
  thresholdBytes: number;
  /** Dynamic threshold: XOFF when ingress bytes > alpha × free shared buffer (null = static). */
  dynamicAlpha: number | null;
  headroomBytes: number;
  /** XON when the ingress counter falls this many bytes below the XOFF threshold. */
  resumeOffsetBytes: number;
  /**
   * (optional) Bytes per ingress port/priority admitted before the shared pool is touched
   * (HPCC simulator: 4096). Thresholds apply to the bytes above it. Default 0.
   */
  reserveBytes?: number;
  /** (optional) Pause time carried by XOFF frames, in quanta of 512 bit times. Default 65535. */
  pauseQuanta?: number;
  /**
   * (optional) The priorities PFC protects (lossless) when `enabled`; the others are lossy: no
   * headroom, no XOFF threshold, never a pause, dropped (or trimmed, `SwitchConfig.trim`) when full.
   * Default: all eight.
   */
  priorities?: readonly number[];
}

/**
 * Packet trimming on the lossy data priorities (docs/switch.md "Trimming"), after the UEC's
 * reference simulator (ultraethernet/uet-htsim, htsim/sim/compositequeue.cpp).
 */
export interface TrimConfig {
  /** Cap of each trimming data queue (per egress port and priority), bytes. */
  queueBytes: number;
  /** Cap of each egress port's header queue (trimmed frames, strict priority), bytes. */
  headerQueueBytes: number;
  /** RED thresholds of the trimming data queues (they do not use `ecn`'s or a port's). */
  ecn: Pick<EcnConfig, 'kminBytes' | 'kmaxBytes' | 'pmax'>;
}

/**
 * A change of one port's link at an emulated time (scenario `links` entries with `at`;
 * docs/switch.md "Link events"). Both ends of a link get one, each on its own switch.
 */
export interface PortEvent {
  atNs: number;
  port: number;
  /** New line rate from `atNs` on (the frame on the wire finishes at the old one). */
  rateBps?: number;
  /** true: the link fails (frames to, from and queued at the port are dropped); false: it is back. */
  down?: boolean;
}

export interface SwitchPortConfig {
  rateBps: number;
  mac: number;
  peerMac: number;
  /** (optional) Per-port RED parameters (the HPCC simulator keys them by link speed). */
  ecn?: EcnConfig;
  /** (optional) PFC headroom of this ingress port (HPCC simulator: 3 × link BDP). Default pfc.headroomBytes. */
  pfcHeadroomBytes?: number;
  /**
   * (optional) Dynamic-threshold alpha of this ingress port (HPCC simulator: 2^-shift, shift one
   * smaller per doubling of the port rate above the NIC rate). Default pfc.dynamicAlpha.
   */
  pfcAlpha?: number;
  /** (optional) The peer on this port is a host: a frame trimmed here is a last-hop trim. Default false. */
  peerIsHost?: boolean;
}

export interface SwitchConfig {
  name: string;
  /** Dense switch id (CNM cpId, INT). */
  id: number;
  ports: SwitchPortConfig[];
  routes: RoutingTable;
  bufferBytes: number;
  ecn: EcnConfig;
  pfc: PfcConfig;
  /** Priorities served with strict priority (control traffic). Others share round-robin. */
  controlPrio: number;
  /**
   * Seed salt for ECMP hashing. The HPCC simulator salts with the switch's node id
   * (docs/topologies.md "Routing and ECMP"); one salt for every switch polarises multi-tier fabrics (every tier
   * makes the same choice), so builders should pass a per-switch value.
   */
  ecmpSeed: number;
  /**
   * (optional) Frame kinds queued in the control class whatever their `prio`. Default
   * [Cnp, Cnm]. Every other frame uses the queue of its `prio`, so ACK/NAK placement follows the
   * NIC's ackPrio: equal to controlPrio → strict priority (SRCC, Dolce-RC); equal to the data
   * priority → through the MMU with the data (the HPCC simulator).
   */
  controlKinds?: readonly FrameKind[];
  /** (optional) Deficit round-robin quantum among data priorities, bytes. Default 1500. */
  drrQuantumBytes?: number;
  /**
   * (optional) Active-flow window for the per-egress-port flow counter (INT `activeFlows`,
   * MPCC's N): a flow counts while its last data packet entered the port's queue at most this
   * long ago. 0 turns the counter off (activeFlows stamps 0). Default 100_000 ns.
   */
  activeFlowWindowNs?: number;
  /**
   * (optional) Byte threshold of the active-flow counter: a flow counts only once more than this
   * many bytes (wire bytes of its data frames) have entered the port's queue since it appeared
   * or came back after a silent window, so mice never count. Default 0: every flow counts from
   * its first data frame.
   */
  activeFlowMinBytes?: number;
  /**
   * (optional) Drop a flow from the active-flow counter when the last packet of its message
   * (BTH opcode LAST or ONLY) enters the queue, instead of `activeFlowWindowNs` later. Default false.
   */
  activeFlowForgetAtEnd?: boolean;
  /** (optional) false: do not stamp INT hops (packets keep their stack unchanged). Default true. */
  int?: boolean;
  /**
   * (optional) HPCC's INT_MULTI: HPCC-layout hops are stamped as the wire carries them in units of
   * 128·N (txBytes) and 80·N (qlen) bytes (docs/wire.md "INT stacks"). The run's one value
   * (RunSetup.intMulti), which the real runtime also encodes and decodes with. Default 1.
   */
  intMulti?: number;
  /**
   * (optional) HPCC INT line-rate table (code → bit/s, docs/wire.md "Rate codes"): the run's one
   * table (RunSetup.intRatesBps), which the real runtime also encodes and decodes with. Default:
   * the table of this switch's own port rates (the ns-3 table when they are all in it). Stamping
   * an HPCC hop of a port whose rate is not in the table throws (never snaps to another rate).
   */
  intRatesBps?: readonly number[];
  /**
   * (optional) Trim data frames of the lossy priorities (those PFC does not protect) to their
   * headers when their queue is full, instead of dropping them. Default: off (drop-tail).
   */
  trim?: TrimConfig | null;
  /** (optional) Link changes at emulated times, applied by the switch's own timers. Default none. */
  portEvents?: readonly PortEvent[];
  /** (optional) Switch-side algorithm plug-ins (switch/cp.ts), called in list order. Default none. */
  cp?: readonly SwitchCpFactory[];
  /** (optional) Trace hooks (src/env/trace.ts), installed by a runtime's probe. Default none. */
  trace?: SwitchTrace | null;
}

export interface PortCounters {
  port: number;
  txBytes: number;
  txPackets: number;
  queueBytes: number;
  maxQueueBytes: number;
  /** Integral of queue bytes over time (byte·ns), for the mean. */
  queueByteNs: number;
  ecnMarked: number;
  /** PFC frames sent/received with a non-zero pause time (XOFF and refreshes). */
  pfcPauseTx: number;
  pfcPauseRx: number;
  /** Sum over priorities of the time each was paused by received PFC frames, ns. */
  pausedNs: number;
  /** Frames dropped for lack of buffer while queued for this egress port. */
  drops: number;
  cnmTx: number;
  /** (added) PFC frames sent/received with every enabled class at quanta 0 (XON). */
  pfcResumeTx: number;
  pfcResumeRx: number;
  /** (added) Frames that arrived on this port and were dropped (any reason). */
  ingressDrops: number;
  /** (added) Frames received on this port. */
  rxPackets: number;
  rxBytes: number;
  /** (added) Data frames this egress port trimmed to their headers (arriving or queued). */
  trims: number;
  /** (added) Frames dropped because this port's header queue was full (or the buffer). */
  headerDrops: number;
  /** (added) Peak bytes in this port's header queue. */
  maxHeaderQueueBytes: number;
  /** (added) Frames lost because this port's link was down (queued, sent, routed to or arriving on it). */
  linkDownDrops: number;
}

/** (added) Switch-wide counters. */
export interface SwitchCounters {
  /** Frames that failed validation (bad port, kind, priority, size, missing body). */
  malformed: number;
  /** Frames with no route to their destination IP. */
  unroutable: number;
  /** Frames dropped because the TTL reached 0. */
  ttlExpired: number;
  /** Frames dropped by MMU admission (buffer or headroom exhausted). */
  bufferDrops: number;
  /** Of those, drops in a PFC-enabled data class: a lossless drop, which should never happen. */
  losslessDrops: number;
  /** (added) Data frames trimmed to their headers, over every port. */
  trims: number;
  /** (added) Frames dropped for want of header-queue room, over every port. */
  headerDrops: number;
  /** (added) Frames lost to down links, over every port. */
  linkDownDrops: number;
  /** Counters bumped by CP plug-ins through io.count. */
  cp: Record<string, number>;
}

export interface Switch extends NodeFirmware {
  portCounters(): PortCounters[];
  /** Bytes queued at egress `port` (all priorities). */
  queueBytes(port: number): number;
  /** (added) Switch-wide drop and validation counters. */
  switchCounters(): SwitchCounters;
  /** (added) Current line rate of `port` (a link event may have changed it); 0 while its link is down. */
  portRateBps(port: number): number;
  /** (added) Trimming is configured (`config.trim`): reports carry the trim counters. */
  readonly trimming: boolean;
  /** (added) Link events are configured (`config.portEvents`): reports carry `linkDownDrops`. */
  readonly linkEvents: boolean;
}

export { createSwitch, zeroSwitchCounters } from './switch.js';
