/**
 * Sans-IO switch firmware: an output-queued L3 switch with a shared-buffer MMU, eight priority
 * queues per egress port, RED/ECN, 802.1Qbb PFC, INT stamping and CP plug-ins.
 * Modelled on the switch of the HPCC ns-3 simulator (HPCC: High Precision Congestion Control,
 * SIGCOMM 2019) with the switch parts of SRCC (Sub-RTT Congestion Control, IEEE TII 2024) and
 * MPCC (Model Predictive Congestion Control in RDMA-Enabled High-Speed Datacenter Network,
 * 2024). Semantics and parameters: docs/switch.md, docs/algorithms/srcc.md and mpcc.md.
 *
 * The transmitter and the PFC pause state of a port are the models NIC and switch share
 * (src/port/); the MMU is switch/mmu.ts. Hot-path rules: per-port state lives in a class with
 * typed arrays, queues are rings, timer callbacks are created once per port. A forwarded packet
 * allocates nothing except its INT hop record.
 */
import type { FirmwareEnv } from '../src/env/env.js';
import type { SwitchTrace } from '../src/env/trace.js';
import { PfcOutbox, PfcPause } from '../src/port/pfc.js';
import { TxPort } from '../src/port/tx-port.js';
import { hpccRateTableOrNs3, quantizeHpccHop } from '../src/wire/int-hpcc.js';
import { quantizeMpccHop } from '../src/wire/int-mpcc.js';
import { isMessageEnd } from '../src/wire/opcodes.js';
import { Ecn, FrameKind, type IntHop, type Packet } from '../src/wire/packet.js';
import { createPacket } from '../src/wire/packet-factory.js';
import { PFC_DST_MAC, PFC_MAX_QUANTA, PFC_PRIORITIES } from '../src/wire/pfc.js';
import { emulatedSizeBytes } from '../src/wire/size.js';
import type { EcnConfig, PortCounters, Switch, SwitchConfig, SwitchCounters } from './api.js';
import type { SwitchCp, SwitchCpIo } from './cp.js';
import { ecmpHash } from './ecmp.js';
import { ActiveFlowCounter } from './flow-counter.js';
import { FrameQueue } from './frame-queue.js';
import { SharedBufferMmu } from './mmu.js';
import { RouteLookup } from './route-lookup.js';

const PRIOS = PFC_PRIORITIES;
const INT_MAX_HOPS = 5;
const DEFAULT_CONTROL_KINDS: readonly FrameKind[] = [FrameKind.Cnp, FrameKind.Cnm];
const DEFAULT_DRR_QUANTUM_BYTES = 1500;
const DEFAULT_ACTIVE_FLOW_WINDOW_NS = 100_000;
/** Frames larger than this are malformed (a jumbo frame with every extension is far below). */
const MAX_FRAME_BYTES = 65_536;

/** Index of the lowest set bit of a non-zero 32-bit value. */
function lowestBit(x: number): number {
  return 31 - Math.clz32(x & -x);
}

/** An egress port: its transmitter (TxPort), its eight queues, PFC state and counters. */
class Port extends TxPort {
  /** Queue q: frames, each with its ingress port beside it (-1 for CP frames) for the MMU. */
  readonly queues: FrameQueue[] = [];
  readonly queueBytesOf = new Float64Array(PRIOS);
  queueBytes = 0;
  /** Bit q set when queue q holds a frame. */
  nonEmptyMask = 0;

  /** Our XOFF/XON decisions for the peer on this port; they go out ahead of every queue. */
  readonly pfcOut = new PfcOutbox();
  /** Priorities paused by PFC frames received on this port (the control class never is). */
  readonly pause: PfcPause;

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
  drops = 0;
  ingressDrops = 0;
  cnmTx = 0;
  rxPackets = 0;
  rxBytes = 0;

  constructor(
    env: FirmwareEnv,
    readonly index: number,
    rateBps: number,
    readonly mac: number,
    readonly peerMac: number,
    ecn: EcnConfig,
    readonly flows: ActiveFlowCounter | null,
    controlPrio: number,
  ) {
    super(env, rateBps);
    for (let q = 0; q < PRIOS; q++) this.queues.push(new FrameQueue());
    this.pause = new PfcPause(env, rateBps, 1 << controlPrio);
    this.ecnOn = ecn.enabled !== false;
    this.kminBytes = ecn.kminBytes;
    this.kmaxBytes = ecn.kmaxBytes;
    this.pmax = ecn.pmax;
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
  const pfcOn = config.pfc.enabled;
  const ecnAtEnqueue = config.ecn.markAt === 'enqueue';
  const drrQuantumBytes = positiveOr(config.drrQuantumBytes, DEFAULT_DRR_QUANTUM_BYTES);
  const flowWindowNs = config.activeFlowWindowNs ?? DEFAULT_ACTIVE_FLOW_WINDOW_NS;
  const flowMinBytes = Math.max(0, config.activeFlowMinBytes ?? 0);
  const flowForgetAtEnd = config.activeFlowForgetAtEnd === true;
  const intOn = config.int !== false;
  const intMulti = config.intMulti ?? 1;
  const intRatesBps = config.intRatesBps ?? hpccRateTableOrNs3(config.ports.map((p) => p.rateBps));
  const hooks: SwitchTrace | null = config.trace ?? null;
  let controlKindMask = 0;
  for (const k of config.controlKinds ?? DEFAULT_CONTROL_KINDS) controlKindMask |= 1 << k;
  const dataQueueMask = 0xff & ~(1 << controlPrio);

  const ports: Port[] = config.ports.map(
    (p, i) =>
      new Port(
        env,
        i,
        p.rateBps,
        p.mac,
        p.peerMac,
        p.ecn ?? config.ecn,
        flowWindowNs > 0 ? new ActiveFlowCounter(flowWindowNs, flowMinBytes) : null,
        controlPrio,
      ),
  );
  // The MMU decides XOFF/XON; the frame goes out of the ingress port ahead of its queues.
  const mmu = new SharedBufferMmu(env, config.bufferBytes, config.pfc, config.ports, (p, q, quanta) =>
    queuePfc(ports[p], q, quanta),
  );

  const counters = { malformed: 0, unroutable: 0, ttlExpired: 0, bufferDrops: 0, losslessDrops: 0 };
  const cpCounters: Record<string, number> = {};

  for (const port of ports) {
    port.onTxDone = () => txDone(port);
    port.pause.onResume = () => kick(port);
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
    if (hooks !== null) hooks.rx(env.now(), inPort, pkt);
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
      if (!mmu.chargeControl(s)) {
        dropOnAdmission(op, inPort, false);
        return false;
      }
    } else if (!mmu.admit(inPort, q, s)) {
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
      op.pfcOut.pendingMask === 0 &&
      (op.nonEmptyMask & ~op.pause.mask) === 0 &&
      ((op.pause.mask >>> q) & 1) === 0 &&
      enqueueCps.length === 0 &&
      dequeueCps.length === 0
    ) {
      cutThrough(op, q, pkt, inPort, now);
      return true;
    }
    op.noteArrival(now);
    op.queues[q].push(pkt, inPort);
    op.nonEmptyMask |= 1 << q;
    op.queueBytesOf[q] += s;
    op.queueBytes += s;
    if (op.queueBytes > op.maxQueueBytes) op.maxQueueBytes = op.queueBytes;
    if (hooks !== null) hooks.queue(now, op.index, op.queueBytes);
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
    mmu.release(inPort, q, s);
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

  // ---------------------------------------------------------------- PFC generation

  function queuePfc(port: Port, q: number, quanta: number): void {
    port.pfcOut.queue(q, quanta);
    port.noteArrival(env.now());
    kick(port);
  }

  function buildPfcFrame(port: Port): Packet {
    const pkt = createPacket();
    pkt.id = env.nextPacketId();
    pkt.kind = FrameKind.Pfc;
    pkt.prio = controlPrio;
    pkt.srcMac = port.mac;
    pkt.dstMac = PFC_DST_MAC;
    pkt.pfc = port.pfcOut.take();
    pkt.sizeBytes = emulatedSizeBytes(pkt);
    return pkt;
  }

  // ---------------------------------------------------------------- PFC reception

  function onPfcFrame(port: Port, pkt: Packet): void {
    // The control class is never paused (queue 0 of the HPCC simulator): the port's exempt class.
    port.pause.receive(pkt.pfc!, env.now());
    kick(port);
  }

  // ---------------------------------------------------------------- egress scheduling

  function kick(port: Port): void {
    if (!port.busy) startNext(port, false);
  }

  /** Deficit round-robin over non-empty, unpaused data queues; -1 when none is eligible. */
  function pickDataQueue(port: Port): number {
    const eligible = port.nonEmptyMask & ~port.pause.mask & dataQueueMask;
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
    const startNs = afterTx ? port.nextStartAfterTx(now) : now;
    // Busy while choosing, so re-entrant kicks (a PFC decision or a CP frame on this very
    // port during dequeue) queue behind this frame instead of starting a second one.
    port.busy = true;
    let pkt: Packet;
    if (port.pfcOut.pendingMask !== 0) {
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

  /** Put `pkt` on the wire of `port` from `startNs`; txDone runs when its last bit is out. */
  function beginTx(port: Port, pkt: Packet, startNs: number): void {
    port.txBytes += pkt.sizeBytes;
    port.txPackets++;
    if (pkt.kind === FrameKind.Cnm) port.cnmTx++;
    port.begin(pkt, startNs);
    if (port.queueBytes > 0 || port.pfcOut.pendingMask !== 0) port.workWaiting = true;
  }

  function txDone(port: Port): void {
    const pkt = port.finish();
    if (hooks !== null) hooks.tx(env.now(), port.index, pkt);
    env.send(port.index, pkt);
    if (port.busy) return;
    startNext(port, true);
  }

  function dequeue(port: Port, q: number): Packet {
    const ring = port.queues[q];
    const inPort = ring.peekInPort();
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
    if (hooks !== null) hooks.queue(now, port.index, port.queueBytes);
    if (q === controlPrio || inPort < 0) {
      mmu.releaseControl(s);
    } else {
      mmu.release(inPort, q, s);
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
    // The hop as the wire carries it (docs/wire.md, "INT stacks"), so virtual time sees what a real run
    // decodes with the run's INT_MULTI (the one the real runtime encodes HPCC's stack with).
    if (st.layout === 'mpcc') {
      // MPCC stops writing after five hops (docs/wire.md, "MPCC block"); nhop still counts.
      if (st.nhop < INT_MAX_HOPS && st.hops.length < INT_MAX_HOPS) st.hops.push(quantizeMpccHop(raw));
    } else {
      const hop = quantizeHpccHop(raw, intMulti, intRatesBps);
      // HPCC writes slot nhop % 5, overwriting slot 0 on the sixth hop (docs/wire.md, "INT stacks").
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
      checkPort(port) && isUint(prio, PRIOS - 1) ? mmu.ingressBytes(port, prio) : 0,
    pfcXoffBytes: (port) => (checkPort(port) ? mmu.xoffThreshold(port) : 0),
    inFlightBytesOf(port, prio) {
      if (!checkPort(port)) return 0;
      const f = ports[port].inFlight;
      if (f === null || f.kind === FrameKind.Pfc) return 0;
      return ((controlKindMask >>> f.kind) & 1 ? controlPrio : f.prio) === prio ? f.sizeBytes : 0;
    },
    egressPaused: (port, prio) =>
      checkPort(port) && isUint(prio, PRIOS - 1) && ports[port].pause.paused(prio),
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
      return {
        port: p.index,
        txBytes: p.txBytes,
        txPackets: p.txPackets,
        queueBytes: p.queueBytes,
        maxQueueBytes: p.maxQueueBytes,
        queueByteNs: p.queueByteNs + p.queueBytes * (now - p.queueSinceNs),
        ecnMarked: p.ecnMarked,
        pfcPauseTx: p.pfcOut.pauseTx,
        pfcPauseRx: p.pause.pauseRx,
        pausedNs: p.pause.pausedNs(now),
        drops: p.drops,
        cnmTx: p.cnmTx,
        pfcResumeTx: p.pfcOut.resumeTx,
        pfcResumeRx: p.pause.resumeRx,
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
