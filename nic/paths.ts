/**
 * Per-QP path selection by entropy: which UDP source port (RoCEv2's entropy field; UET's EV maps
 * onto it) each data packet carries, so the switches' ECMP hash of (srcIp, dstIp, srcPort) sends
 * it down one of the fabric's paths. The policies are the UEC reference simulator's
 * (ultraethernet/uet-htsim, htsim/sim/uec_mp.cpp), read from its source, and REPS (Bonato et
 * al., "REPS: Recycled Entropy Packet Spraying for Adaptive Load Balancing and Failure
 * Mitigation", arXiv:2407.21625):
 *
 * - `ecmp`: one entropy per QP, the connection's own source port (RoCEv2 today).
 * - `oblivious`: round-robin over `count` entropies, the order XOR-permuted afresh every round.
 * - `bitmap`: oblivious, but an entropy carries a penalty (+1 ECN echo, +4 NACK, 15 on a
 *   timeout, at most 15); a penalised entropy is skipped, and the first skip of a pick costs it 1.
 * - `reps`: entropies whose ACKs came back unmarked go into an 8-entry circular buffer and are
 *   reused oldest first; with none fresh, a random one explores. A retransmission timeout freezes
 *   the buffer: only the known-good entropies in it are cycled through until the freeze ends
 *   (the reference's exit_freeze_after is 10 s, so in practice for the rest of the run).
 *
 * Entropy index i of `count` (a power of two) becomes the source port 0xC000 | upper | i, where
 * the upper bits are the connection's own port's (the reference draws them at random once: ours
 * are fixed by the QPNs, so both runtimes and every seed agree). State is plain numbers and
 * typed arrays; randomness comes from a per-QP fork of the node's generator, so a policy's draws
 * never shift any other consumer's stream.
 */
import type { Rng } from '../src/env/rng.js';

export type PathPolicy = 'ecmp' | 'oblivious' | 'bitmap' | 'reps';
export const PATH_POLICIES: readonly PathPolicy[] = ['ecmp', 'oblivious', 'bitmap', 'reps'];

export interface PathConfig {
  policy: PathPolicy;
  /** Entropies a QP sprays over: a power of two, 1..16384 (the reference's default: 64). */
  count: number;
}

export const DEFAULT_PATH_COUNT = 64;
export const MAX_PATH_COUNT = 1 << 14;

/** What the sender learned about the path an entropy took (the reference's PathFeedback). */
export const PathFeedback = { Good: 0, Ecn: 1, Nack: 2, Timeout: 3 } as const;
export type PathFeedback = (typeof PathFeedback)[keyof typeof PathFeedback];

const POLICY_ECMP = 0;
const POLICY_OBLIVIOUS = 1;
const POLICY_BITMAP = 2;
const POLICY_REPS = 3;

const BITMAP_MAX_PENALTY = 15;
const BITMAP_PENALTY_ECN = 1;
const BITMAP_PENALTY_NACK = 4;
const REPS_BUFFER = 8;
const REPS_EXPLORE_AFTER_FREEZE = 16;
const REPS_EXIT_FREEZE_AFTER_NS = 10e9;

/** A QP's entropy picker; `pick` returns the source port of the next data packet. */
export class PathSelector {
  private readonly policy: number;
  readonly count: number;
  private readonly mask: number;
  private readonly upper: number;
  private cur = 0;
  private xor = 0;
  /** bitmap: penalty per entropy index. */
  private readonly penalty: Uint8Array | null;
  /** reps: circular buffer of entropy indices and their freshness. */
  private readonly repsEv: Uint16Array | null;
  private readonly repsFresh: Uint8Array | null;
  private repsHead = 0;
  private repsCount = 0;
  private repsFreshCount = 0;
  private repsFrozenHead = 0;
  private repsFrozen = false;
  private repsExitFreezeNs = 0;
  private repsExplore = 0;
  /** Payload bytes sent per entropy index (results: per-path load). */
  readonly sentBytes: Float64Array;

  constructor(
    cfg: PathConfig,
    /** The connection's own source port (ecmp's one entropy). */
    readonly basePort: number,
    private readonly rng: Rng | null,
  ) {
    const ecmp = cfg.policy === 'ecmp';
    this.policy = PATH_POLICIES.indexOf(cfg.policy);
    if (this.policy < 0) throw new Error(`unknown path policy ${String(cfg.policy)}`);
    const count = ecmp ? 1 : cfg.count;
    if (!Number.isInteger(count) || count < 1 || count > MAX_PATH_COUNT || (count & (count - 1)) !== 0)
      throw new Error(`path count must be a power of two in 1..${MAX_PATH_COUNT}, got ${count}`);
    this.count = count;
    this.mask = count - 1;
    this.upper = 0xc000 | (basePort & 0x3fff & ~this.mask);
    this.sentBytes = new Float64Array(count);
    this.penalty = this.policy === POLICY_BITMAP ? new Uint8Array(count) : null;
    this.repsEv = this.policy === POLICY_REPS ? new Uint16Array(REPS_BUFFER) : null;
    this.repsFresh = this.policy === POLICY_REPS ? new Uint8Array(REPS_BUFFER) : null;
    if (this.policy === POLICY_OBLIVIOUS || this.policy === POLICY_BITMAP) this.xor = this.draw(count);
  }

  /** True when every packet takes the connection's own port (no spraying). */
  get fixed(): boolean {
    return this.policy === POLICY_ECMP;
  }

  /** Source port of entropy index `i`. */
  portOf(i: number): number {
    return this.policy === POLICY_ECMP ? this.basePort : this.upper | (i & this.mask);
  }

  /** Entropy index of source port `port`, or -1 when it is not one of this QP's. */
  indexOf(port: number): number {
    if (this.policy === POLICY_ECMP) return port === this.basePort ? 0 : -1;
    return (port & ~this.mask) === this.upper ? port & this.mask : -1;
  }

  /** Source port for the next data packet of `payloadBytes`, sent at `nowNs`. */
  pick(payloadBytes: number, nowNs: number): number {
    let i = 0;
    switch (this.policy) {
      case POLICY_OBLIVIOUS:
        i = this.nextRoundRobin();
        break;
      case POLICY_BITMAP:
        i = this.nextBitmap();
        break;
      case POLICY_REPS:
        i = this.nextReps(nowNs);
        break;
    }
    this.sentBytes[i] += payloadBytes;
    return this.portOf(i);
  }

  /** Feedback about the path entropy `port` took (an ACK, a NACK, a timeout). */
  feedback(port: number, what: PathFeedback, nowNs: number): void {
    if (this.policy === POLICY_BITMAP) {
      const i = this.indexOf(port);
      if (i < 0) return;
      const add =
        what === PathFeedback.Ecn
          ? BITMAP_PENALTY_ECN
          : what === PathFeedback.Nack
            ? BITMAP_PENALTY_NACK
            : what === PathFeedback.Timeout
              ? BITMAP_MAX_PENALTY
              : 0;
      const p = this.penalty!;
      p[i] = Math.min(BITMAP_MAX_PENALTY, p[i] + add);
    } else if (this.policy === POLICY_REPS) {
      this.repsFeedback(this.indexOf(port), what, nowNs);
    }
  }

  /** Variables for qpInspect: entropies in use and, for reps, whether frozen. */
  inspect(out: Record<string, number>): void {
    out.pathCount = this.count;
    if (this.policy === POLICY_REPS) {
      out.repsFrozen = this.repsFrozen ? 1 : 0;
      out.repsFresh = this.repsFreshCount;
    }
  }

  private draw(n: number): number {
    return this.rng === null ? 0 : this.rng.int(n);
  }

  /** The reference's oblivious order: index XOR a per-round random mask. */
  private nextRoundRobin(): number {
    const i = (this.cur ^ this.xor) & this.mask;
    this.advance();
    return i;
  }

  private advance(): void {
    this.cur++;
    if (this.cur === this.count) {
      this.cur = 0;
      this.xor = this.draw(this.count);
    }
  }

  private nextBitmap(): number {
    const p = this.penalty!;
    let i = (this.cur ^ this.xor) & this.mask;
    let first = true;
    for (let tried = 0; p[i] > 0 && tried <= this.count; tried++) {
      // The first penalised entropy met by a pick pays one point of its penalty.
      if (first) p[i]--;
      first = false;
      this.advance();
      i = (this.cur ^ this.xor) & this.mask;
    }
    this.advance();
    return i;
  }

  private nextReps(nowNs: number): number {
    if (this.repsFrozen && nowNs > this.repsExitFreezeNs) this.unfreeze();
    if (this.repsExplore > 0) {
      this.repsExplore--;
      return this.draw(this.count);
    }
    const ev = this.repsEv!;
    const fresh = this.repsFresh!;
    if (this.repsFrozen) {
      if (this.repsCount === 0) return this.draw(this.count);
      const h = this.repsFrozenHead;
      if (fresh[h] !== 0) {
        fresh[h] = 0;
        this.repsFreshCount--;
      }
      this.repsFrozenHead = (h + 1) % this.repsCount;
      return ev[h];
    }
    if (this.repsFreshCount === 0) return this.draw(this.count);
    // The earliest fresh entry: fresh entries are the newest repsFreshCount ones.
    const at = (this.repsHead - this.repsFreshCount + REPS_BUFFER) % REPS_BUFFER;
    fresh[at] = 0;
    this.repsFreshCount--;
    return ev[at];
  }

  private repsFeedback(i: number, what: PathFeedback, nowNs: number): void {
    if (what === PathFeedback.Timeout && !this.repsFrozen && this.repsExplore === 0) {
      this.repsFrozen = true;
      this.repsExitFreezeNs = nowNs + REPS_EXIT_FREEZE_AFTER_NS;
    }
    if (this.repsFrozen && nowNs > this.repsExitFreezeNs) this.unfreeze();
    if (what !== PathFeedback.Good || i < 0) return;
    const fresh = this.repsFresh!;
    const h = this.repsHead;
    if (fresh[h] === 0) this.repsFreshCount = Math.min(REPS_BUFFER, this.repsFreshCount + 1);
    this.repsEv![h] = i;
    fresh[h] = 1;
    this.repsHead = (h + 1) % REPS_BUFFER;
    if (this.repsCount < REPS_BUFFER) this.repsCount++;
  }

  private unfreeze(): void {
    this.repsFrozen = false;
    this.repsEv!.fill(0);
    this.repsFresh!.fill(0);
    this.repsHead = 0;
    this.repsCount = 0;
    this.repsFreshCount = 0;
    this.repsFrozenHead = 0;
    this.repsExplore = REPS_EXPLORE_AFTER_FREEZE;
  }
}
