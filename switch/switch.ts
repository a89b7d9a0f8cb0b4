/**
 * Sans-IO switch firmware: an output-queued L3 switch with a shared-buffer MMU, eight priority
 * queues per egress port, RED/ECN, 802.1Qbb PFC, INT stamping and CP plug-ins.
 * Modelled on the HPCC ns-3 simulator's switch (papers/baselines.md §1.5) with the additions
 * of srcc.md §4 and mpcc.md §4. Semantics and parameters: docs/switch.md.
 *
 * Hot-path rules: per-port state lives in a class with typed arrays, queues are rings,
 * the MMU is flat typed arrays indexed by (port · 8 + prio), timer callbacks are created
 * once per port. A forwarded packet allocates nothing except its INT hop record.
 */
import type { FirmwareEnv, TimerId } from '../src/env/env.js';
import { quantizeHpccHop } from '../src/wire/int-hpcc.js';
import { quantizeMpccHop } from '../src/wire/int-mpcc.js';
import { isMessageEnd } from '../src/wire/opcodes.js';
import { Ecn, FrameKind, type IntHop, type Packet } from '../src/wire/packet.js';
import { createPacket } from '../src/wire/packet-factory.js';
import { PFC_DST_MAC, PFC_MAX_QUANTA, PFC_PRIORITIES, pfcQuantaToNs, pfcQuantumNs } from '../src/wire/pfc.js';
import { emulatedSizeBytes } from '../src/wire/size.js';
import type { EcnConfig, PortCounters, Switch, SwitchConfig, SwitchCounters } from './api.js';
import type { SwitchCp, SwitchCpIo } from './cp.js';
import { ecmpHash } from './ecmp.js';
import { ActiveFlowCounter } from './flow-counter.js';
import { PacketRing } from './ring.js';
import { RouteLookup } from './route-lookup.js';

const PRIOS = PFC_PRIORITIES;
const INT_MAX_HOPS = 5;
const NO_TIMER = -1;
/** Absorbs float rounding when a fractional serialisation end is turned into a timer time. */
const TIME_EPS_NS = 1e-6;
const DEFAULT_CONTROL_KINDS: readonly FrameKind[] = [FrameKind.Cnp, FrameKind.Cnm];
const DEFAULT_DRR_QUANTUM_BYTES = 1500;
const DEFAULT_ACTIVE_FLOW_WINDOW_NS = 100_000;
/** Frames larger than this are malformed (a jumbo frame with every extension is far below). */
const MAX_FRAME_BYTES = 65_536;

function noop(): void {}

/** Index of the lowest set bit of a non-zero 32-bit value. */
function lowestBit(x: number): number {
  return 31 - Math.clz32(x & -x);
}

class Port {
  readonly queues: PacketRing[] = [];
  readonly queueBytesOf = new Float64Array(PRIOS);
  queueBytes = 0;
  /** Bit q set when queue q holds a frame. */
  nonEmptyMask = 0;

  /** True from the moment a frame is chosen until its last bit is on the wire. */
  busy = false;
  inFlight: Packet | null = null;
  /** Exact (fractional) end of the current serialisation, ns. */
  txEndExactNs = 0;
  /**
   * First arrival at this busy port after the current frame's exact end, and whether other work
   * was already waiting then. Only a late end-of-frame timer (real time) leaves a gap between the
   * two; virtual time never reads them.
   */
  lateArrivalNs = Number.POSITIVE_INFINITY;
  backlogAtLateArrival = false;
  /** Serialisation time of a frame of serSizeBytes (startNext's cache). */
  serSizeBytes = -1;
  serNs = 0;
  onTxDone: () => void = noop;

  /** PFC classes (bits) whose XOFF/XON must go out ahead of every queue, with their quanta. */
  pfcPendingMask = 0;
  readonly pfcPendingQuanta = [0, 0, 0, 0, 0, 0, 0, 0];
  /** Refresh period of our own XOFF frames sent out of this port: half their pause time. */
  readonly pfcRefreshNs: number;

  /** Priorities paused by PFC frames received on this port. */
  pausedMask = 0;
  readonly pauseStartNs = new Float64Array(PRIOS);
  readonly pauseTimers: TimerId[] = [
    NO_TIMER,
    NO_TIMER,
    NO_TIMER,
    NO_TIMER,
    NO_TIMER,
    NO_TIMER,
    NO_TIMER,
    NO_TIMER,
  ];
  readonly pauseExpiry: (() => void)[] = [];
  pausedNsDone = 0;

  drrQueue = 0;
  readonly deficitBytes = new Float64Array(PRIOS);

  readonly ecnOn: boolean;
  readonly kminBytes: number;
  readonly kmaxBytes: number;
  readonly pmax: number;

  txBytes = 0;
  txPackets = 0;
  maxQueueBytes = 0;
  queueByteNs = 0;
  queueSinceNs = 0;
  ecnMarked = 0;
  pfcPauseTx = 0;
  pfcResumeTx = 0;
  pfcPauseRx = 0;
  pfcResumeRx = 0;
  drops = 0;
  ingressDrops = 0;
  cnmTx = 0;
  rxPackets = 0;
  rxBytes = 0;

  constructor(
    readonly index: number,
    readonly rateBps: number,
    readonly mac: number,
    readonly peerMac: number,
    ecn: EcnConfig,
    readonly flows: ActiveFlowCounter | null,
    pauseQuanta: number,
  ) {
    for (let q = 0; q < PRIOS; q++) this.queues.push(new PacketRing());
    this.ecnOn = ecn.enabled !== false;
    this.kminBytes = ecn.kminBytes;
    this.kmaxBytes = ecn.kmaxBytes;
    this.pmax = ecn.pmax;
    this.pfcRefreshNs = Math.max(1, Math.floor((pauseQuanta * pfcQuantumNs(rateBps)) / 2));
  }
}

/** `x` when it is a finite number >= 1 (a DRR quantum of NaN would never end a round), else `fallback`. */
function positiveOr(x: number | undefined, fallback: number): number {
  return x !== undefined && Number.isFinite(x) && x >= 1 ? x : fallback;
}

function isUint(x: unknown, max: number): boolean {
  return typeof x === 'number' && x >>> 0 === x && x <= max;
}

export function createSwitch(env: FirmwareEnv, config: SwitchConfig): Switch {
  const nPorts = config.ports.length;
  if (nPorts === 0) throw new RangeError(`switch ${config.name}: no ports`);
  const controlPrio = config.controlPrio;
  if (!isUint(controlPrio, PRIOS - 1))
    throw new RangeError(`switch ${config.name}: controlPrio must be 0..7`);
  for (const p of config.ports) {
    if (!(p.rateBps > 0)) throw new RangeError(`switch ${config.name}: port rate must be > 0`);
  }

  // Read once, into a table faster than the Map (route-lookup.ts); docs/switch.md says so.
  const routes = new RouteLookup(config.routes);
  const ecmpSeed = config.ecmpSeed | 0;
  const bufferBytes = config.bufferBytes;
  const pfc = config.pfc;
  const pfcOn = pfc.enabled;
  const pfcDynamic = pfc.dynamicAlpha !== null;
  const pfcStaticBytes = pfc.thresholdBytes;
  const resumeOffsetBytes = pfc.resumeOffsetBytes;
  const reserveBytes = pfc.reserveBytes ?? 0;
  const pauseQuanta = Math.min(PFC_MAX_QUANTA, Math.max(1, Math.round(pfc.pauseQuanta ?? PFC_MAX_QUANTA)));
  // Headroom and reserve are set aside per ingress port (not per port and priority), as the
  // HPCC simulator counts them; headroom (HPCC: 3 × link BDP) and the dynamic alpha (HPCC:
  // 2^-shift, larger on faster ports) may differ by port.
  const headroomOf = new Float64Array(nPorts);
  const alphaOf = new Float64Array(nPorts);
  let totalHeadroomBytes = 0;
  config.ports.forEach((p, i) => {
    headroomOf[i] = pfcOn ? (p.pfcHeadroomBytes ?? pfc.headroomBytes) : 0;
    alphaOf[i] = p.pfcAlpha ?? pfc.dynamicAlpha ?? 0;
    totalHeadroomBytes += headroomOf[i];
  });
  const sharedPoolBytes = Math.max(0, bufferBytes - totalHeadroomBytes - nPorts * reserveBytes);
  const ecnAtEnqueue = config.ecn.markAt === 'enqueue';
  const drrQuantumBytes = positiveOr(config.drrQuantumBytes, DEFAULT_DRR_QUANTUM_BYTES);
  const flowWindowNs = config.activeFlowWindowNs ?? DEFAULT_ACTIVE_FLOW_WINDOW_NS;
  const flowMinBytes = Math.max(0, config.activeFlowMinBytes ?? 0);
  const flowForgetAtEnd = config.activeFlowForgetAtEnd === true;
  const intOn = config.int !== false;
  let controlKindMask = 0;
  for (const k of config.controlKinds ?? DEFAULT_CONTROL_KINDS) controlKindMask |= 1 << k;
  const dataQueueMask = 0xff & ~(1 << controlPrio);

  const ports: Port[] = config.ports.map(
    (p, i) =>
      new Port(
        i,
        p.rateBps,
        p.mac,
        p.peerMac,
        p.ecn ?? config.ecn,
        flowWindowNs > 0 ? new ActiveFlowCounter(flowWindowNs, flowMinBytes) : null,
        pauseQuanta,
      ),
  );

  // MMU state, indexed by ingress port · 8 + priority.
  const ingBytes = new Float64Array(nPorts * PRIOS);
  const hdrmBytes = new Float64Array(nPorts * PRIOS);
  const xoff = new Uint8Array(nPorts * PRIOS);
  const refreshTimers: TimerId[] = new Array<TimerId>(nPorts * PRIOS).fill(NO_TIMER);
  const refreshFns: (() => void)[] = [];
  let usedBytes = 0;
  let sharedUsedBytes = 0;

  const counters = { malformed: 0, unroutable: 0, ttlExpired: 0, bufferDrops: 0, losslessDrops: 0 };
  const cpCounters: Record<string, number> = {};

  for (const port of ports) {
    port.onTxDone = () => txDone(port);
    for (let n = 0; n < PRIOS; n++) {
      port.pauseExpiry.push(() => {
        port.pauseTimers[n] = NO_TIMER;
        unpause(port, n, env.now());
        kick(port);
      });
    }
  }
  for (let i = 0; i < nPorts * PRIOS; i++) {
    const p = Math.floor(i / PRIOS);
    const q = i % PRIOS;
    refreshFns.push(() => onRefresh(p, q));
  }

  // ---------------------------------------------------------------- validation and routing

  function isWellFormed(pkt: Packet): boolean {
    if (typeof pkt !== 'object' || pkt === null) return false;
    const size = pkt.sizeBytes;
    if (typeof size !== 'number' || !(size > 0 && size <= MAX_FRAME_BYTES)) return false;
    if (!isUint(pkt.prio, PRIOS - 1)) return false;
    switch (pkt.kind) {
      case FrameKind.Data:
      case FrameKind.Ack:
      case FrameKind.Nak:
      case FrameKind.Cnp: {
        if (!isUint(pkt.ttl, 255) || typeof pkt.dstIp !== 'number' || typeof pkt.srcIp !== 'number')
          return false;
        if (typeof pkt.srcPort !== 'number') return false;
        const st = pkt.int;
        if (st === null) return true;
        return (
          typeof st === 'object' &&
          (st.layout === 'hpcc' || st.layout === 'mpcc') &&
          Array.isArray(st.hops) &&
          st.hops.length <= INT_MAX_HOPS &&
          isUint(st.nhop, 0xffff)
        );
      }
      case FrameKind.Cnm:
        return typeof pkt.cnm === 'object' && pkt.cnm !== null && typeof pkt.dstIp === 'number';
      case FrameKind.Pfc: {
        const body = pkt.pfc;
        if (typeof body !== 'object' || body === null || !isUint(body.classEnable, 0xffff)) return false;
        const quanta = body.quanta;
        if (!Array.isArray(quanta) || quanta.length < PRIOS) return false;
        for (let n = 0; n < PRIOS; n++) {
          if ((body.classEnable >>> n) & 1 && !isUint(quanta[n], PFC_MAX_QUANTA)) return false;
        }
        return true;
      }
      default:
        return false;
    }
  }

  function route(pkt: Packet): number {
    const r = routes.find(pkt.dstIp);
    if (r < 0) return -1;
    const n = routes.portCount(r);
    if (n === 0) return -1;
    const e =
      n === 1 ? routes.port(r, 0) : routes.port(r, ecmpHash(ecmpSeed, pkt.srcIp, pkt.dstIp, pkt.srcPort) % n);
    return isUint(e, nPorts - 1) ? e : -1;
  }

  // ---------------------------------------------------------------- ingress pipeline

  function receive(inPort: number, pkt: Packet): void {
    if (!isUint(inPort, nPorts - 1)) {
      counters.malformed++;
      return;
    }
    const ip = ports[inPort];
    if (!isWellFormed(pkt)) {
      counters.malformed++;
      ip.ingressDrops++;
      return;
    }
    ip.rxPackets++;
    ip.rxBytes += pkt.sizeBytes;
    if (pkt.kind === FrameKind.Pfc) {
      onPfcFrame(ip, pkt);
      return;
    }
    const outPort = route(pkt);
    for (let i = 0; i < ingressCps.length; i++) {
      if (ingressCps[i].onIngress!(pkt, inPort, outPort) === true) return;
    }
    if (outPort < 0) {
      counters.unroutable++;
      ip.ingressDrops++;
      return;
    }
    if (pkt.kind !== FrameKind.Cnm) {
      if (pkt.ttl <= 1) {
        counters.ttlExpired++;
        ip.ingressDrops++;
        return;
      }
      pkt.ttl -= 1;
    }
    const op = ports[outPort];
    pkt.srcMac = op.mac;
    pkt.dstMac = op.peerMac;
    const q = (controlKindMask >>> pkt.kind) & 1 ? controlPrio : pkt.prio;
    enqueue(op, q, pkt, inPort);
  }

  /** Admit `pkt` to queue q of `op` (MMU for data classes) and start the port if idle. */
  function enqueue(op: Port, q: number, pkt: Packet, inPort: number): boolean {
    const s = pkt.sizeBytes;
    if (q === controlPrio || inPort < 0) {
      // Control frames bypass MMU admission and PFC accounting (queue 0 of the HPCC simulator);
      // only the physical buffer bounds them.
      if (usedBytes + s > bufferBytes) {
        dropOnAdmission(op, inPort, false);
        return false;
      }
      usedBytes += s;
    } else if (!admit(inPort, q, s)) {
      dropOnAdmission(op, inPort, pfcOn);
      return false;
    }
    const now = env.now();
    if (pkt.kind === FrameKind.Data && op.flows !== null) {
      op.flows.touch(pkt.srcIp, pkt.dstIp, pkt.srcPort, pkt.destQp, now, pkt.sizeBytes);
      if (flowForgetAtEnd && isMessageEnd(pkt.opcode))
        op.flows.forget(pkt.srcIp, pkt.dstIp, pkt.srcPort, pkt.destQp);
    }
    if (ecnAtEnqueue && q !== controlPrio && op.ecnOn && (pkt.ecn === Ecn.Ect0 || pkt.ecn === Ecn.Ect1)) {
      maybeMark(op, pkt, op.queueBytesOf[q]);
    }
    op.queueByteNs += op.queueBytes * (now - op.queueSinceNs);
    op.queueSinceNs = now;
    if (
      !op.busy &&
      q !== controlPrio &&
      inPort >= 0 &&
      op.pfcPendingMask === 0 &&
      (op.nonEmptyMask & ~op.pausedMask) === 0 &&
      ((op.pausedMask >>> q) & 1) === 0 &&
      enqueueCps.length === 0 &&
      dequeueCps.length === 0
    ) {
      cutThrough(op, q, pkt, inPort, now);
      return true;
    }
    if (op.busy && now > op.txEndExactNs && op.lateArrivalNs === Number.POSITIVE_INFINITY) {
      op.lateArrivalNs = now;
      op.backlogAtLateArrival = op.queueBytes > 0 || op.pfcPendingMask !== 0;
    }
    op.queues[q].push(pkt, inPort);
    op.nonEmptyMask |= 1 << q;
    op.queueBytesOf[q] += s;
    op.queueBytes += s;
    if (op.queueBytes > op.maxQueueBytes) op.maxQueueBytes = op.queueBytes;
    for (let i = 0; i < enqueueCps.length; i++) enqueueCps[i].onEnqueue!(pkt, op.index, q);
    if (!op.busy) startNext(op, false);
    return true;
  }

  /**
   * A data frame that finds its port idle, no PFC frame pending and every queue it could wait
   * behind empty would be queued and dequeued at once (enqueue → startNext → pickDataQueue →
   * dequeue). This makes the same state changes in the same order without the ring round trip,
   * which is about half of all switch hops at moderate load. Only used without enqueue/dequeue
   * CP hooks, the only code that could observe the frame's moment in the queue.
   */
  function cutThrough(port: Port, q: number, pkt: Packet, inPort: number, now: number): void {
    const s = pkt.sizeBytes;
    // The queue held the frame for an instant: its peak, and nothing else, remains.
    if (port.queueBytes + s > port.maxQueueBytes) port.maxQueueBytes = port.queueBytes + s;
    port.busy = true;
    // q was the only eligible queue, so DRR ends on it, and emptying it resets its deficit.
    port.drrQueue = q;
    port.deficitBytes[q] = 0;
    release(inPort, q, s);
    if (!ecnAtEnqueue && port.ecnOn && (pkt.ecn === Ecn.Ect0 || pkt.ecn === Ecn.Ect1)) {
      maybeMark(port, pkt, port.queueBytesOf[q]);
    }
    if (intOn && pkt.kind === FrameKind.Data && pkt.int !== null) stampInt(port, pkt, now);
    beginTx(port, pkt, now);
  }

  function dropOnAdmission(op: Port, inPort: number, lossless: boolean): void {
    op.drops++;
    if (inPort >= 0) ports[inPort].ingressDrops++;
    counters.bufferDrops++;
    if (lossless) counters.losslessDrops++;
  }

  // ---------------------------------------------------------------- MMU and PFC generation

  /** XOFF threshold on the shared bytes (above the reserve) of ingress port p, any priority. */
  function xoffThreshold(p: number): number {
    if (!pfcOn) return Number.POSITIVE_INFINITY;
    if (!pfcDynamic) return pfcStaticBytes;
    const free = sharedPoolBytes - sharedUsedBytes;
    return free > 0 ? alphaOf[p] * free : 0;
  }

  function sharedOf(i: number): number {
    const b = ingBytes[i];
    return b > reserveBytes ? b - reserveBytes : 0;
  }

  /** Charge s bytes to ingress (p, q): reserve, then shared up to the threshold, then headroom. */
  function admit(p: number, q: number, s: number): boolean {
    if (usedBytes + s > bufferBytes) return false;
    const i = p * PRIOS + q;
    const before = ingBytes[i];
    const sharedBefore = before > reserveBytes ? before - reserveBytes : 0;
    const sharedAfter = before + s > reserveBytes ? before + s - reserveBytes : 0;
    const toShared = sharedAfter - sharedBefore;
    if (
      toShared === 0 ||
      (sharedAfter <= xoffThreshold(p) && sharedUsedBytes + toShared <= sharedPoolBytes)
    ) {
      ingBytes[i] = before + s;
      sharedUsedBytes += toShared;
    } else if (pfcOn && hdrmBytes[i] + s <= headroomOf[p]) {
      hdrmBytes[i] += s;
    } else {
      return false;
    }
    usedBytes += s;
    if (pfcOn && xoff[i] === 0 && (hdrmBytes[i] > 0 || sharedOf(i) >= xoffThreshold(p))) setXoff(p, q);
    return true;
  }

  /** Release s bytes of ingress (p, q) at dequeue: headroom first, then shared/reserve. */
  function release(p: number, q: number, s: number): void {
    const i = p * PRIOS + q;
    let rest = s;
    const h = hdrmBytes[i];
    if (h > 0) {
      const take = Math.min(h, rest);
      hdrmBytes[i] = h - take;
      rest -= take;
    }
    if (rest > 0) {
      const before = ingBytes[i];
      const after = before - rest;
      ingBytes[i] = after;
      sharedUsedBytes -=
        (before > reserveBytes ? before - reserveBytes : 0) -
        (after > reserveBytes ? after - reserveBytes : 0);
    }
    usedBytes -= s;
    if (xoff[i] === 1 && xonReady(p, i)) setXon(p, q);
  }

  function xonReady(p: number, i: number): boolean {
    if (hdrmBytes[i] > 0) return false;
    const shared = sharedOf(i);
    return shared === 0 || shared + resumeOffsetBytes <= xoffThreshold(p);
  }

  function setXoff(p: number, q: number): void {
    const i = p * PRIOS + q;
    xoff[i] = 1;
    const port = ports[p];
    refreshTimers[i] = env.setTimer(env.now() + port.pfcRefreshNs, refreshFns[i]);
    queuePfc(port, q, pauseQuanta);
  }

  function setXon(p: number, q: number): void {
    const i = p * PRIOS + q;
    xoff[i] = 0;
    if (refreshTimers[i] !== NO_TIMER) {
      env.cancelTimer(refreshTimers[i]);
      refreshTimers[i] = NO_TIMER;
    }
    queuePfc(ports[p], q, 0);
  }

  /** Our XOFF is about to expire upstream: resume if we may, otherwise pause again. */
  function onRefresh(p: number, q: number): void {
    const i = p * PRIOS + q;
    refreshTimers[i] = NO_TIMER;
    if (xoff[i] === 0) return;
    if (xonReady(p, i)) {
      setXon(p, q);
      return;
    }
    const port = ports[p];
    refreshTimers[i] = env.setTimer(env.now() + port.pfcRefreshNs, refreshFns[i]);
    queuePfc(port, q, pauseQuanta);
  }

  function queuePfc(port: Port, q: number, quanta: number): void {
    port.pfcPendingMask |= 1 << q;
    port.pfcPendingQuanta[q] = quanta;
    kick(port);
  }

  function buildPfcFrame(port: Port): Packet {
    const pkt = createPacket();
    pkt.id = env.nextPacketId();
    pkt.kind = FrameKind.Pfc;
    pkt.prio = controlPrio;
    pkt.srcMac = port.mac;
    pkt.dstMac = PFC_DST_MAC;
    const mask = port.pfcPendingMask;
    const quanta = [0, 0, 0, 0, 0, 0, 0, 0];
    let anyPause = false;
    for (let n = 0; n < PRIOS; n++) {
      if ((mask >>> n) & 1) {
        quanta[n] = port.pfcPendingQuanta[n];
        if (quanta[n] > 0) anyPause = true;
      }
    }
    pkt.pfc = { classEnable: mask, quanta };
    pkt.sizeBytes = emulatedSizeBytes(pkt);
    port.pfcPendingMask = 0;
    if (anyPause) port.pfcPauseTx++;
    else port.pfcResumeTx++;
    return pkt;
  }

  // ---------------------------------------------------------------- PFC reception

  function onPfcFrame(port: Port, pkt: Packet): void {
    const body = pkt.pfc!;
    const now = env.now();
    const enable = body.classEnable & 0xff;
    let anyPause = false;
    for (let n = 0; n < PRIOS; n++) {
      if (((enable >>> n) & 1) === 0) continue;
      const quanta = body.quanta[n];
      if (quanta > 0) anyPause = true;
      // The control class is never paused (srcc.md §4.1; queue 0 of the HPCC simulator).
      if (n === controlPrio) continue;
      if (quanta === 0) unpause(port, n, now);
      else pause(port, n, now, now + pfcQuantaToNs(quanta, port.rateBps));
    }
    if (anyPause) port.pfcPauseRx++;
    else port.pfcResumeRx++;
    kick(port);
  }

  function pause(port: Port, n: number, now: number, untilNs: number): void {
    if (((port.pausedMask >>> n) & 1) === 0) {
      port.pausedMask |= 1 << n;
      port.pauseStartNs[n] = now;
    }
    if (port.pauseTimers[n] !== NO_TIMER) env.cancelTimer(port.pauseTimers[n]);
    port.pauseTimers[n] = env.setTimer(untilNs, port.pauseExpiry[n]);
  }

  function unpause(port: Port, n: number, now: number): void {
    if (((port.pausedMask >>> n) & 1) === 0) return;
    port.pausedMask &= ~(1 << n);
    port.pausedNsDone += now - port.pauseStartNs[n];
    if (port.pauseTimers[n] !== NO_TIMER) {
      env.cancelTimer(port.pauseTimers[n]);
      port.pauseTimers[n] = NO_TIMER;
    }
  }

  // ---------------------------------------------------------------- egress scheduling

  function kick(port: Port): void {
    if (!port.busy) startNext(port, false);
  }

  /** Deficit round-robin over non-empty, unpaused data queues; -1 when none is eligible. */
  function pickDataQueue(port: Port): number {
    const eligible = port.nonEmptyMask & ~port.pausedMask & dataQueueMask;
    if (eligible === 0) return -1;
    let q = port.drrQueue;
    for (;;) {
      if ((eligible >>> q) & 1) {
        const size = port.queues[q].peek().sizeBytes;
        if (size <= port.deficitBytes[q]) {
          port.deficitBytes[q] -= size;
          return q;
        }
      }
      // Round-robin to the next eligible queue (circularly after q, q itself when it is the only
      // one): stepping one queue at a time would only pass ineligible queues, which change nothing.
      const above = eligible & (0xff << (q + 1)) & 0xff;
      q = lowestBit(above !== 0 ? above : eligible);
      port.deficitBytes[q] += drrQuantumBytes;
      port.drrQueue = q;
    }
  }

  /**
   * Choose the next frame (PFC, then control, then DRR) and serialise it from now, or, right
   * after a frame (`afterTx`), from the exact end of that frame. A flag rather than the start
   * time as an argument: a fractional number passed to a call is a heap allocation.
   */
  function startNext(port: Port, afterTx: boolean): void {
    const now = env.now();
    const startNs = afterTx ? nextStartAfterTx(port, now) : now;
    // Busy while choosing, so re-entrant kicks (a PFC decision or a CP frame on this very
    // port during dequeue) queue behind this frame instead of starting a second one.
    port.busy = true;
    let pkt: Packet;
    if (port.pfcPendingMask !== 0) {
      pkt = buildPfcFrame(port);
    } else {
      const q = (port.nonEmptyMask >>> controlPrio) & 1 ? controlPrio : pickDataQueue(port);
      if (q < 0) {
        port.busy = false;
        return;
      }
      pkt = dequeue(port, q);
    }
    beginTx(port, pkt, startNs);
  }

  /**
   * Where the frame after a finished one starts. Back-to-back frames start where the previous one
   * really ended (fractional ns), so rounding timers to whole ns never slows the port below its
   * line rate. In real time the end-of-frame timer fires late by the host's scheduling lag;
   * starting from `now` would lose that lag on every frame (a software port then runs at
   * 85-90 % of its rate under load), so a late port catches up like the NIC does: from the exact
   * end if work was waiting then, else from the first arrival after it.
   */
  function nextStartAfterTx(port: Port, now: number): number {
    const endNs = port.txEndExactNs;
    if (now - endNs < 1) return endNs;
    if (port.lateArrivalNs === Number.POSITIVE_INFINITY || port.backlogAtLateArrival) return endNs;
    return Math.min(port.lateArrivalNs, now);
  }

  /** Put `pkt` on the wire of `port` from `startNs`; txDone runs when its last bit is out. */
  function beginTx(port: Port, pkt: Packet, startNs: number): void {
    port.inFlight = pkt;
    port.lateArrivalNs = Number.POSITIVE_INFINITY;
    port.txBytes += pkt.sizeBytes;
    port.txPackets++;
    if (pkt.kind === FrameKind.Cnm) port.cnmTx++;
    // Serialisation time of the frame, kept for the next frame of the same size (the division
    // is the costliest instruction of the hop; the cached value is the same expression).
    if (pkt.sizeBytes !== port.serSizeBytes) {
      port.serSizeBytes = pkt.sizeBytes;
      port.serNs = (pkt.sizeBytes * 8e9) / port.rateBps;
    }
    const endNs = startNs + port.serNs;
    port.txEndExactNs = endNs;
    env.setTimer(Math.ceil(endNs - TIME_EPS_NS), port.onTxDone);
  }

  function txDone(port: Port): void {
    const pkt = port.inFlight!;
    port.inFlight = null;
    port.busy = false;
    env.send(port.index, pkt);
    if (port.busy) return;
    startNext(port, true);
  }

  function dequeue(port: Port, q: number): Packet {
    const ring = port.queues[q];
    const inPort = ring.peekTag();
    const pkt = ring.shift();
    if (ring.length === 0) {
      port.nonEmptyMask &= ~(1 << q);
      port.deficitBytes[q] = 0;
    }
    const s = pkt.sizeBytes;
    const now = env.now();
    port.queueByteNs += port.queueBytes * (now - port.queueSinceNs);
    port.queueSinceNs = now;
    port.queueBytesOf[q] -= s;
    port.queueBytes -= s;
    if (q === controlPrio || inPort < 0) {
      usedBytes -= s;
    } else {
      release(inPort, q, s);
      if (!ecnAtEnqueue && port.ecnOn && (pkt.ecn === Ecn.Ect0 || pkt.ecn === Ecn.Ect1)) {
        maybeMark(port, pkt, port.queueBytesOf[q]);
      }
    }
    if (intOn && pkt.kind === FrameKind.Data && pkt.int !== null) stampInt(port, pkt, now);
    for (let i = 0; i < dequeueCps.length; i++) dequeueCps[i].onDequeue!(pkt, port.index, q);
    return pkt;
  }

  // ---------------------------------------------------------------- ECN and INT

  function maybeMark(port: Port, pkt: Packet, qlenBytes: number): void {
    if (qlenBytes <= port.kminBytes) return;
    if (qlenBytes <= port.kmaxBytes) {
      const p = (port.pmax * (qlenBytes - port.kminBytes)) / (port.kmaxBytes - port.kminBytes);
      if (env.rng.next() >= p) return;
    }
    pkt.ecn = Ecn.Ce;
    port.ecnMarked++;
  }

  function stampInt(port: Port, pkt: Packet, now: number): void {
    const st = pkt.int!;
    const raw: IntHop = {
      lineRateBps: port.rateBps,
      timeNs: now,
      txBytes: port.txBytes,
      qlenBytes: port.queueBytes,
      activeFlows: port.flows !== null ? port.flows.count(now) : 0,
    };
    // The hop as the wire carries it (docs/wire.md §2), so virtual time sees what a real run
    // decodes; the real runtime encodes HPCC's stack with INT_MULTI 1, the quantizer's default.
    if (st.layout === 'mpcc') {
      // MPCC stops writing after five hops (mpcc.md §2.2); nhop still counts.
      if (st.nhop < INT_MAX_HOPS && st.hops.length < INT_MAX_HOPS) st.hops.push(quantizeMpccHop(raw));
    } else {
      const hop = quantizeHpccHop(raw);
      // HPCC writes slot nhop % 5, overwriting slot 0 on the sixth hop (wire.md §10).
      const slot = st.nhop % INT_MAX_HOPS;
      if (slot < st.hops.length) st.hops[slot] = hop;
      else st.hops.push(hop);
    }
    st.nhop++;
  }

  // ---------------------------------------------------------------- CP plug-ins

  function checkPort(port: number): boolean {
    return isUint(port, nPorts - 1);
  }

  const io: SwitchCpIo = {
    switchName: config.name,
    switchId: config.id,
    portCount: nPorts,
    controlPrio,
    now: () => env.now(),
    setTimer: (atNs, fn) => env.setTimer(atNs, fn),
    cancelTimer: (id) => env.cancelTimer(id),
    rng: env.rng,
    log: env.log,
    nextPacketId: () => env.nextPacketId(),
    sendControl(port, pkt) {
      if (!checkPort(port) || typeof pkt !== 'object' || pkt === null || !(pkt.sizeBytes > 0)) return false;
      return enqueue(ports[port], controlPrio, pkt, -1);
    },
    queueBytes: (port) => (checkPort(port) ? ports[port].queueBytes : 0),
    queueBytesOf: (port, prio) =>
      checkPort(port) && isUint(prio, PRIOS - 1) ? ports[port].queueBytesOf[prio] : 0,
    ingressBytes: (port, prio) =>
      checkPort(port) && isUint(prio, PRIOS - 1)
        ? ingBytes[port * PRIOS + prio] + hdrmBytes[port * PRIOS + prio]
        : 0,
    pfcXoffBytes: (port) => (checkPort(port) ? xoffThreshold(port) : 0),
    inFlightBytesOf(port, prio) {
      if (!checkPort(port)) return 0;
      const f = ports[port].inFlight;
      if (f === null || f.kind === FrameKind.Pfc) return 0;
      return ((controlKindMask >>> f.kind) & 1 ? controlPrio : f.prio) === prio ? f.sizeBytes : 0;
    },
    egressPaused: (port, prio) =>
      checkPort(port) && isUint(prio, PRIOS - 1) && ((ports[port].pausedMask >>> prio) & 1) === 1,
    activeFlows(port) {
      if (!checkPort(port)) return 0;
      const flows = ports[port].flows;
      return flows !== null ? flows.count(env.now()) : 0;
    },
    portRateBps: (port) => (checkPort(port) ? ports[port].rateBps : 0),
    portMac: (port) => (checkPort(port) ? ports[port].mac : 0),
    peerMac: (port) => (checkPort(port) ? ports[port].peerMac : 0),
    route: (pkt) => route(pkt),
    count(name, delta = 1) {
      cpCounters[name] = (cpCounters[name] ?? 0) + delta;
    },
  };

  const cps: SwitchCp[] = (config.cp ?? []).map((factory) => factory(io));
  const ingressCps = cps.filter((c) => c.onIngress !== undefined);
  const enqueueCps = cps.filter((c) => c.onEnqueue !== undefined);
  const dequeueCps = cps.filter((c) => c.onDequeue !== undefined);

  // ---------------------------------------------------------------- observation

  function portCounters(): PortCounters[] {
    const now = env.now();
    return ports.map((p) => {
      let pausedNs = p.pausedNsDone;
      for (let n = 0; n < PRIOS; n++) if ((p.pausedMask >>> n) & 1) pausedNs += now - p.pauseStartNs[n];
      return {
        port: p.index,
        txBytes: p.txBytes,
        txPackets: p.txPackets,
        queueBytes: p.queueBytes,
        maxQueueBytes: p.maxQueueBytes,
        queueByteNs: p.queueByteNs + p.queueBytes * (now - p.queueSinceNs),
        ecnMarked: p.ecnMarked,
        pfcPauseTx: p.pfcPauseTx,
        pfcPauseRx: p.pfcPauseRx,
        pausedNs,
        drops: p.drops,
        cnmTx: p.cnmTx,
        pfcResumeTx: p.pfcResumeTx,
        pfcResumeRx: p.pfcResumeRx,
        ingressDrops: p.ingressDrops,
        rxPackets: p.rxPackets,
        rxBytes: p.rxBytes,
      };
    });
  }

  function switchCounters(): SwitchCounters {
    return { ...counters, cp: { ...cpCounters } };
  }

  return {
    name: config.name,
    receive,
    portCounters,
    queueBytes: (port: number) => (checkPort(port) ? ports[port].queueBytes : 0),
    switchCounters,
  };
}
