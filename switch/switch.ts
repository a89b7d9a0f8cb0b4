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
import { hpccRateTableOrNs3 } from '../src/wire/int-hpcc.js';
import { isMessageEnd } from '../src/wire/opcodes.js';
import { Ecn, FrameKind, type Packet } from '../src/wire/packet.js';
import { createPacket } from '../src/wire/packet-factory.js';
import { PFC_DST_MAC, PFC_PRIORITIES } from '../src/wire/pfc.js';
import { emulatedSizeBytes } from '../src/wire/size.js';
import { trimToHeader } from '../src/wire/trim.js';
import type { PortCounters, PortEvent, Switch, SwitchConfig, SwitchCounters } from './api.js';
import type { SwitchCp, SwitchCpIo } from './cp.js';
import { ecmpHash } from './ecmp.js';
import { ActiveFlowCounter } from './flow-counter.js';
import { stampInt } from './int-stamp.js';
import { checkPortEvents, failoverPort, flushPort } from './link-events.js';
import { losslessMaskOf, SharedBufferMmu } from './mmu.js';
import { HEADER_QUEUE, HEADER_QUEUE_BIT, Port } from './port.js';
import { RouteLookup } from './route-lookup.js';
import { isUint, isWellFormedFrame } from './validate.js';

const PRIOS = PFC_PRIORITIES;
const DEFAULT_CONTROL_KINDS: readonly FrameKind[] = [FrameKind.Cnp, FrameKind.Cnm];
const DEFAULT_DRR_QUANTUM_BYTES = 1500;
const DEFAULT_ACTIVE_FLOW_WINDOW_NS = 100_000;

/** Index of the lowest set bit of a non-zero 32-bit value. */
function lowestBit(x: number): number {
  return 31 - Math.clz32(x & -x);
}

/** `x` when it is a finite number >= 1 (a DRR quantum of NaN would never end a round), else `fallback`. */
function positiveOr(x: number | undefined, fallback: number): number {
  return x !== undefined && Number.isFinite(x) && x >= 1 ? x : fallback;
}

/** Every switch-wide counter at zero (a new switch; firmware doubles in tests). */
export function zeroSwitchCounters(): SwitchCounters {
  return {
    malformed: 0,
    unroutable: 0,
    ttlExpired: 0,
    bufferDrops: 0,
    losslessDrops: 0,
    trims: 0,
    headerDrops: 0,
    linkDownDrops: 0,
    cp: {},
  };
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
  // Trimming applies to the lossy data priorities (docs/switch.md "Lossy priorities").
  const trim = config.trim ?? null;
  const losslessMask = config.pfc.enabled ? losslessMaskOf(config.pfc.priorities) : 0;
  const trimMask = trim !== null ? dataQueueMask & ~losslessMask : 0;

  const ports: Port[] = config.ports.map(
    (p, i) =>
      new Port(
        env,
        i,
        p.rateBps,
        p.mac,
        p.peerMac,
        p.peerIsHost === true,
        p.ecn ?? config.ecn,
        flowWindowNs > 0 ? new ActiveFlowCounter(flowWindowNs, flowMinBytes) : null,
        controlPrio,
        trim,
        trimMask,
      ),
  );
  // The MMU decides XOFF/XON; the frame goes out of the ingress port ahead of its queues.
  const mmu = new SharedBufferMmu(env, config.bufferBytes, config.pfc, config.ports, (p, q, quanta) =>
    queuePfc(ports[p], q, quanta),
  );

  const counters = zeroSwitchCounters();
  const cpCounters: Record<string, number> = {};
  /** Ports whose link is down: routing looks past them only while there are some. */
  let downPorts = 0;

  for (const port of ports) {
    port.onTxDone = () => txDone(port);
    port.pause.onResume = () => kick(port);
  }

  // ---------------------------------------------------------------- validation and routing

  function route(pkt: Packet): number {
    const r = routes.find(pkt.dstIp);
    if (r < 0) return -1;
    const n = routes.portCount(r);
    if (n === 0) return -1;
    if (n === 1) {
      const e = routes.port(r, 0);
      return isUint(e, nPorts - 1) ? e : -1;
    }
    const hash = ecmpHash(ecmpSeed, pkt.srcIp, pkt.dstIp, pkt.srcPort);
    let e = routes.port(r, hash % n);
    if (!isUint(e, nPorts - 1)) return -1;
    // Local fast failover (docs/switch.md "Link events"); with every port down the frame is
    // dropped when it reaches the down port's queue.
    if (downPorts > 0 && ports[e].down) {
      const up = failoverPort(routes, r, n, hash, ports);
      if (up >= 0) e = up;
    }
    return e;
  }

  // ---------------------------------------------------------------- ingress pipeline

  function receive(inPort: number, pkt: Packet): void {
    if (hooks !== null) hooks.rx(env.now(), inPort, pkt);
    if (!isUint(inPort, nPorts - 1)) {
      counters.malformed++;
      return;
    }
    const ip = ports[inPort];
    if (!isWellFormedFrame(pkt)) {
      counters.malformed++;
      ip.ingressDrops++;
      return;
    }
    if (ip.down) {
      // Still on the wire when the link failed.
      linkDownDrop(ip);
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
    if (op.down) {
      linkDownDrop(op);
      if (inPort >= 0) ports[inPort].ingressDrops++;
      return false;
    }
    const s = pkt.sizeBytes;
    if (q === controlPrio || inPort < 0) {
      // Control frames bypass MMU admission and PFC accounting (queue 0 of the HPCC simulator);
      // only the physical buffer bounds them.
      if (!mmu.chargeControl(s)) {
        dropOnAdmission(op, inPort, false);
        return false;
      }
    } else if ((op.trimMask >>> q) & 1) {
      if (!admitTrimming(op, q, pkt, inPort)) return false;
    } else if (!mmu.admit(inPort, q, s)) {
      dropOnAdmission(op, inPort, mmu.lossless(q));
      return false;
    }
    const now = env.now();
    if (pkt.kind === FrameKind.Data && op.flows !== null) {
      op.flows.touch(pkt.srcIp, pkt.dstIp, pkt.destQp, now, pkt.sizeBytes);
      if (flowForgetAtEnd && isMessageEnd(pkt.opcode)) op.flows.forget(pkt.srcIp, pkt.dstIp, pkt.destQp);
    }
    if (ecnAtEnqueue && q !== controlPrio && op.ecnOn && (pkt.ecn === Ecn.Ect0 || pkt.ecn === Ecn.Ect1)) {
      maybeMark(op, pkt, q, op.queueBytesOf[q]);
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
      maybeMark(port, pkt, q, port.queueBytesOf[q]);
    }
    if (intOn && pkt.kind === FrameKind.Data && pkt.int !== null)
      stampInt(port, pkt, now, intMulti, intRatesBps);
    beginTx(port, pkt, now);
  }

  function dropOnAdmission(op: Port, inPort: number, lossless: boolean): void {
    op.drops++;
    if (inPort >= 0) ports[inPort].ingressDrops++;
    counters.bufferDrops++;
    if (lossless) counters.losslessDrops++;
  }

  // ---------------------------------------------------------------- trimming

  /**
   * Admission to a trimming data queue q of `op` (a lossy priority with trimming on; docs/switch.md
   * "Trimming", after the reference simulator's compositequeue.cpp). True: the data frame is
   * charged to the MMU and may join the queue. False: it went to the header queue (trimmed, or a
   * header-only frame) or was dropped there.
   */
  function admitTrimming(op: Port, q: number, pkt: Packet, inPort: number): boolean {
    // Frames without a payload to cut (ACKs, NAKs, CNPs at this priority) and frames trimmed
    // upstream ride the header queue, as the reference serves every header-only packet.
    if (pkt.kind !== FrameKind.Data || pkt.trimHop > 0) {
      enqueueHeader(op, pkt);
      return false;
    }
    const s = pkt.sizeBytes;
    const ring = op.queues[q];
    if (op.queueBytesOf[q] + s > op.trimQueueBytes) {
      // Full: trim the arriving frame or, with probability 1/2, the last one queued, which makes
      // room for the arrival (one frame, as the reference: the queue may then exceed its cap by
      // the difference of the two sizes).
      if (ring.length === 0 || env.rng.next() >= 0.5) {
        trimInto(op, pkt);
        return false;
      }
      const victimIn = ring.peekTailInPort();
      const victim = ring.popTail();
      const vs = victim.sizeBytes;
      op.queueByteNs += op.queueBytes * (env.now() - op.queueSinceNs);
      op.queueSinceNs = env.now();
      op.queueBytesOf[q] -= vs;
      op.queueBytes -= vs;
      if (ring.length === 0) {
        op.nonEmptyMask &= ~(1 << q);
        op.deficitBytes[q] = 0;
      }
      mmu.release(victimIn, q, vs);
      trimInto(op, victim);
    }
    if (mmu.admit(inPort, q, s)) return true;
    // The shared buffer is full before the queue is: trim rather than drop.
    trimInto(op, pkt);
    return false;
  }

  function trimInto(op: Port, pkt: Packet): void {
    op.trims++;
    counters.trims++;
    trimToHeader(pkt, op.peerIsHost);
    enqueueHeader(op, pkt);
  }

  /** Queue a header on `op`'s header queue (strict priority after control), or drop and count it. */
  function enqueueHeader(op: Port, pkt: Packet): void {
    const s = pkt.sizeBytes;
    if (op.queueBytesOf[HEADER_QUEUE] + s > op.headerQueueCapBytes || !mmu.chargeControl(s)) {
      op.headerDrops++;
      counters.headerDrops++;
      return;
    }
    const now = env.now();
    op.queueByteNs += op.queueBytes * (now - op.queueSinceNs);
    op.queueSinceNs = now;
    op.noteArrival(now);
    op.queues[HEADER_QUEUE].push(pkt, -1);
    op.nonEmptyMask |= HEADER_QUEUE_BIT;
    const hb = (op.queueBytesOf[HEADER_QUEUE] += s);
    if (hb > op.maxHeaderQueueBytes) op.maxHeaderQueueBytes = hb;
    op.queueBytes += s;
    if (op.queueBytes > op.maxQueueBytes) op.maxQueueBytes = op.queueBytes;
    if (hooks !== null) hooks.queue(now, op.index, op.queueBytes);
    for (let i = 0; i < enqueueCps.length; i++) enqueueCps[i].onEnqueue!(pkt, op.index, HEADER_QUEUE);
    if (!op.busy) startNext(op, false);
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
    if (!port.busy && !port.down) startNext(port, false);
  }

  // ---------------------------------------------------------------- link events

  function linkDownDrop(port: Port): void {
    port.linkDownDrops++;
    counters.linkDownDrops++;
  }

  function applyPortEvent(ev: PortEvent): void {
    const port = ports[ev.port];
    if (ev.rateBps !== undefined) {
      port.setRate(ev.rateBps);
      port.pause.rateBps = ev.rateBps;
      mmu.setPortRate(ev.port, ev.rateBps);
    }
    if (ev.down === true && !port.down) {
      port.down = true;
      downPorts++;
      const dropped = flushPort(port, mmu, controlPrio, env.now());
      port.linkDownDrops += dropped;
      counters.linkDownDrops += dropped;
      if (hooks !== null) hooks.queue(env.now(), port.index, port.queueBytes);
    } else if (ev.down === false && port.down) {
      port.down = false;
      downPorts--;
      kick(port);
    }
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
      // Control, then trimmed headers (strict priority, never paused), then DRR over the data.
      const m = port.nonEmptyMask;
      const q =
        (m >>> controlPrio) & 1 ? controlPrio : m & HEADER_QUEUE_BIT ? HEADER_QUEUE : pickDataQueue(port);
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
    if (port.down) {
      // Its last bit left after the link failed: lost.
      linkDownDrop(port);
      return;
    }
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
        maybeMark(port, pkt, q, port.queueBytesOf[q]);
      }
    }
    if (intOn && pkt.kind === FrameKind.Data && pkt.int !== null)
      stampInt(port, pkt, now, intMulti, intRatesBps);
    for (let i = 0; i < dequeueCps.length; i++) dequeueCps[i].onDequeue!(pkt, port.index, q);
    return pkt;
  }

  // ---------------------------------------------------------------- ECN and INT

  function maybeMark(port: Port, pkt: Packet, q: number, qlenBytes: number): void {
    const kmin = port.kminOf[q];
    if (qlenBytes <= kmin) return;
    const kmax = port.kmaxOf[q];
    if (qlenBytes <= kmax) {
      const p = (port.pmaxOf[q] * (qlenBytes - kmin)) / (kmax - kmin);
      if (env.rng.next() >= p) return;
    }
    pkt.ecn = Ecn.Ce;
    port.ecnMarked++;
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
        trims: p.trims,
        headerDrops: p.headerDrops,
        maxHeaderQueueBytes: p.maxHeaderQueueBytes,
        linkDownDrops: p.linkDownDrops,
      };
    });
  }

  function switchCounters(): SwitchCounters {
    return { ...counters, cp: { ...cpCounters } };
  }

  const portEvents = config.portEvents ?? [];
  checkPortEvents(config.name, portEvents, nPorts);
  for (const ev of portEvents) env.setTimer(ev.atNs, () => applyPortEvent(ev));

  return {
    name: config.name,
    receive,
    portCounters,
    queueBytes: (port: number) => (checkPort(port) ? ports[port].queueBytes : 0),
    switchCounters,
    portRateBps: (port: number) => (checkPort(port) && !ports[port].down ? ports[port].rateBps : 0),
    trimming: trim !== null,
    linkEvents: portEvents.length > 0,
  };
}
