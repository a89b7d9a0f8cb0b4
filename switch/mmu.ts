/**
 * The switch's shared-buffer MMU: per-ingress (port, priority) accounting in reserve, shared
 * pool and PFC headroom, static or dynamic XOFF thresholds, and the XOFF/XON/refresh decisions
 * of 802.1Qbb PFC. Semantics: docs/switch.md, "Shared-buffer MMU" and "PFC"; modelled on the
 * HPCC ns-3 simulator's switch MMU (headroom and reserve set aside per ingress port).
 *
 * State is flat typed arrays indexed by (ingress port · 8 + priority); the three numbers of one
 * (port, priority) that every admission and release reads (its bytes, headroom bytes and XOFF
 * flag) sit side by side in one array, one cache line instead of three on a large network where
 * a switch's state is cold between two of its frames. The MMU decides; the
 * switch sends: `signal(port, prio, quanta)` asks for a PFC frame on `port` (quanta 0 = XON).
 */
import type { FirmwareEnv, TimerId } from '../src/env/env.js';
import { pfcPauseQuanta, pfcRefreshNs } from '../src/port/pfc.js';
import { PFC_PRIORITIES } from '../src/wire/pfc.js';
import type { PfcConfig } from './api.js';

const PRIOS = PFC_PRIORITIES;
const NO_TIMER = -1;
/** Numbers per (port, priority) in `acct`: ING, HDRM, XOFF (1 while paused) and one unused. */
const ACCT = 4;
const ING = 0;
const HDRM = 1;
const XOFF = 2;

export interface MmuPort {
  rateBps: number;
  /** PFC headroom of this ingress port; default pfc.headroomBytes. */
  pfcHeadroomBytes?: number;
  /** Dynamic-threshold alpha of this ingress port; default pfc.dynamicAlpha. */
  pfcAlpha?: number;
}

export type PfcSignal = (port: number, prio: number, quanta: number) => void;

/** Bit q set for every priority PFC protects: the listed ones, or all eight when none is given. */
export function losslessMaskOf(priorities: readonly number[] | undefined): number {
  if (priorities === undefined) return 0xff;
  let mask = 0;
  for (const q of priorities) if (Number.isInteger(q) && q >= 0 && q < PRIOS) mask |= 1 << q;
  return mask;
}

export class SharedBufferMmu {
  /** Bytes in the physical buffer (data and control classes). */
  usedBytes = 0;
  /** Bytes charged to the shared pool (above the reserves, outside headroom). */
  sharedUsedBytes = 0;
  /** PFC protects some priority (headroom is then set aside). */
  readonly pfcOn: boolean;
  /** Bit q set: priority q is lossless (PFC on it); the others are lossy (docs/switch.md "Lossy priorities"). */
  readonly losslessMask: number;
  /** Pause time of our XOFF frames, quanta. */
  readonly pauseQuanta: number;
  readonly sharedPoolBytes: number;

  private readonly bufferBytes: number;
  private readonly dynamic: boolean;
  private readonly staticBytes: number;
  private readonly resumeOffsetBytes: number;
  private readonly reserveBytes: number;
  private readonly headroomOf: Float64Array;
  private readonly alphaOf: Float64Array;
  private readonly refreshNsOf: Float64Array;
  /** (port · 8 + priority) · ACCT + ING/HDRM/XOFF: bytes charged, headroom bytes, XOFF sent. */
  private readonly acct: Float64Array;
  private readonly refreshTimers: TimerId[];
  private readonly refreshFns: (() => void)[] = [];

  constructor(
    private readonly env: FirmwareEnv,
    bufferBytes: number,
    pfc: PfcConfig,
    ports: readonly MmuPort[],
    private readonly signal: PfcSignal,
  ) {
    const nPorts = ports.length;
    this.bufferBytes = bufferBytes;
    this.losslessMask = pfc.enabled ? losslessMaskOf(pfc.priorities) : 0;
    this.pfcOn = this.losslessMask !== 0;
    this.dynamic = pfc.dynamicAlpha !== null;
    this.staticBytes = pfc.thresholdBytes;
    this.resumeOffsetBytes = pfc.resumeOffsetBytes;
    this.reserveBytes = pfc.reserveBytes ?? 0;
    this.pauseQuanta = pfcPauseQuanta(pfc.pauseQuanta);
    // Headroom and reserve are set aside per ingress port (not per port and priority), as the
    // HPCC simulator counts them; headroom (HPCC: 3 × link BDP) and the dynamic alpha (HPCC:
    // 2^-shift, larger on faster ports) may differ by port.
    this.headroomOf = new Float64Array(nPorts);
    this.alphaOf = new Float64Array(nPorts);
    this.refreshNsOf = new Float64Array(nPorts);
    let totalHeadroomBytes = 0;
    ports.forEach((p, i) => {
      this.headroomOf[i] = this.pfcOn ? (p.pfcHeadroomBytes ?? pfc.headroomBytes) : 0;
      this.alphaOf[i] = p.pfcAlpha ?? pfc.dynamicAlpha ?? 0;
      this.refreshNsOf[i] = pfcRefreshNs(this.pauseQuanta, p.rateBps);
      totalHeadroomBytes += this.headroomOf[i];
    });
    this.sharedPoolBytes = Math.max(0, bufferBytes - totalHeadroomBytes - nPorts * this.reserveBytes);
    this.acct = new Float64Array(nPorts * PRIOS * ACCT);
    this.refreshTimers = new Array<TimerId>(nPorts * PRIOS).fill(NO_TIMER);
    for (let i = 0; i < nPorts * PRIOS; i++) {
      const p = Math.floor(i / PRIOS);
      const q = i % PRIOS;
      this.refreshFns.push(() => this.onRefresh(p, q));
    }
  }

  /** Port p's line rate changed: its refresh period follows (pause quanta are bit times). */
  setPortRate(p: number, rateBps: number): void {
    this.refreshNsOf[p] = pfcRefreshNs(this.pauseQuanta, rateBps);
  }

  /** Control-class frames occupy the physical buffer only (queue 0 of the HPCC simulator). */
  chargeControl(s: number): boolean {
    if (this.usedBytes + s > this.bufferBytes) return false;
    this.usedBytes += s;
    return true;
  }

  releaseControl(s: number): void {
    this.usedBytes -= s;
  }

  /** Priority q is lossless: frames beyond the XOFF threshold go to headroom and pause the peer. */
  lossless(q: number): boolean {
    return ((this.losslessMask >>> q) & 1) === 1;
  }

  /** XOFF threshold on the shared bytes (above the reserve) of ingress port p, any lossless priority. */
  xoffThreshold(p: number): number {
    if (!this.pfcOn) return Number.POSITIVE_INFINITY;
    if (!this.dynamic) return this.staticBytes;
    const free = this.sharedPoolBytes - this.sharedUsedBytes;
    return free > 0 ? this.alphaOf[p] * free : 0;
  }

  /** Bytes ingress (p, q) holds, headroom included. */
  ingressBytes(p: number, q: number): number {
    const i = p * PRIOS + q;
    return this.acct[i * ACCT + ING] + this.acct[i * ACCT + HDRM];
  }

  /** Ingress (p, q) has asked its peer to pause. */
  inXoff(p: number, q: number): boolean {
    return this.acct[(p * PRIOS + q) * ACCT + XOFF] === 1;
  }

  /**
   * Charge s bytes to ingress (p, q): reserve, then shared up to the threshold, then headroom. A
   * lossy priority has neither threshold nor headroom: it is admitted while the shared pool has
   * room (as every priority is with PFC off) and never pauses its peer.
   */
  admit(p: number, q: number, s: number): boolean {
    if (this.usedBytes + s > this.bufferBytes) return false;
    const lossless = ((this.losslessMask >>> q) & 1) === 1;
    const i = p * PRIOS + q;
    const reserve = this.reserveBytes;
    const before = this.acct[i * ACCT + ING];
    const sharedBefore = before > reserve ? before - reserve : 0;
    const sharedAfter = before + s > reserve ? before + s - reserve : 0;
    const toShared = sharedAfter - sharedBefore;
    if (
      toShared === 0 ||
      ((!lossless || sharedAfter <= this.xoffThreshold(p)) &&
        this.sharedUsedBytes + toShared <= this.sharedPoolBytes)
    ) {
      this.acct[i * ACCT + ING] = before + s;
      this.sharedUsedBytes += toShared;
    } else if (lossless && this.acct[i * ACCT + HDRM] + s <= this.headroomOf[p]) {
      this.acct[i * ACCT + HDRM] += s;
    } else {
      return false;
    }
    this.usedBytes += s;
    if (
      lossless &&
      this.acct[i * ACCT + XOFF] === 0 &&
      (this.acct[i * ACCT + HDRM] > 0 || this.sharedOf(i) >= this.xoffThreshold(p))
    )
      this.setXoff(p, q);
    return true;
  }

  /** Release s bytes of ingress (p, q) at dequeue: headroom first, then shared/reserve. */
  release(p: number, q: number, s: number): void {
    const i = p * PRIOS + q;
    let rest = s;
    const h = this.acct[i * ACCT + HDRM];
    if (h > 0) {
      const take = Math.min(h, rest);
      this.acct[i * ACCT + HDRM] = h - take;
      rest -= take;
    }
    if (rest > 0) {
      const reserve = this.reserveBytes;
      const before = this.acct[i * ACCT + ING];
      const after = before - rest;
      this.acct[i * ACCT + ING] = after;
      this.sharedUsedBytes -=
        (before > reserve ? before - reserve : 0) - (after > reserve ? after - reserve : 0);
    }
    this.usedBytes -= s;
    if (this.acct[i * ACCT + XOFF] === 1 && this.xonReady(p, i)) this.setXon(p, q);
  }

  private sharedOf(i: number): number {
    const b = this.acct[i * ACCT + ING];
    return b > this.reserveBytes ? b - this.reserveBytes : 0;
  }

  private xonReady(p: number, i: number): boolean {
    if (this.acct[i * ACCT + HDRM] > 0) return false;
    const shared = this.sharedOf(i);
    return shared === 0 || shared + this.resumeOffsetBytes <= this.xoffThreshold(p);
  }

  private setXoff(p: number, q: number): void {
    const i = p * PRIOS + q;
    this.acct[i * ACCT + XOFF] = 1;
    this.refreshTimers[i] = this.env.setTimer(this.env.now() + this.refreshNsOf[p], this.refreshFns[i]);
    this.signal(p, q, this.pauseQuanta);
  }

  private setXon(p: number, q: number): void {
    const i = p * PRIOS + q;
    this.acct[i * ACCT + XOFF] = 0;
    if (this.refreshTimers[i] !== NO_TIMER) {
      this.env.cancelTimer(this.refreshTimers[i]);
      this.refreshTimers[i] = NO_TIMER;
    }
    this.signal(p, q, 0);
  }

  /** Our XOFF is about to expire upstream: resume if we may, otherwise pause again. */
  private onRefresh(p: number, q: number): void {
    const i = p * PRIOS + q;
    this.refreshTimers[i] = NO_TIMER;
    if (this.acct[i * ACCT + XOFF] === 0) return;
    if (this.xonReady(p, i)) {
      this.setXon(p, q);
      return;
    }
    this.refreshTimers[i] = this.env.setTimer(this.env.now() + this.refreshNsOf[p], this.refreshFns[i]);
    this.signal(p, q, this.pauseQuanta);
  }
}
