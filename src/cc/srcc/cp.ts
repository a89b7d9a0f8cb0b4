/**
 * SRCC's switch side (SRCC §III-B to §III-D, §IV; docs/algorithms/srcc.md "Switch side"): a CP
 * plug-in (switch/cp.ts) that runs at ingress on every switch of a run in which some host uses
 * `srcc`.
 *
 * Data frames: learn the reverse-path entry of the flow (previous-hop MAC, ingress port), keep
 * the activity counts m (flows into the egress) and M (busy egress ports), compare the egress
 * queue with Q_cth (Eq. 6 clamped, or a mode), record uncongested arrivals per (ingress, egress)
 * as victim evidence, and for a congested flow sharing its ingress with a recent uncongested one
 * emit a CNM on the ingress port, at most one per flow per τ_cnm.
 * CNM frames from downstream: relay one hop upstream through the flow table (hop by hop, by MAC).
 *
 * Everything is lazy (no timers): a run in which no queue crosses its threshold is bit-identical
 * to the same run without SRCC (AC7), since the plug-in draws no randomness and sends nothing.
 */

import type { SwitchCp, SwitchCpFactory, SwitchCpIo } from '../../../switch/cp.js';
import { ActiveFlowCounter } from '../../../switch/flow-counter.js';
import { CNM_MAX_HOPS_TRAVERSED, CnmFlag } from '../../wire/cnm.js';
import { type CnmBody, FrameKind, type Packet } from '../../wire/packet.js';
import { createPacket } from '../../wire/packet-factory.js';
import { emulatedSizeBytes } from '../../wire/size.js';
import { flowId16, ROCE_UDP_PORT } from './flow-id.js';
import {
  bytesInFlight,
  clampThresholdBytes,
  cnmIntervalNs,
  encodeTargetKbps,
  eq5ThresholdBytes,
  eq6ThresholdBytes,
  hopsFromSource,
  targetRateBps,
  toInt32,
} from './threshold.js';

/** Switch-side settings, resolved from the parameters and the topology (config.ts). */
export interface SrccCpConfig {
  hopDelayNs: number;
  /** T: victim-detection window, ns. */
  victimWindowNs: number;
  /** W_active, ns. */
  activeWindowNs: number;
  qFloorBytes: number;
  thresholdMode: 'eq6' | 'eq5-measured' | 'fixed';
  fixedFraction: number;
  kappa: number;
  victimMode: 'strict' | 'literal';
  cnmIntervalFactor: number;
  ttlInit: number;
  /** T_age, ns. */
  flowTableAgeNs: number;
  ftKeying: 'fullKey' | 'crc16';
  cnmIpFallback: boolean;
  skipWhenEgressPaused: boolean;
  queueSampling: 'live' | 'lagged';
  /** Time constant of the arrival-rate EWMA of 'eq5-measured', ns. */
  rateWindowNs: number;
}

/** One threshold decision on a data frame (only built when an observer listens). */
export interface SrccDecision {
  switchName: string;
  nowNs: number;
  inPort: number;
  outPort: number;
  srcIp: number;
  dstIp: number;
  srcPort: number;
  destQp: number;
  psn: number;
  hops: number;
  flows: number;
  egressPorts: number;
  queueBytes: number;
  qPfcBytes: number;
  qCthRawBytes: number;
  qCthBytes: number;
  congested: boolean;
  /** Victim evidence on the ingress (null when not congested). */
  victim: boolean | null;
  /** What happened: a CNM left, was rate-limited, or was skipped because the egress is paused. */
  cnm: 'sent' | 'suppressed' | 'egressPaused' | null;
}

export interface SrccCnmEvent {
  type: 'generated' | 'relayed' | 'fallback' | 'noEntry' | 'loop' | 'badMac' | 'dropped';
  switchName: string;
  nowNs: number;
  /** Port the CNM left on (generated/relayed/fallback) or arrived on. */
  port: number;
  /** A copy of the body as sent (or as received, for drops). */
  body: CnmBody;
}

export interface SrccCpObserver {
  onDecision?(d: SrccDecision): void;
  onCnm?(e: SrccCnmEvent): void;
}

/** The plug-in object, with two test hooks (AC6 fault injection). */
export interface SrccCp extends SwitchCp {
  onIngress(pkt: Packet, inPort: number, outPort: number): boolean | undefined;
  /** Delete the flow-table entry of a flow; true when there was one. */
  forgetFlow(srcIp: number, srcPort: number, dstIp: number, destQp: number): boolean;
  flowTableSize(): number;
}

interface FlowEntry {
  dstIp: number;
  destQp: number;
  /** Only meaningful under crc16 keying (the key itself otherwise). */
  srcIp: number;
  srcPort: number;
  inPort: number;
  prevHopMac: number;
  lastSeenNs: number;
  lastCnmNs: number;
  next: FlowEntry | null;
}

export function createSrccCp(cfg: SrccCpConfig, observer: SrccCpObserver | null = null): SwitchCpFactory {
  return (io) => new SrccSwitch(io, cfg, observer);
}

class SrccSwitch implements SrccCp {
  readonly name = 'srcc';
  private readonly n: number;
  /** Last uncongested data arrival per (ingress, egress), and per ingress (literal mode). */
  private readonly tUf: Float64Array;
  private readonly tUfAny: Float64Array;
  private readonly active: ActiveFlowCounter[] = [];
  private readonly lastDataNs: Float64Array;
  private readonly laggedQueue: Float64Array;
  private readonly arrivalBps: Float64Array;
  private readonly arrivalAtNs: Float64Array;
  /** Reverse-path table: key → entries (chained for full keys sharing srcIp/srcPort). */
  private readonly ft = new Map<number, FlowEntry>();
  private ftSize = 0;
  private nextSweepNs: number;

  constructor(
    private readonly io: SwitchCpIo,
    private readonly cfg: SrccCpConfig,
    private readonly observer: SrccCpObserver | null,
  ) {
    const n = io.portCount;
    this.n = n;
    this.tUf = new Float64Array(n * n).fill(Number.NEGATIVE_INFINITY);
    this.tUfAny = new Float64Array(n).fill(Number.NEGATIVE_INFINITY);
    this.lastDataNs = new Float64Array(n).fill(Number.NEGATIVE_INFINITY);
    this.laggedQueue = new Float64Array(n);
    this.arrivalBps = new Float64Array(n);
    this.arrivalAtNs = new Float64Array(n);
    for (let p = 0; p < n; p++) this.active.push(new ActiveFlowCounter(Math.max(1, cfg.activeWindowNs)));
    this.nextSweepNs = cfg.flowTableAgeNs;
  }

  onIngress(pkt: Packet, inPort: number, outPort: number): boolean | undefined {
    if (pkt.kind === FrameKind.Cnm) {
      this.relay(pkt, inPort);
      return true;
    }
    if (pkt.kind === FrameKind.Data && outPort >= 0) this.onData(pkt, inPort, outPort);
    return undefined;
  }

  // ------------------------------------------------------------------------------ data frames

  private onData(pkt: Packet, inPort: number, outPort: number): void {
    const io = this.io;
    const cfg = this.cfg;
    const now = io.now();
    const ent = this.learn(pkt, inPort, now);
    this.active[outPort].touch(pkt.srcIp, pkt.dstIp, pkt.destQp, now);
    this.lastDataNs[outPort] = now;
    const prio = pkt.prio;
    let queueBytes = io.queueBytesOf(outPort, prio) + io.inFlightBytesOf(outPort, prio);
    if (cfg.queueSampling === 'lagged') {
      const seen = this.laggedQueue[outPort];
      this.laggedQueue[outPort] = queueBytes;
      queueBytes = seen;
    }
    if (cfg.thresholdMode === 'eq5-measured') this.measureArrival(outPort, pkt.sizeBytes, now);
    const qPfcBytes = io.pfcXoffBytes(inPort, prio);

    // Every threshold is at least this, so a short queue is uncongested without counting m, M.
    const lowerBound =
      cfg.thresholdMode === 'fixed'
        ? cfg.fixedFraction * qPfcBytes
        : Math.min(cfg.qFloorBytes, qPfcBytes / this.n);
    if (queueBytes <= lowerBound && this.observer?.onDecision === undefined) {
      this.markUncongested(inPort, outPort, now);
      return;
    }

    const hops = hopsFromSource(pkt.ttl, cfg.ttlInit);
    const flows = this.active[outPort].count(now);
    const egressPorts = this.activeEgressPorts(now);
    const rateBps = io.portRateBps(outPort);
    let raw: number;
    let qCth: number;
    if (cfg.thresholdMode === 'fixed') {
      raw = cfg.fixedFraction * qPfcBytes;
      qCth = raw;
    } else {
      raw =
        cfg.thresholdMode === 'eq6'
          ? eq6ThresholdBytes(
              qPfcBytes,
              egressPorts,
              hops,
              bytesInFlight(rateBps, cfg.hopDelayNs),
              flows,
              cfg.kappa,
            )
          : eq5ThresholdBytes(
              qPfcBytes,
              egressPorts,
              hops,
              cfg.hopDelayNs,
              this.arrivalRateAt(outPort, now),
              rateBps,
              cfg.kappa,
            );
      qCth = clampThresholdBytes(raw, cfg.qFloorBytes, qPfcBytes, egressPorts);
    }
    const congested = queueBytes > qCth;
    let victim: boolean | null = null;
    let outcome: SrccDecision['cnm'] = null;
    if (!congested) {
      this.markUncongested(inPort, outPort, now);
    } else {
      victim = this.hasVictimEvidence(inPort, outPort, now);
      if (victim) {
        if (cfg.skipWhenEgressPaused && io.egressPaused(outPort, prio)) {
          outcome = 'egressPaused';
          io.count('srccCnmEgressPaused');
        } else if (now - ent.lastCnmNs < cnmIntervalNs(cfg.cnmIntervalFactor, hops, cfg.hopDelayNs)) {
          outcome = 'suppressed';
          io.count('srccCnmSuppressed');
        } else {
          outcome = 'sent';
          ent.lastCnmNs = now;
          this.sendCnm(pkt, inPort, outPort, {
            hops,
            flows,
            egressPorts,
            queueBytes,
            raw,
            targetBps: targetRateBps(rateBps, flows),
            now,
          });
        }
      }
    }
    if (this.observer?.onDecision !== undefined) {
      this.observer.onDecision({
        switchName: io.switchName,
        nowNs: now,
        inPort,
        outPort,
        srcIp: pkt.srcIp,
        dstIp: pkt.dstIp,
        srcPort: pkt.srcPort,
        destQp: pkt.destQp,
        psn: pkt.psn,
        hops,
        flows,
        egressPorts,
        queueBytes,
        qPfcBytes,
        qCthRawBytes: raw,
        qCthBytes: qCth,
        congested,
        victim,
        cnm: outcome,
      });
    }
  }

  private markUncongested(inPort: number, outPort: number, now: number): void {
    this.tUf[inPort * this.n + outPort] = now;
    this.tUfAny[inPort] = now;
  }

  /**
   * SRCC §III-B in the corrected sense (P1 in docs/algorithms/srcc.md): a recent uncongested arrival on the
   * same ingress means a flow that a PAUSE of this ingress would block. Strict mode only accepts evidence for
   * another egress, so a congested flow's own pre-congestion packets do not count (P2).
   */
  private hasVictimEvidence(inPort: number, outPort: number, now: number): boolean {
    const T = this.cfg.victimWindowNs;
    if (this.cfg.victimMode === 'literal') return now - this.tUfAny[inPort] < T;
    const row = inPort * this.n;
    for (let e = 0; e < this.n; e++) {
      if (e !== outPort && now - this.tUf[row + e] < T) return true;
    }
    return false;
  }

  /** M: egress ports that received a data frame within W_active (at least the current one). */
  private activeEgressPorts(now: number): number {
    const since = now - this.cfg.activeWindowNs;
    let M = 0;
    for (let e = 0; e < this.n; e++) if (this.lastDataNs[e] >= since) M++;
    return Math.max(1, M);
  }

  private measureArrival(port: number, sizeBytes: number, now: number): void {
    this.arrivalBps[port] = this.arrivalRateAt(port, now) + (sizeBytes * 8e9) / this.cfg.rateWindowNs;
    this.arrivalAtNs[port] = now;
  }

  /** EWMA of the arrival rate with time constant rateWindowNs, decayed to `now`. */
  private arrivalRateAt(port: number, now: number): number {
    const dt = now - this.arrivalAtNs[port];
    return this.arrivalBps[port] * Math.exp(-dt / this.cfg.rateWindowNs);
  }

  private sendCnm(
    pkt: Packet,
    inPort: number,
    outPort: number,
    d: {
      hops: number;
      flows: number;
      egressPorts: number;
      queueBytes: number;
      raw: number;
      targetBps: number;
      now: number;
    },
  ): void {
    const io = this.io;
    const c = createPacket();
    c.kind = FrameKind.Cnm;
    c.prio = io.controlPrio;
    // Back to the previous hop of the data frame, out of the port it came in on (docs/algorithms/srcc.md
    // "Switch side").
    c.srcMac = io.portMac(inPort);
    c.dstMac = pkt.srcMac;
    // Not on the wire (a CNM is L2 only); used by the IP fallback and the switch's validation.
    c.srcIp = pkt.dstIp;
    c.dstIp = pkt.srcIp;
    c.cnm = {
      flags: CnmFlag.FullFlowKey,
      flowId: flowId16(pkt.srcIp, pkt.dstIp, pkt.srcPort),
      targetRateKbps: encodeTargetKbps(d.targetBps),
      cpId: io.switchId >>> 0,
      nHops: Math.min(255, d.hops),
      hopsTraversed: 0,
      mActive: Math.min(0xffff, d.flows),
      MActive: Math.min(255, d.egressPorts),
      cpEgressPort: Math.min(255, outPort),
      qLenBytes: Math.min(0xffffffff, Math.round(d.queueBytes)),
      qCthRaw: toInt32(d.raw),
      flowSrcIp: pkt.srcIp >>> 0,
      flowDstIp: pkt.dstIp >>> 0,
      flowSrcPort: pkt.srcPort,
      flowDstPort: ROCE_UDP_PORT,
      destQpn: pkt.destQp,
      triggerPsn: pkt.psn,
      cpTimestampNs: d.now,
    };
    c.sizeBytes = emulatedSizeBytes(c);
    c.id = io.nextPacketId();
    if (io.sendControl(inPort, c)) {
      io.count('srccCnmGenerated');
      this.emit('generated', inPort, c.cnm, d.now);
    } else {
      io.count('srccCnmDropped');
      this.emit('dropped', inPort, c.cnm, d.now);
    }
  }

  // ------------------------------------------------------------------------------ flow table

  private keyOf(srcIp: number, srcPort: number, dstIp: number): number {
    return this.cfg.ftKeying === 'crc16'
      ? flowId16(srcIp, dstIp, srcPort)
      : (srcIp >>> 0) * 0x10000 + (srcPort & 0xffff);
  }

  private find(srcIp: number, srcPort: number, dstIp: number, destQp: number): FlowEntry | null {
    const head = this.ft.get(this.keyOf(srcIp, srcPort, dstIp));
    if (head === undefined) return null;
    // A 16-bit id names one entry whatever flow wrote it last (hardware-faithful collisions).
    if (this.cfg.ftKeying === 'crc16') return head;
    for (let e: FlowEntry | null = head; e !== null; e = e.next) {
      if (e.dstIp === dstIp >>> 0 && e.destQp === destQp) return e;
    }
    return null;
  }

  /** Every data frame refreshes its flow's reverse-path entry (P10: all flows, all switches). */
  private learn(pkt: Packet, inPort: number, now: number): FlowEntry {
    if (now >= this.nextSweepNs) this.sweep(now);
    const key = this.keyOf(pkt.srcIp, pkt.srcPort, pkt.dstIp);
    const head = this.ft.get(key);
    let e: FlowEntry | null = null;
    if (head !== undefined) {
      if (this.cfg.ftKeying === 'crc16') e = head;
      else
        for (let x: FlowEntry | null = head; x !== null; x = x.next)
          if (x.dstIp === pkt.dstIp >>> 0 && x.destQp === pkt.destQp) {
            e = x;
            break;
          }
    }
    if (e === null) {
      e = {
        dstIp: pkt.dstIp >>> 0,
        destQp: pkt.destQp,
        srcIp: pkt.srcIp >>> 0,
        srcPort: pkt.srcPort,
        inPort,
        prevHopMac: pkt.srcMac,
        lastSeenNs: now,
        lastCnmNs: Number.NEGATIVE_INFINITY,
        next: head ?? null,
      };
      this.ft.set(key, e);
      this.ftSize++;
      return e;
    }
    if (
      this.cfg.ftKeying === 'crc16' &&
      (e.srcIp !== pkt.srcIp >>> 0 ||
        e.srcPort !== pkt.srcPort ||
        e.dstIp !== pkt.dstIp >>> 0 ||
        e.destQp !== pkt.destQp)
    ) {
      // Another flow with the same id takes the slot over, rate-limit state included.
      e.srcIp = pkt.srcIp >>> 0;
      e.srcPort = pkt.srcPort;
      e.dstIp = pkt.dstIp >>> 0;
      e.destQp = pkt.destQp;
      e.lastCnmNs = Number.NEGATIVE_INFINITY;
    }
    e.inPort = inPort;
    e.prevHopMac = pkt.srcMac;
    e.lastSeenNs = now;
    return e;
  }

  /**
   * Lazy ageing (docs/algorithms/srcc.md "Switch side"): at most once per T_age, drop entries idle for T_age.
   */
  private sweep(now: number): void {
    const age = this.cfg.flowTableAgeNs;
    this.nextSweepNs = now + Math.max(1, age);
    for (const [key, head] of this.ft) {
      let kept: FlowEntry | null = null;
      let e: FlowEntry | null = head;
      while (e !== null) {
        const next: FlowEntry | null = e.next;
        if (now - e.lastSeenNs <= age) {
          e.next = kept;
          kept = e;
        } else {
          this.ftSize--;
        }
        e = next;
      }
      if (kept === null) this.ft.delete(key);
      else this.ft.set(key, kept);
    }
  }

  forgetFlow(srcIp: number, srcPort: number, dstIp: number, destQp: number): boolean {
    const key = this.keyOf(srcIp, srcPort, dstIp);
    const head = this.ft.get(key);
    if (head === undefined) return false;
    let prev: FlowEntry | null = null;
    for (let e: FlowEntry | null = head; e !== null; prev = e, e = e.next) {
      if (this.cfg.ftKeying === 'crc16' || (e.dstIp === dstIp >>> 0 && e.destQp === destQp)) {
        if (prev === null) {
          if (e.next === null) this.ft.delete(key);
          else this.ft.set(key, e.next);
        } else {
          prev.next = e.next;
        }
        this.ftSize--;
        return true;
      }
    }
    return false;
  }

  flowTableSize(): number {
    return this.ftSize;
  }

  // ------------------------------------------------------------------------------ CNM relay

  private relay(pkt: Packet, inPort: number): void {
    const io = this.io;
    const c = pkt.cnm;
    const now = io.now();
    if (c === null) return;
    if (pkt.dstMac !== io.portMac(inPort)) {
      io.count('srccCnmBadMac');
      this.emit('badMac', inPort, c, now);
      return;
    }
    c.hopsTraversed++;
    if (c.hopsTraversed > CNM_MAX_HOPS_TRAVERSED) {
      io.count('srccCnmLoop');
      this.emit('loop', inPort, c, now);
      return;
    }
    const ent =
      this.cfg.ftKeying === 'crc16'
        ? (this.ft.get(c.flowId) ?? null)
        : this.find(c.flowSrcIp, c.flowSrcPort, c.flowDstIp, c.destQpn);
    if (ent === null) {
      if (this.cfg.cnmIpFallback) {
        pkt.dstIp = c.flowSrcIp;
        pkt.srcIp = c.flowDstIp;
        pkt.srcPort = c.flowSrcPort;
        const out = io.route(pkt);
        if (out >= 0) {
          c.flags |= CnmFlag.FallbackIpRouted;
          pkt.srcMac = io.portMac(out);
          pkt.dstMac = io.peerMac(out);
          if (io.sendControl(out, pkt)) {
            io.count('srccCnmFallback');
            this.emit('fallback', out, c, now);
            return;
          }
        }
      }
      io.count('srccCnmNoEntry');
      this.emit('noEntry', inPort, c, now);
      return;
    }
    pkt.srcMac = io.portMac(ent.inPort);
    pkt.dstMac = ent.prevHopMac;
    if (io.sendControl(ent.inPort, pkt)) {
      io.count('srccCnmRelayed');
      this.emit('relayed', ent.inPort, c, now);
    } else {
      io.count('srccCnmDropped');
      this.emit('dropped', ent.inPort, c, now);
    }
  }

  private emit(type: SrccCnmEvent['type'], port: number, body: CnmBody, nowNs: number): void {
    this.observer?.onCnm?.({ type, switchName: this.io.switchName, nowNs, port, body: { ...body } });
  }
}
