/**
 * The NIC firmware (sans-IO): RC queue pairs over one port, the runtime API, data frames and the
 * dispatch of received ones. The port scheduler (strict-priority control frames, round-robin
 * paced QPs, the TxPort) is port-sched.ts's; reliability the transport's (gbn.ts go-back-N,
 * sr.ts selective repeat); the entropy of each data packet paths.ts's; PFC reception
 * pfc-rx.ts's; the congestion-control hooks are called by the CC host (cc-host.ts,
 * docs/cc-api.md). Time, timers, randomness and the wire come only from the injected FirmwareEnv.
 */
import type { FlowInfo, RpEvent } from '../src/cc/types.js';
import type { FirmwareEnv } from '../src/env/env.js';
import type { NicTrace } from '../src/env/trace.js';
import { PfcPause } from '../src/port/pfc.js';
import { Ring } from '../src/port/ring.js';
import { TxPort } from '../src/port/tx-port.js';
import { PSN_MASK } from '../src/wire/bth.js';
import type { CnpPayload } from '../src/wire/cnp.js';
import { isDataOpcode, Opcode } from '../src/wire/opcodes.js';
import { FrameKind, type Packet } from '../src/wire/packet.js';
import { createExt } from '../src/wire/packet-factory.js';
import { MAX_MESSAGE_BYTES } from '../src/wire/reth.js';
import {
  type HostCounters,
  type MessageRequest,
  type MultipathStats,
  type Nic,
  type NicConfig,
  type QpSetup,
  type RateChange,
  zeroHostCounters,
} from './api.js';
import { CcHost } from './cc-host.js';
import { cnpFrame, dataFrame, dataFrameSizeBytes, dataOpcode } from './frames.js';
import { GoBackN, isAckFrame, psnOf } from './gbn.js';
import { DEFAULT_PATH_COUNT, PathSelector } from './paths.js';
import { receivePfc } from './pfc-rx.js';
import { PortScheduler } from './port-sched.js';
import { Qp, SCHED_HEAP } from './qp.js';
import { ReceiverCredits } from './rccc/credits.js';
import { SelectiveRepeat } from './sr.js';
import type { Transport, TransportHost } from './transport.js';

/** DOCA's rate resolution (2^-20 of line rate) is our floor for a CC-requested rate. */
const MIN_RATE_FRACTION = 2 ** -20;
/**
 * QPNs below this live in a per-NIC array (the runtimes hand them out densely per host from
 * 0x100, src/runtime/app/qp.ts); larger ones only in the map. Bounds the array at 16 KB a NIC.
 */
const QP_TABLE_SIZE = 1 << 12;

type TxEvent = Extract<RpEvent, { type: 'tx' }>;

class NicImpl implements Nic {
  readonly name: string;
  private readonly env: FirmwareEnv;
  private readonly cfg: NicConfig;
  private readonly rateBps: number;
  private readonly mtu: number;

  /** QPs in creation order (iteration), and by QPN below QP_TABLE_SIZE in an array (lookups). */
  private readonly qps = new Map<number, Qp>();
  private readonly qpTable: (Qp | undefined)[] = [];
  private readonly byRemote = new Map<string, Qp>();
  private readonly ackPrio: number;

  /** The port's frame scheduler and transmitter (port-sched.ts). */
  private readonly port: PortScheduler;

  /** PFC pauses received on the port (src/port/pfc.ts, shared with the switch); every class obeys. */
  private readonly pause: PfcPause;

  private qpOrder = 0;
  private readonly c: HostCounters = zeroHostCounters();
  /** The last rate changes for rateTrace(), when asked for (NicConfig.rateTraceCapacity). */
  private readonly trace: Ring<RateChange> | null;
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
  /** Reliability: sequence state, ACK/NAK, RTO and completions (gbn.ts). */
  private readonly rel: Transport;
  /** UET receiver credits (rccc/credits.ts): the pacer when this NIC pulls, senders' credit. */
  private readonly credits: ReceiverCredits;

  constructor(env: FirmwareEnv, cfg: NicConfig) {
    this.env = env;
    this.cfg = cfg;
    this.name = cfg.name;
    this.rateBps = cfg.port.rateBps;
    this.mtu = cfg.mtuBytes;
    const tx = new TxPort(env, cfg.port.rateBps);
    this.pause = new PfcPause(env, cfg.port.rateBps);
    this.ackPrio = cfg.ackPrio ?? cfg.controlPrio;
    this.port = new PortScheduler(
      env,
      tx,
      this.pause,
      { control: cfg.controlPrio, ack: this.ackPrio, data: cfg.dataPrio },
      {
        canSend: (qp) => this.rel.canSend(qp) && (qp.credit === null || this.credits.maySend(qp)),
        buildData: (qp) => this.buildData(qp),
        afterDataTx: (qp, pkt, startNs) => this.afterDataTx(qp, pkt, startNs),
        txDone: (pkt) => this.onTxDone(pkt),
      },
    );
    if (!(this.rateBps > 0)) throw new Error(`nic ${cfg.name}: port rate must be > 0`);
    if (!(this.mtu > 0) || !Number.isInteger(this.mtu))
      throw new Error(`nic ${cfg.name}: bad MTU ${cfg.mtuBytes}`);
    this.traceCapacity = Math.max(0, cfg.rateTraceCapacity ?? 0);
    this.trace =
      this.traceCapacity > 0 ? new Ring<RateChange>(Math.min(1024, Math.max(16, this.traceCapacity))) : null;
    this.cc = new CcHost(
      env,
      {
        setRate: (qp, rateBps, why) => this.setQpRate(qp, rateBps, why),
        setWindow: (qp, bytes, why) => this.setQpWindow(qp, bytes, why),
        sendCnp: (qp, fields) => this.queueCnp(qp, fields),
        dataPaused: () => this.pause.paused(this.cfg.dataPrio),
        inflightBytes: (qp) => this.rel.inflightBytes(qp),
        qp: (qpn) => this.qpOf(qpn),
        kick: () => this.port.kick(),
      },
      cfg.cnpMinIntervalNs,
    );
    this.hooks = cfg.trace ?? null;
    const host: TransportHost = {
      env,
      cfg,
      mtu: this.mtu,
      counters: this.c,
      cc: this.cc,
      ackPrio: this.ackPrio,
      queueAck: (ack) => this.port.acks.push(ack),
      reschedule: (qp) => this.port.reschedule(qp),
      kick: () => this.port.kick(),
      timedOut: (qp) => {
        const rc = qp.credit === null ? null : this.qpCreditRtt.get(qp.qpn);
        if (rc != null) this.credits.timedOut(qp, rc);
      },
    };
    const transport = cfg.transport ?? 'rocev2-gbn';
    if (transport === 'rocev2-gbn') this.rel = new GoBackN(host);
    else if (transport === 'rocev2-sr' || transport === 'uet') {
      if (cfg.sr === undefined)
        throw new Error(`nic ${cfg.name}: transport ${transport} needs its sr settings`);
      this.rel = new SelectiveRepeat(host, cfg.sr);
    } else throw new Error(`nic ${cfg.name}: unknown transport ${String(transport)}`);
    const rccc = cfg.rccc ?? null;
    if (rccc?.enabled && transport !== 'uet')
      throw new Error(`nic ${cfg.name}: receiver credits need transport uet, not ${transport}`);
    this.credits = new ReceiverCredits(
      {
        env,
        mtuBytes: this.mtu,
        frameBytes: dataFrameSizeBytes(this.mtu, null, true),
        lineRateBps: this.rateBps,
        ackPrio: this.ackPrio,
        queueControl: (pkt) => this.port.acks.push(pkt),
        reschedule: (qp) => this.port.reschedule(qp),
        kick: () => this.port.kick(),
        readyQps: () => this.port.ready.length,
      },
      rccc,
      `rccc:${cfg.name}`,
    );
  }

  /** Network RTT of the QPs with receiver credits (their RTS spacing), by QPN. */
  private readonly qpCreditRtt = new Map<number, number>();

  /**
   * The QP of number `qpn` (anything a frame carries: undefined when no QP has it). Every frame a
   * NIC receives names its QP, so this is an array index rather than a hash lookup (issue 36).
   */
  private qpOf(qpn: number): Qp | undefined {
    return qpn < QP_TABLE_SIZE ? this.qpTable[qpn] : this.qps.get(qpn);
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
    const credits = setup.receiverCredits ?? null;
    if (credits !== null) {
      if ((this.cfg.transport ?? 'rocev2-gbn') !== 'uet')
        throw new Error(`nic ${this.name}: QP ${qpn} has receiver credits, which need transport uet`);
      flow.receiverCredits = true;
    }
    flow.frameBytes = dataFrameSizeBytes(this.mtu, cc.features, credits !== null);
    const paths = this.cfg.paths ?? { policy: 'ecmp', count: DEFAULT_PATH_COUNT };
    // HPCC and MPCC read per-hop INT from consecutive ACKs: sprayed ACKs would mix the hops of
    // different paths into one estimate, so the NIC refuses the combination.
    if (paths.policy !== 'ecmp' && cc.features.int !== null)
      throw new Error(
        `nic ${this.name}: ${cc.name} reads per-hop INT and cannot run over path policy ${paths.policy}`,
      );
    qp.paths = new PathSelector(
      paths,
      setup.srcPort,
      paths.policy === 'ecmp' ? null : this.env.rng.fork(`paths:${this.name}:${qpn}`),
    );
    this.rel.attach(qp);
    if (credits !== null) {
      this.credits.attachSender(qp, credits.networkRttNs);
      this.qpCreditRtt.set(qpn, credits.networkRttNs);
    }
    this.qps.set(qpn, qp);
    if (qpn < QP_TABLE_SIZE) {
      while (this.qpTable.length < qpn) this.qpTable.push(undefined);
      this.qpTable[qpn] = qp;
    }
    this.byRemote.set(`${qp.remoteIp}:${qp.remoteQpn}`, qp);
    this.cc.attach(qp, cc, flow);
    this.port.kick();
  }

  post(msg: MessageRequest): void {
    const qp = this.qpOf(msg.qpn);
    if (qp === undefined) throw new Error(`nic ${this.name}: post on unknown QP ${msg.qpn}`);
    if (!Number.isInteger(msg.bytes) || msg.bytes < 0 || msg.bytes > MAX_MESSAGE_BYTES)
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
    this.port.reschedule(qp);
    this.port.kick();
  }

  expect(msg: MessageRequest): void {
    const qp = this.qpOf(msg.qpn);
    if (qp === undefined) throw new Error(`nic ${this.name}: expect on unknown QP ${msg.qpn}`);
    qp.expectQ.push(msg);
  }

  counters(): HostCounters {
    const p = this.pause;
    return {
      ...this.c,
      pfcPauseRx: p.pauseRx,
      pausedNs: p.pausedNs(this.env.now()),
      pullTx: this.credits.pullsSent,
      pullRx: this.credits.pullsReceived,
    };
  }

  qpRateBps(qpn: number): number {
    return this.qpOf(qpn)?.rateBps ?? Number.NaN;
  }

  qpWindowBytes(qpn: number): number | null {
    return this.qpOf(qpn)?.windowBytes ?? null;
  }

  qpInspect(qpn: number): Record<string, number> {
    const qp = this.qpOf(qpn);
    if (qp === undefined) return {};
    const out: Record<string, number> = { rateBps: qp.rateBps, inflightBytes: this.rel.inflightBytes(qp) };
    if (qp.windowBytes !== null) out.windowBytes = qp.windowBytes;
    if (!qp.paths.fixed) qp.paths.inspect(out);
    this.credits.inspect(qp, out);
    if (Number.isFinite(qp.srReorderThreshold)) out.reorderThreshold = qp.srReorderThreshold;
    const cc = this.cc.inspect(qp, this.env.now());
    return cc === undefined ? out : { ...out, ...cc };
  }

  rateTrace(): RateChange[] {
    return this.trace?.toArray() ?? [];
  }

  ccCounters(): Record<string, number> {
    return this.cc.counters();
  }

  multipath(): MultipathStats | null {
    const transport = this.cfg.transport ?? 'rocev2-gbn';
    const paths = this.cfg.paths ?? { policy: 'ecmp', count: DEFAULT_PATH_COUNT };
    if (transport === 'rocev2-gbn' && paths.policy === 'ecmp') return null;
    const entropies = paths.policy === 'ecmp' ? 1 : paths.count;
    const load = new Array<number>(entropies).fill(0);
    for (const qp of this.qps.values()) {
      const b = qp.paths.sentBytes;
      for (let i = 0; i < b.length && i < entropies; i++) load[i] += b[i];
    }
    const c = this.c;
    return {
      transport,
      policy: paths.policy,
      entropies,
      entropyTxBytes: load,
      dataBytesTx: c.dataBytesTx,
      retransmittedBytes: c.retransmittedBytes,
      nackRx: c.nackRx,
      nackTx: c.nackTx,
      trimmedRx: c.trimmedRx,
      timeouts: c.timeouts,
      outOfOrderRx: c.outOfOrderRx,
      reorderMaxPackets: c.reorderMaxPackets,
      reorderOverflowRx: c.reorderOverflowRx,
      ...(this.credits.receiving || this.qpCreditRtt.size > 0
        ? { pullTx: this.credits.pullsSent, pullRx: this.credits.pullsReceived }
        : {}),
    };
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
      case FrameKind.Pull:
        if (!this.credits.onPull(this.qpOf(pkt.destQp), pkt)) this.c.malformed++;
        break;
      default:
        this.c.malformed++;
        return;
    }
    this.port.kick();
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
      if (qp.sched === SCHED_HEAP) this.port.pacing.update(qp);
    }
    this.recordRate(qp, why);
  }

  private setQpWindow(qp: Qp, bytes: number | null, why: string): void {
    // At least one byte, so a window never stops a QP from having one packet in flight.
    const w = bytes === null || !Number.isFinite(bytes) ? null : Math.max(1, bytes);
    if (w === qp.windowBytes) return;
    qp.windowBytes = w;
    this.recordRate(qp, why);
    this.port.reschedule(qp);
  }

  private recordRate(qp: Qp, why: string): void {
    const change: RateChange = {
      qpn: qp.qpn,
      timeNs: this.env.now(),
      rateBps: qp.rateBps,
      windowBytes: qp.windowBytes,
      why,
    };
    if (this.trace !== null) {
      this.trace.push(change);
      if (this.trace.length > this.traceCapacity) this.trace.shift();
    }
    this.cfg.observer.onRateChange?.(change);
  }

  private queueCnp(qp: Qp, fields: CnpPayload | undefined): void {
    this.c.cnpTx++;
    const cnp = cnpFrame(qp.addr, this.cfg.controlPrio, fields);
    // The entropy of the newest data packet of the QP, like the ACKs (the connection's own port
    // when nothing sprays).
    cnp.srcPort = qp.rxPort;
    this.port.control.push(cnp);
  }

  /** A frame's last bit left the port. */
  private onTxDone(pkt: Packet): void {
    this.c.txBytes += pkt.sizeBytes;
    if (this.hooks !== null) this.hooks.tx(this.env.now(), pkt);
    this.env.send(0, pkt);
  }

  // -------------------------------------------------------------------------------------------
  // requester

  private buildData(qp: Qp): Packet {
    const n = this.rel.nextData(qp);
    const m = qp.msgs[n.msg];
    const k = n.index;
    const pkt = dataFrame(
      qp.addr,
      this.cfg.dataPrio,
      dataOpcode(m.verb, k, m.packets),
      psnOf(qp, n.seq),
      n.payloadBytes,
      n.ackReq,
    );
    pkt.srcPort = qp.paths.pick(n.payloadBytes, this.env.now());
    if (m.verb === 'write' && k === 0) {
      pkt.reth = {
        vaHi: Math.floor(m.startByte / 2 ** 32) >>> 0,
        vaLo: m.startByte >>> 0,
        rkey: qp.qpn,
        dmaLength: m.bytes,
      };
    }
    const f = this.cc.features(qp);
    if (f.int !== null) pkt.int = { layout: f.int, nhop: 0, hops: [] };
    if (f.txTimestamp) {
      pkt.ext = createExt();
      pkt.ext.txTsNs = this.env.now();
    }
    this.cc.decorateData(qp, pkt);
    if (qp.credit !== null) this.credits.dataBuilt(qp, pkt, qp.srLost);
    if (n.retransmit) {
      this.c.retransmits++;
      this.c.retransmittedBytes += n.payloadBytes;
    }
    this.c.dataPacketsTx++;
    this.c.dataBytesTx += n.payloadBytes;
    this.rel.dataBuilt(qp, pkt);
    this.txEv.retransmit = n.retransmit;
    this.txEv.bytes = n.payloadBytes;
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
    this.port.reschedule(qp);
  }

  private onAck(pkt: Packet): void {
    const qp = this.qpOf(pkt.destQp);
    if (qp === undefined || !isAckFrame(pkt)) {
      this.c.malformed++;
      return;
    }
    if (qp.credit !== null) this.credits.answered(qp);
    this.rel.onAck(qp, pkt);
  }

  private onCnp(pkt: Packet): void {
    const qp = this.qpOf(pkt.destQp);
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
    const qp = this.qpOf(pkt.destQp);
    if (qp === undefined || !isDataOpcode(pkt.opcode) || pkt.opcode >> 5 !== 0 || !(pkt.payloadLen >= 0)) {
      this.c.malformed++;
      return;
    }
    qp.ackRequested = false;
    qp.rxPort = pkt.srcPort;
    this.cc.npData(qp, pkt);
    if (this.credits.receiving) this.credits.onData(qp, pkt);
    this.rel.onData(qp, pkt);
  }

  // -------------------------------------------------------------------------------------------
  // PFC

  private onPfc(pkt: Packet): void {
    if (!receivePfc(this.pause, pkt, this.env.now())) this.c.malformed++;
  }
}

export function createNic(env: FirmwareEnv, config: NicConfig): Nic {
  return new NicImpl(env, config);
}
