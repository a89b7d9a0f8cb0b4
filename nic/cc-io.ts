/**
 * The RpIo and NpIo of one QP (docs/cc-api.md): what its algorithm's hooks talk through. Classes,
 * so a QP holds one small object per role with its methods on a shared prototype: as object
 * literals of closures, the two ios were 17 closures and their contexts per QP, about 1 KB of the
 * 2.4 KB a QP took on the 320-host fat tree (docs/performance.md), and every call site saw a
 * closure of its own per QP. A timer's callback is made once per (QP, slot), not per arm.
 */
import type { NpIo, RpIo } from '../src/cc/types.js';
import type { FirmwareEnv, TimerId } from '../src/env/env.js';
import type { Rng } from '../src/env/rng.js';
import type { CnpPayload } from '../src/wire/cnp.js';
import type { CcHost, CcHostPort } from './cc-host.js';
import type { Qp } from './qp.js';

/** What both roles share: clock, generator, counters and slot timers kept in `timers()`. */
abstract class QpIo {
  readonly rng: Rng;
  private readonly fires: (() => void)[] = [];

  constructor(
    protected readonly host: CcHost,
    protected readonly env: FirmwareEnv,
    protected readonly port: CcHostPort,
    protected readonly qp: Qp,
  ) {
    this.rng = env.rng;
  }

  /** The QP's timers of this role, by slot. */
  protected abstract timers(): (TimerId | undefined)[];
  /** Timer `slot` of this role fired (its entry is already cleared). */
  protected abstract fire(slot: number): void;

  now(): number {
    return this.env.now();
  }

  setTimer(slot: number, atNs: number): void {
    const timers = this.timers();
    const old = timers[slot];
    if (old !== undefined) this.env.cancelTimer(old);
    timers[slot] = this.env.setTimer(atNs, (this.fires[slot] ??= () => this.fired(slot)));
  }

  cancelTimer(slot: number): void {
    const timers = this.timers();
    const old = timers[slot];
    if (old !== undefined) this.env.cancelTimer(old);
    timers[slot] = undefined;
  }

  count(name: string, delta = 1): void {
    this.host.bump(name, delta);
  }

  private fired(slot: number): void {
    this.timers()[slot] = undefined;
    this.fire(slot);
    this.port.kick();
  }
}

export class QpRpIo extends QpIo implements RpIo {
  protected timers(): (TimerId | undefined)[] {
    return this.qp.rpTimers;
  }

  protected fire(slot: number): void {
    this.host.rpEvent(this.qp, { type: 'timer', slot });
  }

  setRate(rateBps: number, why: string): void {
    this.port.setRate(this.qp, rateBps, why);
  }

  setWindow(bytes: number | null, why: string): void {
    this.port.setWindow(this.qp, bytes, why);
  }

  rateBps(): number {
    return this.qp.rateBps;
  }

  windowBytes(): number | null {
    return this.qp.windowBytes;
  }

  inflightBytes(): number {
    return this.port.inflightBytes(this.qp);
  }

  paused(): boolean {
    return this.port.dataPaused();
  }
}

export class QpNpIo extends QpIo implements NpIo {
  protected timers(): (TimerId | undefined)[] {
    return this.qp.npTimers;
  }

  protected fire(slot: number): void {
    const qp = this.qp;
    const b = qp.cc.npNic;
    b.np.onTimer?.(qp.npState, b.state, slot, b.params, qp.npIo);
  }

  sendCnp(fields?: CnpPayload): void {
    this.port.sendCnp(this.qp, fields);
  }

  requestAck(): void {
    this.qp.ackRequested = true;
  }
}
