/**
 * Trace hooks of the firmware: a small typed table a runtime installs on a NIC or switch (through
 * `NicConfig.trace` / `SwitchConfig.trace`) to observe it without wrapping its environment. The
 * firmware calls the hooks synchronously with its own emulated time; they must not change the
 * frame or call back into the firmware. When no table is installed, each hook site costs one
 * null check. docs/results.md ("probes") describes the Probe built on these hooks.
 */
import type { Packet } from '../wire/packet.js';

export interface NicTrace {
  /** A frame left the port: the end of its serialisation, just before `env.send`. */
  tx(nowNs: number, pkt: Packet): void;
  /** A frame arrived (ACK, NAK, CNP, CNM, data, PFC), before the NIC looks at it. */
  rx(nowNs: number, pkt: Packet): void;
  /** The NIC finished handling a received frame (its QP state reflects it now). */
  rxDone(nowNs: number, pkt: Packet): void;
}

export interface SwitchTrace {
  /** A frame arrived on ingress `port`, before validation and routing. */
  rx(nowNs: number, port: number, pkt: Packet): void;
  /** A frame left egress `port` (end of serialisation). */
  tx(nowNs: number, port: number, pkt: Packet): void;
  /** The bytes queued at egress `port` (all priorities) changed to `queueBytes`. */
  queue(nowNs: number, port: number, queueBytes: number): void;
}
