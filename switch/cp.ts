/**
 * Switch-side congestion-point (CP) plug-ins: algorithm logic that lives in the switch
 * pipeline (SRCC's congested-flow detection and CNM relay, custom marking policies).
 *
 * A plug-in is a factory called once per switch with an `io` object; it returns the hooks it
 * wants. Hooks run synchronously inside the switch pipeline, in the order the factories were
 * listed in `SwitchConfig.cp`; they reach time, timers, randomness and the wire only through
 * `io` (firmware is sans-IO). Timers are plain closures (`io.setTimer(at, fn)`), so there is no
 * separate onTimer hook. Pipeline positions: docs/switch.md.
 */
import type { Logger, TimerId } from '../src/env/env.js';
import type { Rng } from '../src/env/rng.js';
import type { Packet } from '../src/wire/packet.js';

export interface SwitchCpIo {
  /** Switch name and dense id (CNM cpId). */
  readonly switchName: string;
  readonly switchId: number;
  readonly portCount: number;
  /** The class served with strict priority and never paused. */
  readonly controlPrio: number;
  now(): number;
  setTimer(atNs: number, fn: () => void): TimerId;
  cancelTimer(id: TimerId): void;
  rng: Rng;
  log: Logger;
  nextPacketId(): number;
  /**
   * Queue a frame on the control class of egress `port`: strict priority, never PFC-paused,
   * outside MMU admission (only the total buffer size bounds it). The frame is sent as given:
   * set its MACs, size (`emulatedSizeBytes`) and id first. Returns false (and drops the frame)
   * when the port does not exist or the buffer is full.
   */
  sendControl(port: number, pkt: Packet): boolean;
  /** Egress queue bytes of `port`, all priorities (the frame being serialised excluded). */
  queueBytes(port: number): number;
  /** Egress queue bytes of one priority queue of `port`. */
  queueBytesOf(port: number, prio: number): number;
  /** MMU bytes charged to ingress (port, prio): reserve + shared + headroom. */
  ingressBytes(port: number, prio: number): number;
  /** Current PFC XOFF threshold of ingress (port, prio), bytes above the reserve (Infinity when PFC is off, 0 for a bad port). */
  pfcXoffBytes(port: number, prio: number): number;
  /** Active flows on egress `port` within the configured window (0 when the counter is off). */
  activeFlows(port: number): number;
  /**
   * (added) Bytes of the frame `port` is serialising right now when it came from priority queue
   * `prio`, else 0. `queueBytesOf` excludes that frame (it left the queue at dequeue); SRCC's
   * egress queue length includes it (docs/algorithms/srcc.md "Switch side": Q_e).
   */
  inFlightBytesOf(port: number, prio: number): number;
  /** (added) True while priority `prio` of egress `port` is paused by a PFC frame from its peer. */
  egressPaused(port: number, prio: number): boolean;
  portRateBps(port: number): number;
  portMac(port: number): number;
  peerMac(port: number): number;
  /** ECMP choice for a frame by its destination IP and 5-tuple; -1 when unroutable. */
  route(pkt: Packet): number;
  /** Bump a named counter (reported in switchCounters().cp). */
  count(name: string, delta?: number): void;
}

export interface SwitchCp {
  readonly name: string;
  /**
   * A frame (anything but PFC, which is link-local) arrived on `inPort` and passed validation;
   * `outPort` is the ECMP egress (-1: unroutable). Runs before TTL decrement, MAC rewrite and MMU
   * admission, so `io.queueBytesOf(outPort, …)` is the queue the frame would join.
   * Return true to consume the frame: the switch then does nothing more with it (a relayed CNM is
   * re-sent by the plug-in through `io.sendControl`).
   */
  onIngress?(pkt: Packet, inPort: number, outPort: number): boolean | undefined;
  /** The frame was admitted and queued on (outPort, queue); TTL and MACs already rewritten. */
  onEnqueue?(pkt: Packet, outPort: number, queue: number): void;
  /** The frame leaves its queue and starts serialisation; ECN and INT already applied. */
  onDequeue?(pkt: Packet, outPort: number, queue: number): void;
}

export type SwitchCpFactory = (io: SwitchCpIo) => SwitchCp;
