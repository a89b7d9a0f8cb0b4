/**
 * Contract between the switch firmware and the runtimes. The implementation lives beside this
 * file; runtimes only depend on these types and `createSwitch`.
 */
import type { NodeFirmware } from '../src/env/env.js';
import type { RoutingTable } from '../src/topology/model.js';

export interface EcnConfig {
  kminBytes: number;
  kmaxBytes: number;
  pmax: number;
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
}

export interface SwitchPortConfig {
  rateBps: number;
  mac: number;
  peerMac: number;
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
  /** Seed salt for ECMP hashing (same for every switch by default, as in the HPCC simulator). */
  ecmpSeed: number;
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
  pfcPauseTx: number;
  pfcPauseRx: number;
  pausedNs: number;
  drops: number;
  cnmTx: number;
}

export interface Switch extends NodeFirmware {
  portCounters(): PortCounters[];
  /** Bytes queued at egress `port` (all priorities). */
  queueBytes(port: number): number;
}
