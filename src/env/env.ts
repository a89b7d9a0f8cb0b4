/**
 * The environment injected into firmware (nic/, switch/, src/cc/). Firmware reaches time,
 * timers, randomness, the wire and observability only through this object, so the same code
 * runs in the deterministic virtual engine and in real OS processes (docs/development.md; docs/cc-api.md).
 */
import type { Packet } from '../wire/packet.js';
import type { Rng } from './rng.js';

/** Opaque handle of a pending timer. */
export type TimerId = number;

export interface TimerService {
  /** Current emulated time in integer nanoseconds. */
  now(): number;
  /** Run `fn` at emulated time `atNs` (clamped to now if in the past). */
  setTimer(atNs: number, fn: () => void): TimerId;
  /** Cancel a pending timer; cancelling a fired or unknown timer is a no-op. */
  cancelTimer(id: TimerId): void;
}

/** Structured log sink (pino in the real runtimes, a bounded buffer or nothing in virtual time). */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface FirmwareEnv extends TimerService {
  /**
   * Put a frame on the wire of egress `port`. Firmware calls this when the frame's last bit has
   * been serialised at the port's line rate; the runtime adds propagation delay and delivers it
   * to the peer's `receive`.
   */
  send(port: number, pkt: Packet): void;
  /** Seeded PRNG: the only source of randomness firmware may use. */
  rng: Rng;
  log: Logger;
  /** Unique packet ids within this node (ids of different nodes may collide in real runs). */
  nextPacketId(): number;
}

/** What every node's firmware exposes to a runtime. */
export interface NodeFirmware {
  readonly name: string;
  /** A frame arrived on ingress `port` (after propagation delay). */
  receive(port: number, pkt: Packet): void;
}

export const nullLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};
