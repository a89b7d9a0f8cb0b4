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
 * - `reps`: entropies whose ACKs came back unmarked are reused from REPS's 8-entry buffer; with
 *   none fresh, a random one explores; a timeout freezes the buffer (nic/paths-reps.ts).
 * - `mixed` (the reference's default): every entropy acknowledged unmarked is reused, in order,
 *   before the bitmap picks one.
 *
 * Entropy index i of `count` (a power of two) becomes the source port 0xC000 | upper | i. The
 * upper bits are drawn once per QP, as the reference draws its `_path_random`: which paths a QP's
 * entropies hash to, and how evenly, is a property of that draw (64 entropies hashed onto the 4
 * paths of a k = 4 fat tree are rarely 16 each, and the busiest path sets oblivious spraying's
 * tail), so each seed samples another placement instead of every seed repeating one fixed by the
 * QPNs. State is plain numbers and typed arrays; randomness comes from a per-QP fork of the
 * node's generator, so a policy's draws never shift any other consumer's stream and every
 * runtime draws the same.
 */
import type { Rng } from '../src/env/rng.js';
import { RecycleQueue, RepsBuffer } from './paths-reps.js';

export type PathPolicy = 'ecmp' | 'oblivious' | 'bitmap' | 'reps' | 'mixed';
export const PATH_POLICIES: readonly PathPolicy[] = ['ecmp', 'oblivious', 'bitmap', 'reps', 'mixed'];

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
const POLICY_MIXED = 4;

const BITMAP_MAX_PENALTY = 15;
const BITMAP_PENALTY_ECN = 1;
const BITMAP_PENALTY_NACK = 4;

/** A QP's entropy picker; `pick` returns the source port of the next data packet. */
export class PathSelector {
  private readonly policy: number;
  readonly count: number;
  private readonly mask: number;
  private readonly upper: number;
  private cur = 0;
  private xor = 0;
  /** bitmap and mixed: penalty per entropy index. */
  private readonly penalty: Uint8Array | null;
  private readonly reps: RepsBuffer | null;
  /** mixed: every entropy acknowledged unmarked, to reuse in order. */
  private readonly recycle: RecycleQueue | null;
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
    this.upper = ecmp ? basePort : 0xc000 | (this.draw(0x4000) & ~this.mask);
    this.sentBytes = new Float64Array(count);
    const bitmap = this.policy === POLICY_BITMAP || this.policy === POLICY_MIXED;
    this.penalty = bitmap ? new Uint8Array(count) : null;
    this.reps = this.policy === POLICY_REPS ? new RepsBuffer() : null;
    this.recycle = this.policy === POLICY_MIXED ? new RecycleQueue() : null;
    if (this.policy === POLICY_OBLIVIOUS || bitmap) this.xor = this.draw(count);
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
      case POLICY_MIXED:
        i = this.recycle!.shift();
        if (i < 0) i = this.nextBitmap();
        break;
    }
    this.sentBytes[i] += payloadBytes;
    return this.portOf(i);
  }

  /** Feedback about the path entropy `port` took (an ACK, a NACK, a timeout). */
  feedback(port: number, what: PathFeedback, nowNs: number): void {
    const i = this.indexOf(port);
    if (this.penalty !== null && i >= 0) {
      const add =
        what === PathFeedback.Ecn
          ? BITMAP_PENALTY_ECN
          : what === PathFeedback.Nack
            ? BITMAP_PENALTY_NACK
            : what === PathFeedback.Timeout
              ? BITMAP_MAX_PENALTY
              : 0;
      const p = this.penalty;
      p[i] = Math.min(BITMAP_MAX_PENALTY, p[i] + add);
    }
    if (this.recycle !== null && what === PathFeedback.Good && i >= 0) this.recycle.push(i);
    const reps = this.reps;
    if (reps !== null) {
      if (what === PathFeedback.Timeout) reps.timeout(nowNs);
      else if (what === PathFeedback.Good && i >= 0) reps.good(i, nowNs);
      else reps.checkFreeze(nowNs);
    }
  }

  /** Variables for qpInspect: entropies in use and, for reps, whether frozen. */
  inspect(out: Record<string, number>): void {
    out.pathCount = this.count;
    this.reps?.inspect(out);
    if (this.recycle !== null) out.recycled = this.recycle.size;
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
    const reps = this.reps!;
    // A freeze that expired starts its exploration with this very pick.
    reps.checkFreeze(nowNs);
    if (reps.takeExplore()) return this.draw(this.count);
    const i = reps.next(nowNs);
    return i >= 0 ? i : this.draw(this.count);
  }
}
