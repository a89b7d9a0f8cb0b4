/**
 * RCCC bound into the NIC's `uet` transport (docs/algorithms/rccc.md): the sender's credit
 * (sender-credit.ts) on the QPs whose receiver pulls, and this NIC's pull pacer (pull-pacer.ts),
 * its per-sender sinks and the optional oversubscription control (oversubscription.ts) when this
 * NIC receives with credits. The NIC calls in at five points: may a QP send, a data frame was
 * built, an ACK/NACK/pull arrived, a data frame arrived, a retransmission timed out. Everything
 * else (the reliability rules, the window of a sender CC) stays the transport's and the CC's.
 *
 * On the wire: a data frame carries its sender's pull target (docs/wire.md §3 option 0x17), the
 * receiver answers with pull frames (opcode 0xC0, §1.6a) through the ACK queue, as the reference
 * simulator's NIC sends pulls and ACKs from one control queue. Sans-IO.
 */
import type { FirmwareEnv, TimerId } from '../../src/env/env.js';
import { Opcode } from '../../src/wire/opcodes.js';
import { Ecn, FrameKind, type Packet } from '../../src/wire/packet.js';
import { createExt, createPacket } from '../../src/wire/packet-factory.js';
import { unwrapQuanta } from '../../src/wire/pull.js';
import { emulatedSizeBytes } from '../../src/wire/size.js';
import { DATA_DSCP, DEFAULT_PKEY, IP_TTL } from '../frames.js';
import type { Qp } from '../qp.js';
import { OversubscriptionControl } from './oversubscription.js';
import { PullPacer, RcccSink } from './pull-pacer.js';
import { RcccCredit } from './sender-credit.js';
import { creditPerPullQuanta, minRelativeRate, type RcccNicConfig, rcccMaxWndBytes } from './settings.js';

/** What the credits need from the NIC. */
export interface CreditsHost {
  readonly env: FirmwareEnv;
  /** Payload MTU, and the wire bytes of a full-MTU data frame of a QP with receiver credits. */
  readonly mtuBytes: number;
  readonly frameBytes: number;
  readonly lineRateBps: number;
  readonly ackPrio: number;
  /** Queue a control frame behind the ACKs already waiting. */
  queueControl(pkt: Packet): void;
  reschedule(qp: Qp): void;
  kick(): void;
  /** QPs the port has ready to send besides the one sending (the reference's activeSources). */
  readyQps(): number;
}

/** Entropies a sink's pulls rotate over (the reference's UecSink TGT_EV_SIZE: 7 bits). */
const PULL_ENTROPY_MASK = 0x7f;

export class ReceiverCredits {
  /** This NIC's pacer, when it receives with credits. */
  private readonly pacer: PullPacer | null;
  private readonly oversub: OversubscriptionControl | null;
  private readonly sinks = new Map<RcccSink, Qp>();
  private pacerTimer: TimerId | null = null;
  private readonly onPacerTimer = (): void => {
    this.pacerTimer = null;
    this.pacer!.onTimer();
    this.host.kick();
  };
  pullsSent = 0;
  pullsReceived = 0;

  constructor(
    private readonly host: CreditsHost,
    /** This NIC's receive side, or null when it does not pull. */
    private readonly cfg: RcccNicConfig | null,
    rngName: string,
  ) {
    if (cfg === null || !cfg.enabled) {
      this.pacer = null;
      this.oversub = null;
      return;
    }
    const env = host.env;
    this.pacer = new PullPacer(
      {
        lineRateBps: host.lineRateBps,
        pullRate: cfg.pullRate,
        creditPerPullQuanta: creditPerPullQuanta(cfg, host.mtuBytes),
      },
      {
        now: () => env.now(),
        setTimer: (atNs) => {
          if (this.pacerTimer !== null) env.cancelTimer(this.pacerTimer);
          this.pacerTimer = env.setTimer(Math.max(env.now(), Math.ceil(atNs - 1e-6)), this.onPacerTimer);
        },
        sendPull: (sink, quanta, slow) => this.sendPull(sink, quanta, slow),
      },
    );
    if (cfg.oversubscriptionRatio === null) {
      this.oversub = null;
      return;
    }
    const rng = env.rng.fork(rngName);
    const ctl = new OversubscriptionControl(
      {
        baseRttNs: cfg.networkRttNs,
        minRate: minRelativeRate(cfg.oversubscriptionRatio),
        targetCongestion: cfg.targetCongestion,
        rateAi: cfg.rateAi,
        rateMd: cfg.rateMd,
        gain: cfg.gain,
      },
      {
        now: () => env.now(),
        rng,
        setTimer: (atNs) => {
          env.setTimer(Math.ceil(atNs), () => ctl.onTimer());
        },
        setRate: (r) => this.pacer!.setRelativeRate(r),
      },
    );
    this.oversub = ctl;
    ctl.start();
  }

  /** True when this NIC pulls for the flows it receives. */
  get receiving(): boolean {
    return this.pacer !== null;
  }

  // -------------------------------------------------------------------------------------------
  // sender

  /** A QP whose receiver pulls (QpSetup.receiverCredits): one maxwnd of speculative credit. */
  attachSender(qp: Qp, networkRttNs: number): void {
    const c = new RcccCredit(Math.floor(rcccMaxWndBytes(networkRttNs, this.host.lineRateBps)));
    c.start();
    qp.credit = c;
  }

  /** The QP holds credit, or a timed-out packet may go out to ask for some. */
  maySend(qp: Qp): boolean {
    const c = qp.credit;
    return c === null || c.canSend() || qp.creditRtsDue;
  }

  /**
   * The data frame `pkt` of `qp` is built: it carries the pull target and spends its wire bytes
   * of credit (UecSrc::sendNewPacket / sendRtxPacket: spend, then compute the target).
   */
  dataBuilt(qp: Qp, pkt: Packet, lostPackets: number): void {
    const c = qp.credit;
    if (c === null) return;
    qp.creditRtsDue = false;
    if (pkt.ext === null) pkt.ext = createExt();
    pkt.ext.pullTarget = 0;
    c.spend(emulatedSizeBytes(pkt));
    const h = this.host;
    const overhead = h.frameBytes - h.mtuBytes;
    const target = c.pullTarget({
      backlogBytes: qp.postedBytes - qp.nxtByte + (qp.sndMax - qp.sndNxt) * overhead,
      rtxBacklogBytes: lostPackets * h.frameBytes,
      cwndBytes: qp.windowBytes === null ? null : qp.windowBytes + overhead * (qp.windowBytes / h.mtuBytes),
      mtuBytes: h.frameBytes,
      activeSources: h.readyQps() + 1,
    });
    pkt.ext.pullTarget = target >>> 0;
    // Out of credit: ask for an ACK at once (the reference's AckReq when credit <= 0).
    if (c.creditBytes <= 0) pkt.ackReq = true;
  }

  /** An ACK or NACK of `qp` arrived: the receiver answered, speculation ends. */
  answered(qp: Qp): void {
    qp.credit?.stopSpeculating();
  }

  /** A pull frame arrived. Returns false when it names no QP with credits (malformed). */
  onPull(qp: Qp | undefined, pkt: Packet): boolean {
    const pull = pkt.ext?.pull ?? null;
    if (qp === undefined || qp.credit === null || pull === null) return false;
    this.pullsReceived++;
    const c = qp.credit;
    c.onPull(unwrapQuanta(pull.quanta, c.pullQuanta));
    this.host.reschedule(qp);
    return true;
  }

  /**
   * A packet of `qp` timed out: with no credit left, the next one may go anyway, at most once per
   * network RTT (the reference sends a request-to-send then; our resent packet carries the pull
   * target that asks the receiver for credit again).
   */
  timedOut(qp: Qp, networkRttNs: number): void {
    const c = qp.credit;
    if (c === null) return;
    c.stopSpeculating();
    const now = this.host.env.now();
    if (c.canSend() || now - qp.creditLastRtsNs < networkRttNs) return;
    qp.creditLastRtsNs = now;
    qp.creditRtsDue = true;
    this.host.reschedule(qp);
  }

  // -------------------------------------------------------------------------------------------
  // receiver

  /** A data frame (full or trimmed) arrived for local QP `qp`. */
  onData(qp: Qp, pkt: Packet): void {
    const pacer = this.pacer;
    if (pacer === null) return;
    const target = pkt.ext?.pullTarget ?? null;
    const trimmed = pkt.trimHop > 0;
    if (this.oversub !== null) {
      this.oversub.onPacket();
      if (trimmed) this.oversub.onTrimmed(pkt.trimLastHop);
      else if (pkt.ecn === Ecn.Ce) this.oversub.onEcn();
    }
    if (target === null) return;
    let sink = qp.sink;
    if (sink === null) {
      const maxWnd = Math.floor(rcccMaxWndBytes(this.cfg!.networkRttNs, this.host.lineRateBps));
      sink = new RcccSink(qp.qpn, maxWnd);
      qp.sink = sink;
      this.sinks.set(sink, qp);
    }
    pacer.onPullTarget(sink, unwrapQuanta(target, sink.highestPullTarget));
    // A trimmed packet will be resent: its sender needs credit (UecSink::processTrimmed).
    if (trimmed) pacer.onRetransmitNeeded(sink);
  }

  /** Variables for results and inspection. */
  inspect(qp: Qp, out: Record<string, number>): void {
    if (qp.credit !== null) {
      out.rcccCreditBytes = qp.credit.creditBytes;
      out.rcccSpeculating = qp.credit.speculating ? 1 : 0;
    }
    if (qp.sink !== null) {
      out.rcccPullQuanta = qp.sink.latestPull;
      out.rcccTargetQuanta = qp.sink.highestPullTarget;
    }
    if (this.pacer !== null) out.rcccPullRate = this.pacer.rate;
  }

  private sendPull(sink: RcccSink, quanta: number, slow: boolean): void {
    const qp = this.sinks.get(sink);
    if (qp === undefined) return;
    this.pullsSent++;
    const a = qp.addr;
    const pkt = createPacket();
    pkt.kind = FrameKind.Pull;
    pkt.prio = this.host.ackPrio;
    pkt.srcMac = a.srcMac;
    pkt.dstMac = a.dstMac;
    pkt.srcIp = a.srcIp;
    pkt.dstIp = a.dstIp;
    // Pulls are sprayed: the sink's own rotating entropy (UecSink::nextEntropy).
    qp.pullEntropy = (qp.pullEntropy + 1) & PULL_ENTROPY_MASK;
    pkt.srcPort = (a.srcPort & ~PULL_ENTROPY_MASK) | qp.pullEntropy;
    pkt.destQp = a.destQp;
    pkt.dscp = DATA_DSCP;
    pkt.ecn = Ecn.Ect0;
    pkt.ttl = IP_TTL;
    pkt.pkey = DEFAULT_PKEY;
    pkt.opcode = Opcode.UetPull;
    pkt.ext = createExt();
    pkt.ext.pull = { quanta: quanta % 2 ** 32, slow };
    this.host.queueControl(pkt);
  }
}
