/**
 * The NIC's congestion-control host: binds each QP to its algorithm's RP and NP hooks (docs/cc-api.md
 * roles: RP = sender, NP = receiver), builds the RpIo / NpIo (cc-io.ts) / NpNicIo every hook talks through,
 * owns the hooks' timers and counters, and calls the hooks for the NIC. The NIC's transport
 * (nic.ts) reports what happened (a packet left, an ACK came) and enforces what the algorithm
 * asks for through the `CcHostPort` it hands in (rate, window, CNP); it never calls a hook itself.
 *
 * Per-QP hook state lives on the Qp object (nic/qp.ts) so V8 keeps one hidden class per QP;
 * only this file reads or writes it.
 */
import { ecnCnpNp } from '../src/cc/np-ecn.js';
import { resolveAlgorithmParams } from '../src/cc/resolve.js';
import type { FlowInfo, NpNicIo, RpEvent, RpFeatures } from '../src/cc/types.js';
import type { FirmwareEnv, TimerId } from '../src/env/env.js';
import type { CnpPayload } from '../src/wire/cnp.js';
import type { Packet } from '../src/wire/packet.js';
import type { CcSpec } from './api.js';
import { QpNpIo, QpRpIo } from './cc-io.js';
import type { CcBinding, NpNicBinding, Qp } from './qp.js';

const DEFAULT_CNP_INTERVAL_NS = 50_000;

/** What the host needs from the NIC: the transport's side of every io call. */
export interface CcHostPort {
  /** Clamp and apply a pacing rate (RpIo.setRate). */
  setRate(qp: Qp, rateBps: number, why: string): void;
  /** Apply a window of unacknowledged bytes, or none (RpIo.setWindow). */
  setWindow(qp: Qp, bytes: number | null, why: string): void;
  /** Queue a CNP to the sender of `qp`. */
  sendCnp(qp: Qp, fields: CnpPayload | undefined): void;
  /** True while the data priority is PFC-paused at this NIC. */
  dataPaused(): boolean;
  /** Payload bytes of `qp` sent and not yet acknowledged (the transport's count). */
  inflightBytes(qp: Qp): number;
  /** The local QP `qpn`, if it exists (NIC-wide NP hooks address QPs by number). */
  qp(qpn: number): Qp | undefined;
  /** Let the transport send what a timer hook may have unblocked. */
  kick(): void;
}

export class CcHost {
  private readonly bindings = new Map<CcSpec, CcBinding>();
  private readonly npNics = new Map<string, NpNicBinding>();
  private readonly ccCount = new Map<string, number>();
  // biome-ignore lint/suspicious/noExplicitAny: the default NP ignores parameters
  private readonly defaultNp: ReturnType<typeof ecnCnpNp<any>>;

  constructor(
    private readonly env: FirmwareEnv,
    private readonly port: CcHostPort,
    /** Minimum interval between two CNPs of a QP for the default NP (docs/cc-api.md). */
    cnpMinIntervalNs: number | undefined,
  ) {
    const intervalNs = cnpMinIntervalNs ?? DEFAULT_CNP_INTERVAL_NS;
    this.defaultNp = ecnCnpNp(() => ({ intervalNs, mode: 'immediate', enabled: true }));
  }

  /**
   * The resolved hooks and parameters of `spec`, created once per spec object. NIC-wide NP state
   * (NpAlgorithm.initNic) is created here, so this runs before the QP exists.
   */
  binding(spec: CcSpec): CcBinding {
    const cached = this.bindings.get(spec);
    if (cached !== undefined) return cached;
    const alg = spec.algorithm;
    const params = resolveAlgorithmParams(alg, spec.params, spec.profile);
    const features = typeof alg.rp.features === 'function' ? alg.rp.features(params) : alg.rp.features;
    const np = alg.np ?? this.defaultNp;
    // QPs with equal parameters share NIC-wide NP state even if their specs are distinct objects.
    const key = `${alg.name}|${alg.np === undefined ? 'default' : 'own'}|${JSON.stringify(params)}`;
    let npNic = this.npNics.get(key);
    if (npNic === undefined) {
      const timers = new Map<number, TimerId>();
      const binding: NpNicBinding = { np, params, state: null, io: null as unknown as NpNicIo, timers };
      binding.io = this.makeNpNicIo(binding);
      binding.state = np.initNic(params, binding.io);
      npNic = binding;
      this.npNics.set(key, npNic);
    }
    const b: CcBinding = { name: alg.name, params, rp: alg.rp, features, npNic };
    this.bindings.set(spec, b);
    return b;
  }

  /** Bind `qp` (already registered with the NIC) to `cc` and run the RP's and NP's init hooks. */
  attach(qp: Qp, cc: CcBinding, flow: FlowInfo): void {
    qp.cc = cc;
    qp.rpIo = new QpRpIo(this, this.env, this.port, qp);
    qp.npIo = new QpNpIo(this, this.env, this.port, qp);
    qp.rpState = cc.rp.init(flow, cc.params, qp.rpIo);
    qp.npState = cc.npNic.np.initQp(flow, cc.params, cc.npNic.state);
  }

  features(qp: Qp): RpFeatures {
    return qp.cc.features;
  }

  /** An RP event of `qp` (the event object is only valid during the call: docs/cc-api.md). */
  rpEvent(qp: Qp, ev: RpEvent): void {
    qp.cc.rp.onEvent(qp.rpState, ev, qp.cc.params, qp.rpIo);
  }

  /** Let the RP fill algorithm fields of an outgoing data packet. */
  decorateData(qp: Qp, pkt: Packet): void {
    qp.cc.rp.decorateData?.(qp.rpState, pkt, qp.cc.params, qp.rpIo);
  }

  /** A data packet arrived on `qp` (before the transport acts on it). */
  npData(qp: Qp, pkt: Packet): void {
    const b = qp.cc.npNic;
    b.np.onData(qp.npState, b.state, pkt, b.params, qp.npIo);
  }

  /** Let the NP fill extension fields of an ACK/NAK of `qp` about to be queued. */
  decorateAck(qp: Qp, ack: Packet): void {
    const b = qp.cc.npNic;
    b.np.decorateAck?.(qp.npState, b.state, ack, b.params, qp.npIo);
  }

  /** The RP's then the NP's state variables of `qp`, or undefined when neither has any. */
  inspect(qp: Qp, nowNs: number): Record<string, number> | undefined {
    const extra = qp.cc.rp.inspect?.(qp.rpState, qp.cc.params, nowNs);
    const b = qp.cc.npNic;
    const np = b.np.inspect?.(qp.npState, b.state, b.params, nowNs);
    return extra === undefined && np === undefined ? undefined : { ...extra, ...np };
  }

  /** Algorithm counters bumped through io.count, summed over the NIC. */
  counters(): Record<string, number> {
    return Object.fromEntries(this.ccCount);
  }

  private makeNpNicIo(b: NpNicBinding): NpNicIo {
    const env = this.env;
    const port = this.port;
    return {
      now: () => env.now(),
      rng: env.rng,
      sendCnp: (qpn, fields) => {
        const qp = port.qp(qpn);
        if (qp !== undefined) port.sendCnp(qp, fields);
      },
      setTimer: (slot, atNs) => {
        const old = b.timers.get(slot);
        if (old !== undefined) env.cancelTimer(old);
        b.timers.set(
          slot,
          env.setTimer(atNs, () => {
            b.timers.delete(slot);
            b.np.onNicTimer?.(b.state, slot, b.params, b.io);
            port.kick();
          }),
        );
      },
      cancelTimer: (slot) => {
        const old = b.timers.get(slot);
        if (old !== undefined) env.cancelTimer(old);
        b.timers.delete(slot);
      },
      count: (name, delta = 1) => this.bump(name, delta),
    };
  }

  /** Bump an algorithm counter (the ios' `count`). */
  bump(name: string, delta: number): void {
    this.ccCount.set(name, (this.ccCount.get(name) ?? 0) + delta);
  }
}
