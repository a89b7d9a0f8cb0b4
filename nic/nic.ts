/**
 * The NIC firmware (sans-IO): RC queue pairs over one port, a port scheduler with strict-priority
 * control frames and round-robin paced QPs, go-back-N reliability, PFC reception; the
 * congestion-control hooks are called by the CC host (cc-host.ts, docs/cc-api.md). Time,
 * timers, randomness and the wire come only from the injected FirmwareEnv.
 *
 * The transmitter is the TxPort the switch uses too (src/port/tx-port.ts). Serialisation and
 * pacing are tracked in fractional ns (`txEndExactNs`, `nextAvailNs`) so back-to-back frames and
 * paced gaps keep their exact long-run rate; timers fire at the next integer ns.
 */
import type { FlowInfo, RpEvent } from '../src/cc/types.js';
import type { FirmwareEnv, TimerId } from '../src/env/env.js';
import type { NicTrace } from '../src/env/trace.js';
import { PfcPause } from '../src/port/pfc.js';
import { Ring } from '../src/port/ring.js';
import { TxPort } from '../src/port/tx-port.js';
import { PSN_MASK, psnDiff } from '../src/wire/bth.js';
import type { CnpPayload } from '../src/wire/cnp.js';
import { isDataOpcode, isMessageEnd, isMessageStart, Opcode, Syndrome } from '../src/wire/opcodes.js';
import { Ecn, FrameKind, type Packet } from '../src/wire/packet.js';
import { createExt } from '../src/wire/packet-factory.js';
import { emulatedSizeBytes } from '../src/wire/size.js';
import type { HostCounters, MessageRequest, Nic, NicConfig, QpSetup, RateChange } from './api.js';
import { CcHost } from './cc-host.js';
import { ackFrame, cnpFrame, copyInt, dataFrame, dataOpcode } from './frames.js';
import { Qp, SCHED_HEAP, SCHED_NONE, SCHED_RING, type SendMsg } from './qp.js';
import { PacingHeap } from './sched.js';

/** Float slack when comparing fractional-ns times computed along different paths. */
const EPS_NS = 1e-3;
const PRIORITIES = 8;
/** DOCA's rate resolution (2^-20 of line rate) is our floor for a CC-requested rate. */
const MIN_RATE_FRACTION = 2 ** -20;
const DEFAULT_TRACE_CAPACITY = 4096;

type TxEvent = Extract<RpEvent, { type: 'tx' }>;
type AckEvent = Extract<RpEvent, { type: 'ack' }>;

class NicImpl implements Nic {
  readonly name: string;
  private readonly env: FirmwareEnv;
  private readonly cfg: NicConfig;
  private readonly rateBps: number;
  private readonly mtu: number;
  private readonly ackEvery: number;

  private readonly qps = new Map<number, Qp>();
  private readonly byRemote = new Map<string, Qp>();
  private readonly ready = new Ring<Qp>(64);
  private readonly pacing = new PacingHeap<Qp>();
  /** CNPs (controlPrio) and ACK/NAKs (ackPrio): both ahead of data, CNPs first. */
  private readonly control = new Ring<Packet>(64);
  private readonly acks = new Ring<Packet>(64);
  private readonly ackPrio: number;

  /** The port's transmitter (src/port/tx-port.ts, shared with the switch). */
  private readonly tx: TxPort;
  private inTrySend = false;
  private wakeTimer: TimerId | null = null;
  private wakeAtNs = Number.POSITIVE_INFINITY;
  private wakeExactNs = Number.POSITIVE_INFINITY;
  private readonly onWakeBound = () => this.onWake();

  /** PFC pauses received on the port (src/port/pfc.ts, shared with the switch); every class obeys. */
  private readonly pause: PfcPause;

  private ipId = 0;
  private qpOrder = 0;
  private readonly c: HostCounters = {
    cnpTx: 0,
    cnpRx: 0,
    nackTx: 0,
    nackRx: 0,
    retransmits: 0,
    timeouts: 0,
    rxBytes: 0,
    txBytes: 0,
    pfcPauseRx: 0,
    pausedNs: 0,
    malformed: 0,
    dataPacketsTx: 0,
    ackTx: 0,
    ackRx: 0,
    outOfOrderRx: 0,
    duplicateRx: 0,
  };
  private readonly trace: Ring<RateChange>;
  private readonly traceCapacity: number;
  private readonly hooks: NicTrace | null;

  /** Binds QPs to their algorithm's hooks and calls them (cc-host.ts). */
  private readonly cc: CcHost;
  private readonly txEv: TxEvent = {
    type: 'tx',
    pkt: null as unknown as Packet,
    bytes: 0,
    retransmit: false,
  };
  /** Reused for every ACK, like txEv (events are only valid during the hook, cc/types.ts). */
  private readonly ackEv: AckEvent = {
    type: 'ack',
    pkt: null as unknown as Packet,
    ackedBytes: 0,
    rttNs: null,
    ecnEcho: false,
  };

  constructor(env: FirmwareEnv, cfg: NicConfig) {
    this.env = env;
    this.cfg = cfg;
    this.name = cfg.name;
    this.rateBps = cfg.port.rateBps;
    this.mtu = cfg.mtuBytes;
    this.ackEvery = Math.max(1, Math.floor(cfg.ackEveryPackets));
    this.tx = new TxPort(env, cfg.port.rateBps);
    this.tx.onTxDone = () => this.onTxEnd();
    this.pause = new PfcPause(env, cfg.port.rateBps);
    this.pause.onResume = () => this.kick();
    this.ackPrio = cfg.ackPrio ?? cfg.controlPrio;
    if (!(this.rateBps > 0)) throw new Error(`nic ${cfg.name}: port rate must be > 0`);
    if (!(this.mtu > 0) || !Number.isInteger(this.mtu))
      throw new Error(`nic ${cfg.name}: bad MTU ${cfg.mtuBytes}`);
    this.traceCapacity = Math.max(0, cfg.rateTraceCapacity ?? DEFAULT_TRACE_CAPACITY);
    this.trace = new Ring<RateChange>(Math.min(1024, Math.max(16, this.traceCapacity)));
    this.cc = new CcHost(
      env,
      {
        setRate: (qp, rateBps, why) => this.setQpRate(qp, rateBps, why),
        setWindow: (qp, bytes, why) => this.setQpWindow(qp, bytes, why),
        sendCnp: (qp, fields) => this.queueCnp(qp, fields),
        dataPaused: () => this.pause.paused(this.cfg.dataPrio),
        qp: (qpn) => this.qps.get(qpn),
        kick: () => this.kick(),
      },
      cfg.cnpMinIntervalNs,
    );
    this.hooks = cfg.trace ?? null;
  }

  // -------------------------------------------------------------------------------------------
  // runtime API

  createQp(setup: QpSetup): void {
    const { qpn } = setup;
    if (!Number.isInteger(qpn) || qpn < 0 || qpn > PSN_MASK)
      throw new Error(`nic ${this.name}: bad QPN ${qpn}`);
    if (this.qps.has(qpn)) throw new Error(`nic ${this.name}: QP ${qpn} already exists`);
    const cc = this.cc.binding(setup.cc ?? this.cfg.cc);
    const qp = new Qp(
      qpn,
      setup.remoteQpn & PSN_MASK,
      setup.remoteIp >>> 0,
      (setup.initialPsn ?? 0) & PSN_MASK,
      setup.path,
      {
        srcMac: this.cfg.port.mac,
        dstMac: this.cfg.port.peerMac,
        srcIp: this.cfg.ip >>> 0,
        dstIp: setup.remoteIp >>> 0,
        srcPort: setup.srcPort,
        destQp: setup.remoteQpn & PSN_MASK,
      },
      this.qpOrder++,
      this.rateBps,
    );
    const flow: FlowInfo = {
      qpn,
      remoteQpn: qp.remoteQpn,
      lineRateBps: this.rateBps,
      mtuBytes: this.mtu,
      baseRttNs: setup.path.baseRttNs,
      bottleneckRateBps: setup.path.bottleneckRateBps,
      hops: setup.path.hops,
    };
    if (setup.path.linkRatesBps !== undefined) flow.linkRatesBps = setup.path.linkRatesBps;
    if (setup.path.propDelayNs !== undefined) flow.propDelayNs = setup.path.propDelayNs;
    this.qps.set(qpn, qp);
    this.byRemote.set(`${qp.remoteIp}:${qp.remoteQpn}`, qp);
    this.cc.attach(qp, cc, flow);
    this.kick();
  }

  post(msg: MessageRequest): void {
    const qp = this.qps.get(msg.qpn);
    if (qp === undefined) throw new Error(`nic ${this.name}: post on unknown QP ${msg.qpn}`);
    if (!Number.isInteger(msg.bytes) || msg.bytes < 0)
      throw new Error(`nic ${this.name}: message ${msg.id} has bad size ${msg.bytes}`);
    if (msg.verb !== 'send' && msg.verb !== 'write')
      throw new Error(`nic ${this.name}: message ${msg.id} has bad verb ${String(msg.verb)}`);
    const packets = Math.max(1, Math.ceil(msg.bytes / this.mtu));
    qp.msgs.push({
      id: msg.id,
      verb: msg.verb,
      bytes: msg.bytes,
      postNs: this.env.now(),
      startSeq: qp.sndMax,
      packets,
      startByte: qp.postedBytes,
    });
    qp.sndMax += packets;
    qp.postedBytes += msg.bytes;
    this.reschedule(qp);
    this.kick();
  }

  expect(msg: MessageRequest): void {
    const qp = this.qps.get(msg.qpn);
    if (qp === undefined) throw new Error(`nic ${this.name}: expect on unknown QP ${msg.qpn}`);
    qp.expectQ.push(msg);
  }

  counters(): HostCounters {
    const p = this.pause;
    return { ...this.c, pfcPauseRx: p.pauseRx, pausedNs: p.pausedNs(this.env.now()) };
  }

  qpRateBps(qpn: number): number {
    return this.qps.get(qpn)?.rateBps ?? Number.NaN;
  }

  qpWindowBytes(qpn: number): number | null {
    return this.qps.get(qpn)?.windowBytes ?? null;
  }

  qpInspect(qpn: number): Record<string, number> {
    const qp = this.qps.get(qpn);
    if (qp === undefined) return {};
    const out: Record<string, number> = { rateBps: qp.rateBps, inflightBytes: qp.nxtByte - qp.unaByte };
    if (qp.windowBytes !== null) out.windowBytes = qp.windowBytes;
    const cc = this.cc.inspect(qp, this.env.now());
    return cc === undefined ? out : { ...out, ...cc };
  }

  rateTrace(): RateChange[] {
    return this.trace.toArray();
  }

  ccCounters(): Record<string, number> {
    return this.cc.counters();
  }

  receive(port: number, pkt: Packet): void {
    if (port !== 0 || pkt === null || typeof pkt !== 'object') {
      this.c.malformed++;
      return;
    }
    if (this.hooks !== null) this.hooks.rx(this.env.now(), pkt);
    switch (pkt.kind) {
      case FrameKind.Data:
        this.onData(pkt);
        break;
      case FrameKind.Ack:
      case FrameKind.Nak:
        this.onAck(pkt);
        break;
      case FrameKind.Cnp:
        this.onCnp(pkt);
        break;
      case FrameKind.Pfc:
        this.onPfc(pkt);
        break;
      case FrameKind.Cnm:
        this.onCnm(pkt);
        break;
      default:
        this.c.malformed++;
        return;
    }
    this.kick();
    if (this.hooks !== null) this.hooks.rxDone(this.env.now(), pkt);
  }

  // -------------------------------------------------------------------------------------------
  // what the CC host enforces (rate, window, CNP)

  private setQpRate(qp: Qp, rateBps: number, why: string): void {
    const floor = this.rateBps * MIN_RATE_FRACTION;
    let r = rateBps;
    if (!(r >= floor)) r = floor; // also catches NaN
    if (r > this.rateBps) r = this.rateBps;
    if (r === qp.rateBps) return;
    qp.rateBps = r;
    // The pending gap is re-timed from the last packet's start at the new rate.
    if (qp.lastTxStartNs > Number.NEGATIVE_INFINITY) {
      qp.nextAvailNs = qp.lastTxStartNs + qp.lastTxBits * (1e9 / r);
      if (qp.sched === SCHED_HEAP) this.pacing.update(qp);
    }
    this.recordRate(qp, why);
  }

  private setQpWindow(qp: Qp, bytes: number | null, why: string): void {
    // At least one byte, so a window never stops a QP from having one packet in flight.
    const w = bytes === null || !Number.isFinite(bytes) ? null : Math.max(1, bytes);
    if (w === qp.windowBytes) return;
    qp.windowBytes = w;
    this.recordRate(qp, why);
    this.reschedule(qp);
  }

  private recordRate(qp: Qp, why: string): void {
    const change: RateChange = {
      qpn: qp.qpn,
      timeNs: this.env.now(),
      rateBps: qp.rateBps,
      windowBytes: qp.windowBytes,
      why,
    };
    if (this.traceCapacity > 0) {
      this.trace.push(change);
      if (this.trace.length > this.traceCapacity) this.trace.shift();
    }
    this.cfg.observer.onRateChange?.(change);
  }

  private queueCnp(qp: Qp, fields: CnpPayload | undefined): void {
    this.c.cnpTx++;
    this.control.push(cnpFrame(qp.addr, this.cfg.controlPrio, fields));
  }

  // -------------------------------------------------------------------------------------------
  // port scheduler

  private canSend(qp: Qp): boolean {
    return qp.sndNxt < qp.sndMax && (qp.windowBytes === null || qp.nxtByte - qp.unaByte < qp.windowBytes);
  }

  /** Put a QP that may have become sendable into the ready ring or the pacing heap. */
  private reschedule(qp: Qp): void {
    if (qp.sched !== SCHED_NONE || !this.canSend(qp)) return;
    if (qp.nextAvailNs <= this.env.now() + EPS_NS) {
      qp.sched = SCHED_RING;
      this.ready.push(qp);
    } else {
      qp.sched = SCHED_HEAP;
      this.pacing.push(qp);
    }
  }

  /** Start the next frame if the port is idle (called at the end of every entry point). */
  private kick(): void {
    const tx = this.tx;
    if (tx.busy) tx.noteArrival(this.env.now());
    else if (!this.inTrySend) this.trySend(Math.max(this.env.now(), tx.txEndExactNs));
  }

  private trySend(startNs: number): void {
    this.inTrySend = true;
    let pkt: Packet | null = null;
    let qp: Qp | null = null;
    const pause = this.pause;
    if (this.control.length > 0 && !pause.paused(this.cfg.controlPrio)) {
      pkt = this.control.shift()!;
    } else if (this.acks.length > 0 && !pause.paused(this.ackPrio)) {
      pkt = this.acks.shift()!;
    } else if (!pause.paused(this.cfg.dataPrio)) {
      qp = this.pickQp(startNs);
      if (qp !== null) pkt = this.buildData(qp);
    }
    if (pkt === null) {
      this.inTrySend = false;
      this.scheduleWake();
      return;
    }
    this.startTx(pkt, startNs);
    if (qp !== null) this.afterDataTx(qp, pkt, startNs);
    // Work behind this frame (a paced QP too): after a late end-of-frame timer the next frame
    // starts from this frame's exact end, not from the timer.
    if (this.control.length > 0 || this.acks.length > 0 || this.ready.length > 0 || this.pacing.size > 0)
      this.tx.workWaiting = true;
    this.inTrySend = false;
  }

  /** Round-robin over QPs whose pacing time has come. */
  private pickQp(startNs: number): Qp | null {
    const limit = startNs + EPS_NS;
    for (
      let top = this.pacing.peek();
      top !== undefined && top.nextAvailNs <= limit;
      top = this.pacing.peek()
    ) {
      this.pacing.pop();
      top.sched = SCHED_RING;
      this.ready.push(top);
    }
    for (let qp = this.ready.shift(); qp !== undefined; qp = this.ready.shift()) {
      qp.sched = SCHED_NONE;
      if (!this.canSend(qp)) continue;
      if (qp.nextAvailNs > limit) {
        qp.sched = SCHED_HEAP;
        this.pacing.push(qp);
        continue;
      }
      return qp;
    }
    return null;
  }

  private startTx(pkt: Packet, startNs: number): void {
    pkt.id = this.env.nextPacketId();
    pkt.ipId = this.ipId;
    this.ipId = (this.ipId + 1) & 0xffff;
    pkt.sizeBytes = emulatedSizeBytes(pkt);
    this.tx.begin(pkt, startNs);
  }

  private onTxEnd(): void {
    const pkt = this.tx.finish();
    this.c.txBytes += pkt.sizeBytes;
    if (this.hooks !== null) this.hooks.tx(this.env.now(), pkt);
    this.env.send(0, pkt);
    if (!this.inTrySend) this.trySend(this.tx.nextStartAfterTx(this.env.now()));
  }

  /** Wake for the next paced QP; the end of a PFC pause restarts the port itself (onResume). */
  private scheduleWake(): void {
    if (this.pacing.size === 0 || this.pause.paused(this.cfg.dataPrio)) return;
    const at = this.pacing.peek()!.nextAvailNs;
    const timerAt = Math.max(Math.ceil(at - EPS_NS), this.env.now());
    if (this.wakeTimer !== null) {
      if (this.wakeAtNs <= timerAt) return;
      this.env.cancelTimer(this.wakeTimer);
    }
    this.wakeAtNs = timerAt;
    this.wakeExactNs = at;
    this.wakeTimer = this.env.setTimer(timerAt, this.onWakeBound);
  }

  private onWake(): void {
    this.wakeTimer = null;
    this.wakeAtNs = Number.POSITIVE_INFINITY;
    if (this.tx.busy || this.inTrySend) return;
    // Start at the exact (fractional) instant the wake was for, so paced gaps do not drift.
    const now = this.env.now();
    this.trySend(Math.max(this.tx.txEndExactNs, Math.min(this.wakeExactNs, now)));
  }

  // -------------------------------------------------------------------------------------------
  // requester

  private psnOf(qp: Qp, seq: number): number {
    return (qp.initialPsn + seq) & PSN_MASK;
  }

  private buildData(qp: Qp): Packet {
    const seq = qp.sndNxt;
    const m = qp.msgs[qp.txMsg];
    const k = seq - m.startSeq;
    const last = k === m.packets - 1;
    const payload = last ? m.bytes - k * this.mtu : this.mtu;
    const retransmit = seq < qp.sndHigh;
    qp.sndNxt = seq + 1;
    qp.nxtByte += payload;
    if (last) qp.txMsg++;
    if (qp.sndNxt > qp.sndHigh) qp.sndHigh = qp.sndNxt;
    // Also ask for an ACK when this packet fills the window, or coalescing could stall the QP.
    const fillsWindow = qp.windowBytes !== null && qp.nxtByte - qp.unaByte >= qp.windowBytes;
    const pkt = dataFrame(
      qp.addr,
      this.cfg.dataPrio,
      dataOpcode(m.verb, k, m.packets),
      this.psnOf(qp, seq),
      payload,
      last || fillsWindow,
    );
    if (m.verb === 'write' && k === 0) {
      pkt.reth = {
        vaHi: Math.floor(m.startByte / 2 ** 32) >>> 0,
        vaLo: m.startByte >>> 0,
        rkey: qp.qpn,
        dmaLength: Math.min(m.bytes, 0xffffffff),
      };
    }
    const f = this.cc.features(qp);
    if (f.int !== null) pkt.int = { layout: f.int, nhop: 0, hops: [] };
    if (f.txTimestamp) {
      pkt.ext = createExt();
      pkt.ext.txTsNs = this.env.now();
    }
    this.cc.decorateData(qp, pkt);
    if (retransmit) this.c.retransmits++;
    this.c.dataPacketsTx++;
    if (qp.rtoDeadlineNs === Number.POSITIVE_INFINITY) this.armRto(qp);
    this.txEv.retransmit = retransmit;
    this.txEv.bytes = payload;
    return pkt;
  }

  private afterDataTx(qp: Qp, pkt: Packet, startNs: number): void {
    qp.lastTxStartNs = startNs;
    qp.lastTxBits = pkt.sizeBytes * 8;
    qp.nextAvailNs = startNs + qp.lastTxBits * (1e9 / qp.rateBps);
    const ev = this.txEv;
    ev.pkt = pkt;
    this.cc.rpEvent(qp, ev);
    ev.pkt = null as unknown as Packet;
    this.reschedule(qp);
  }

  private armRto(qp: Qp): void {
    if (!(this.cfg.rtoNs > 0)) return;
    qp.rtoDeadlineNs = this.env.now() + this.cfg.rtoNs;
    if (qp.rtoTimer === null) qp.rtoTimer = this.env.setTimer(qp.rtoDeadlineNs, () => this.onRtoTimer(qp));
  }

  private onRtoTimer(qp: Qp): void {
    qp.rtoTimer = null;
    if (qp.sndUna >= qp.sndHigh || qp.rtoDeadlineNs === Number.POSITIVE_INFINITY) {
      qp.rtoDeadlineNs = Number.POSITIVE_INFINITY;
      return;
    }
    const now = this.env.now();
    if (now < qp.rtoDeadlineNs) {
      qp.rtoTimer = this.env.setTimer(qp.rtoDeadlineNs, () => this.onRtoTimer(qp));
      return;
    }
    this.c.timeouts++;
    this.rewind(qp);
    this.armRto(qp);
    this.cc.rpEvent(qp, { type: 'timeout' });
    this.reschedule(qp);
    this.kick();
  }

  /** Index of the message holding sequence number `seq` (msgs.length past the last one). */
  private msgIndexOf(qp: Qp, seq: number): number {
    let i = qp.msgHead;
    const msgs = qp.msgs;
    while (i < msgs.length && msgs[i].startSeq + msgs[i].packets <= seq) i++;
    return i;
  }

  private byteOffsetOf(qp: Qp, seq: number, i: number): number {
    if (i >= qp.msgs.length) return qp.postedBytes;
    const m = qp.msgs[i];
    return m.startByte + Math.min((seq - m.startSeq) * this.mtu, m.bytes);
  }

  /** Cumulative acknowledgement up to (excluding) `seq`; returns the payload bytes newly acked. */
  private advanceUna(qp: Qp, seq: number): number {
    const i = this.msgIndexOf(qp, seq);
    const byte = this.byteOffsetOf(qp, seq, i);
    const acked = byte - qp.unaByte;
    qp.sndUna = seq;
    qp.unaByte = byte;
    if (qp.sndNxt < seq) {
      qp.sndNxt = seq;
      qp.nxtByte = byte;
      qp.txMsg = i;
    }
    if (seq >= qp.sndHigh) qp.rtoDeadlineNs = Number.POSITIVE_INFINITY;
    else this.armRto(qp);
    return acked;
  }

  /** Go-back-N: resend from the oldest unacknowledged packet. */
  private rewind(qp: Qp): void {
    if (qp.sndNxt === qp.sndUna) return;
    qp.sndNxt = qp.sndUna;
    qp.nxtByte = qp.unaByte;
    qp.txMsg = this.msgIndexOf(qp, qp.sndUna);
  }

  private completeMessages(qp: Qp): void {
    const msgs = qp.msgs;
    while (qp.msgHead < msgs.length) {
      const m: SendMsg = msgs[qp.msgHead];
      if (m.startSeq + m.packets > qp.sndUna) break;
      qp.msgHead++;
      const now = this.env.now();
      this.cfg.observer.onMessageComplete({
        id: m.id,
        qpn: qp.qpn,
        bytes: m.bytes,
        postNs: m.postNs,
        completeNs: now,
        role: 'sender',
      });
      this.cc.rpEvent(qp, {
        type: 'messageComplete',
        id: m.id,
        bytes: m.bytes,
        postNs: m.postNs,
        completeNs: now,
      });
    }
    if (qp.msgHead > 64 && qp.msgHead * 2 >= msgs.length) {
      msgs.splice(0, qp.msgHead);
      qp.txMsg -= qp.msgHead;
      qp.msgHead = 0;
    }
  }

  private onAck(pkt: Packet): void {
    const qp = this.qps.get(pkt.destQp);
    const aeth = pkt.aeth;
    if (qp === undefined || aeth === null || pkt.opcode !== Opcode.Acknowledge) {
      this.c.malformed++;
      return;
    }
    const syndrome = aeth.syndrome;
    const rel = psnDiff(pkt.psn, this.psnOf(qp, qp.sndUna));
    if (pkt.kind === FrameKind.Ack) {
      if ((syndrome & 0x60) !== 0) {
        this.c.malformed++;
        return;
      }
      // BTH.PSN of an ACK is the newest PSN acknowledged.
      const seq = qp.sndUna + rel + 1;
      if (seq > qp.sndHigh) {
        this.c.malformed++;
        return;
      }
      this.c.ackRx++;
      const acked = seq > qp.sndUna ? this.advanceUna(qp, seq) : 0;
      const echo = pkt.ext?.tsEchoNs ?? null;
      const ev = this.ackEv;
      ev.pkt = pkt;
      ev.ackedBytes = acked;
      ev.rttNs = echo === null ? null : this.env.now() - echo;
      ev.ecnEcho = pkt.becn;
      this.cc.rpEvent(qp, ev);
      ev.pkt = null as unknown as Packet;
      this.completeMessages(qp);
      this.reschedule(qp);
      return;
    }
    let subtype: 'oos' | 'rnr';
    if (syndrome === Syndrome.NakPsnSeqErr) subtype = 'oos';
    else if ((syndrome & 0x60) === Syndrome.RnrNakBase) subtype = 'rnr';
    else {
      this.c.malformed++;
      return;
    }
    // BTH.PSN of a NAK is the PSN the responder expects: everything before it arrived.
    const seq = qp.sndUna + rel;
    if (seq > qp.sndHigh) {
      this.c.malformed++;
      return;
    }
    this.c.nackRx++;
    if (seq < qp.sndUna) return; // stale: an ACK already moved past it
    if (seq > qp.sndUna) this.advanceUna(qp, seq);
    this.rewind(qp);
    this.cc.rpEvent(qp, { type: 'nack', pkt, subtype });
    this.completeMessages(qp);
    this.reschedule(qp);
  }

  private onCnp(pkt: Packet): void {
    const qp = this.qps.get(pkt.destQp);
    if (qp === undefined || pkt.opcode !== Opcode.Cnp) {
      this.c.malformed++;
      return;
    }
    this.c.cnpRx++;
    this.cc.rpEvent(qp, { type: 'cnp', pkt });
  }

  private onCnm(pkt: Packet): void {
    const body = pkt.cnm;
    // A CNM names the congested flow by its destination IP and BTH DestQP (the remote QPN).
    const qp =
      body === null ? undefined : this.byRemote.get(`${body.flowDstIp >>> 0}:${body.destQpn & PSN_MASK}`);
    if (qp === undefined) {
      this.c.malformed++;
      return;
    }
    this.cc.rpEvent(qp, { type: 'cnm', pkt });
  }

  // -------------------------------------------------------------------------------------------
  // responder

  private onData(pkt: Packet): void {
    const qp = this.qps.get(pkt.destQp);
    if (qp === undefined || !isDataOpcode(pkt.opcode) || pkt.opcode >> 5 !== 0 || !(pkt.payloadLen >= 0)) {
      this.c.malformed++;
      return;
    }
    qp.ackRequested = false;
    this.cc.npData(qp, pkt);
    const d = psnDiff(pkt.psn, qp.rxExpectedPsn);
    if (d > 0) {
      this.c.outOfOrderRx++;
      if (!qp.rxNakSent) {
        qp.rxNakSent = true;
        this.c.nackTx++;
        this.sendAck(qp, pkt, true, qp.rxExpectedPsn);
      }
      return;
    }
    if (d < 0) {
      // Re-ACK every duplicate: after a timeout the requester may be window-limited on them.
      this.c.duplicateRx++;
      this.sendAck(qp, pkt, false, (qp.rxExpectedPsn - 1) & PSN_MASK);
      return;
    }
    const start = isMessageStart(pkt.opcode);
    const end = isMessageEnd(pkt.opcode);
    if (start === qp.rxInMsg) {
      // FIRST/ONLY inside a message or MIDDLE/LAST outside one: a broken requester.
      this.c.malformed++;
      return;
    }
    const now = this.env.now();
    if (start) {
      qp.rxInMsg = true;
      qp.rxMsgBytes = 0;
      qp.rxMsgFirstNs = now;
    }
    qp.rxMsgBytes += pkt.payloadLen;
    this.c.rxBytes += pkt.payloadLen;
    qp.rxExpectedPsn = (pkt.psn + 1) & PSN_MASK;
    qp.rxNakSent = false;
    if (pkt.ecn === Ecn.Ce) qp.rxCeSinceAck = true;
    qp.rxAckPending++;
    if (end) {
      qp.rxInMsg = false;
      qp.rxMsn = (qp.rxMsn + 1) & PSN_MASK;
      this.completeReceive(qp, now);
    }
    if (pkt.ackReq || end || qp.ackRequested || qp.rxAckPending >= this.ackEvery) {
      this.sendAck(qp, pkt, false, pkt.psn);
    }
  }

  private completeReceive(qp: Qp, now: number): void {
    let id = qp.rxOrdinal;
    if (qp.expectHead < qp.expectQ.length) {
      id = qp.expectQ[qp.expectHead++].id;
      if (qp.expectHead > 64 && qp.expectHead * 2 >= qp.expectQ.length) {
        qp.expectQ.splice(0, qp.expectHead);
        qp.expectHead = 0;
      }
    }
    qp.rxOrdinal++;
    this.cfg.observer.onMessageComplete({
      id,
      qpn: qp.qpn,
      bytes: qp.rxMsgBytes,
      postNs: qp.rxMsgFirstNs,
      completeNs: now,
      role: 'receiver',
    });
  }

  /** ACK or NAK about `data`: echoes its INT stack and send timestamp, ECN via BECN. */
  private sendAck(qp: Qp, data: Packet, nak: boolean, psn: number): void {
    const ack = ackFrame(qp.addr, this.ackPrio, nak, psn, qp.rxMsn);
    if (!nak) {
      ack.becn = qp.rxCeSinceAck;
      qp.rxCeSinceAck = false;
      qp.rxAckPending = 0;
      this.c.ackTx++;
    }
    if (data.int !== null) ack.int = copyInt(data.int);
    const ts = data.ext?.txTsNs ?? null;
    if (ts !== null) {
      ack.ext = createExt();
      ack.ext.tsEchoNs = ts;
    }
    this.cc.decorateAck(qp, ack);
    this.acks.push(ack);
  }

  // -------------------------------------------------------------------------------------------
  // PFC

  private onPfc(pkt: Packet): void {
    const body = pkt.pfc;
    if (body === null || !Array.isArray(body.quanta) || !Number.isInteger(body.classEnable)) {
      this.c.malformed++;
      return;
    }
    for (let p = 0; p < PRIORITIES; p++) {
      if (((body.classEnable >> p) & 1) === 0) continue;
      const q = body.quanta[p] ?? 0;
      if (!Number.isInteger(q) || q < 0 || q > 0xffff) {
        this.c.malformed++;
        return;
      }
    }
    this.pause.receive(body, this.env.now());
  }
}

export function createNic(env: FirmwareEnv, config: NicConfig): Nic {
  return new NicImpl(env, config);
}
