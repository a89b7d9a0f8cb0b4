/**
 * RCCC's optional receiver rate control for oversubscribed fabrics (uet-htsim OversubscribedCC,
 * oversubscribed_cc.cpp): credit paced at the line rate still overflows a fabric core that is
 * slower than the sum of the hosts, so every ~1.5 base RTTs the receiver scales its pull rate by
 * what it saw: g ← (1 − gain)·g + gain·(ECN-marked ÷ full packets); above the target fraction
 * rate ·= 1 − md·(g − target); trims at hops other than the last take their share off the rate;
 * otherwise +ai, doubling while no ECN at all is seen. Bounded to [0.9 / ratio, 1]. The interval
 * is drawn in [0.75, 1.25] × 1.5 base RTT so receivers do not synchronise. Sans-IO.
 */
import type { Rng } from '../../src/env/rng.js';

export interface OversubscriptionIo {
  now(): number;
  rng: Rng;
  setTimer(atNs: number): void;
  /** The new relative pull rate (0 < r ≤ 1). */
  setRate(relativeRate: number): void;
}

export interface OversubscriptionConfig {
  baseRttNs: number;
  minRate: number;
  targetCongestion: number;
  rateAi: number;
  rateMd: number;
  gain: number;
}

export class OversubscriptionControl {
  rate = 1;
  /** EWMA of the fraction of ECN-marked packets. */
  g = 0;
  private increases = 0;
  private received = 0;
  private ecn = 0;
  private trimmedLastHop = 0;
  private trimmedOther = 0;

  constructor(
    private readonly cfg: OversubscriptionConfig,
    private readonly io: OversubscriptionIo,
  ) {}

  start(): void {
    this.io.setTimer(this.io.now() + this.nextIntervalNs());
  }

  /** Every packet that reached the receiver (data, trimmed header or request-to-send). */
  onPacket(): void {
    this.received++;
  }

  onEcn(): void {
    this.ecn++;
  }

  onTrimmed(lastHop: boolean): void {
    if (lastHop) this.trimmedLastHop++;
    else this.trimmedOther++;
  }

  onTimer(): void {
    this.update();
    this.io.setTimer(this.io.now() + this.nextIntervalNs());
  }

  private nextIntervalNs(): number {
    return (0.75 + this.io.rng.next() / 2) * 1.5 * this.cfg.baseRttNs;
  }

  /** doCongestionControl over the packets of the interval that just ended. */
  private update(): void {
    const c = this.cfg;
    const total = this.received;
    const full = total - this.trimmedLastHop - this.trimmedOther;
    const fraction = full > 0 ? this.ecn / full : 0;
    let decrease = false;
    if (this.trimmedOther > 0) {
      this.rate -= this.trimmedOther / total;
      decrease = true;
    }
    this.g = this.g * (1 - c.gain) + c.gain * fraction;
    if (this.g > c.targetCongestion && c.rateMd > 0) {
      this.rate *= 1 - (this.g - c.targetCongestion) * c.rateMd;
      decrease = true;
    }
    if (!decrease) {
      this.rate += this.ecn === 0 ? c.rateAi * 2 ** this.increases : c.rateAi;
      this.increases++;
    } else {
      this.increases = 0;
    }
    this.rate = Math.min(1, Math.max(c.minRate, this.rate));
    this.received = 0;
    this.ecn = 0;
    this.trimmedLastHop = 0;
    this.trimmedOther = 0;
    this.io.setRate(this.rate);
  }
}
