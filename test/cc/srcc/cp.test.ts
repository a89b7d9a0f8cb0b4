/**
 * SRCC's switch side on one real switch (switch/switch.ts) with hand-made frames: congested-flow and victim
 * detection (strict and literal, SRCC §III-B), the CNM it sends (docs/wire.md §1.9 CNM; SRCC §III-D), the
 * per-flow rate limit, and the hop-by-hop relay through the flow table (docs/algorithms/srcc.md "Switch
 * side").
 */
import { describe, expect, it } from 'vitest';
import {
  createSrccCp,
  type SrccCnmEvent,
  type SrccCpConfig,
  type SrccDecision,
} from '../../../src/cc/srcc/cp.js';
import { flowId16 } from '../../../src/cc/srcc/flow-id.js';
import { cnmBody } from '../../../src/cc/testing/index.js';
import { CnmFlag } from '../../../src/wire/cnm.js';
import { FrameKind, type Packet } from '../../../src/wire/packet.js';
import { createPacket } from '../../../src/wire/packet-factory.js';
import { emulatedSizeBytes } from '../../../src/wire/size.js';
import { createSwitch } from '../../../switch/switch.js';
import {
  baseConfig,
  dataPkt,
  G,
  hostIp,
  makeWorld,
  pfcPkt,
  portCfg,
  type World,
} from '../../switch/harness.js';

// Ports: 0 = H1 (f_c → R1, f_v → R2), 1 = R1, 2 = R2, 3 = B (burst → R1).
const H1 = 0;
const R1 = 1;
const R2 = 2;
const B = 3;
const PORT_MAC = (i: number) => 0x020000000000 + i;
const PEER_MAC = (i: number) => 0x040000000000 + i;

const CFG: SrccCpConfig = {
  hopDelayNs: 4000,
  victimWindowNs: 48_540,
  activeWindowNs: 16_180,
  qFloorBytes: 2000,
  thresholdMode: 'eq6',
  fixedFraction: 0.4,
  kappa: 1,
  victimMode: 'strict',
  cnmIntervalFactor: 2,
  ttlInit: 64,
  flowTableAgeNs: 485_400,
  ftKeying: 'fullKey',
  cnmIpFallback: false,
  skipWhenEgressPaused: false,
  queueSampling: 'live',
  rateWindowNs: 4045,
};

interface Rig {
  w: World;
  at(tNs: number, port: number, pkt: Packet): void;
  cnms(): { tNs: number; port: number; pkt: Packet }[];
  decisions: SrccDecision[];
  events: SrccCnmEvent[];
  counters(): Record<string, number>;
}

function rig(over: Partial<SrccCpConfig> = {}, pfcThresholdBytes = 100_000): Rig {
  const w = makeWorld();
  const decisions: SrccDecision[] = [];
  const events: SrccCnmEvent[] = [];
  const sw = createSwitch(
    w.env,
    baseConfig({
      ports: [0, 1, 2, 3].map((i) => portCfg(100 * G, i)),
      routes: new Map([0, 1, 2, 3].map((i) => [hostIp(i), [i]])),
      pfc: {
        enabled: true,
        thresholdBytes: pfcThresholdBytes,
        dynamicAlpha: null,
        headroomBytes: 150_000,
        resumeOffsetBytes: 2000,
      },
      controlPrio: 7,
      cp: [
        createSrccCp(
          { ...CFG, ...over },
          { onDecision: (d) => decisions.push(d), onCnm: (e) => events.push(e) },
        ),
      ],
    }),
  );
  return {
    w,
    at: (tNs, port, pkt) => w.sched.setTimer(tNs, () => sw.receive(port, pkt)),
    cnms: () => w.sent.filter((s) => s.pkt.kind === FrameKind.Cnm),
    decisions,
    events,
    counters: () => sw.switchCounters().cp,
  };
}

/** A data frame of host `src` to host `dst` as it arrives from the host (TTL 64, src MAC = host). */
function data(src: number, dst: number, psn = 0, extra: Partial<Packet> = {}): Packet {
  const p = dataPkt({
    srcIp: hostIp(src),
    dstIp: hostIp(dst),
    srcPort: 0xc000 + dst,
    destQp: 0x100 + dst,
    psn,
    sizeBytes: 1062,
  });
  p.srcMac = PEER_MAC(src);
  return Object.assign(p, extra);
}

/** Ten burst frames from B into R1 at t = 0: R1's queue is 9 frames deep right after. */
function burst(r: Rig): void {
  for (let k = 0; k < 10; k++) r.at(0, B, data(B, R1, k));
}

describe('SRCC congested-flow and victim detection', () => {
  it('notifies the congested flow sharing its ingress with an uncongested one, and nobody else (strict)', () => {
    const r = rig();
    r.at(0, H1, data(H1, R2, 0)); // f_v: R2 idle → uncongested evidence on (H1, R2)
    burst(r);
    r.at(1, H1, data(H1, R1, 7)); // f_c into a 9-frame queue
    r.at(2, B, data(B, R1, 10)); // more burst: congested, but alone on its ingress
    r.w.sched.run(10_000);
    const cnms = r.cnms();
    expect(cnms).toHaveLength(1);
    const { tNs, port, pkt } = cnms[0];
    expect(port).toBe(H1);
    expect(pkt.srcMac).toBe(PORT_MAC(H1));
    expect(pkt.dstMac).toBe(PEER_MAC(H1));
    expect(pkt.prio).toBe(7);
    expect(pkt.sizeBytes).toBe(74);
    // Generated at t = 1 ns, behind nothing on the H1 port: on the wire 74 B · 0.08 ns later.
    expect(tNs).toBe(Math.ceil(1 + 74 * 0.08));
    const c = pkt.cnm!;
    // m = 2 flows into R1 (B's and f_c), M = 2 busy egress ports (R1, R2), N = 1.
    expect(c.mActive).toBe(2);
    expect(c.MActive).toBe(2);
    expect(c.nHops).toBe(1);
    expect(c.targetRateKbps).toBe(50_000_000);
    // Eq. 6: 100 000/2 − 1·50 000·(2 − 1) = 0 → clamped to Q_floor 2000; Q_e = 9 queued + 1 on the wire.
    expect(c.qCthRaw).toBe(0);
    expect(c.qLenBytes).toBe(10 * 1062);
    expect(c.flags).toBe(CnmFlag.FullFlowKey);
    expect(c.flowId).toBe(flowId16(hostIp(H1), hostIp(R1), 0xc000 + R1));
    expect([c.flowSrcIp, c.flowDstIp, c.flowSrcPort, c.flowDstPort, c.destQpn, c.triggerPsn]).toEqual([
      hostIp(H1),
      hostIp(R1),
      0xc000 + R1,
      4791,
      0x100 + R1,
      7,
    ]);
    expect(c.cpEgressPort).toBe(R1);
    expect(c.hopsTraversed).toBe(0);
    expect(r.counters().srccCnmGenerated).toBe(1);
    const fc = r.decisions.find((d) => d.srcIp === hostIp(H1) && d.dstIp === hostIp(R1))!;
    expect(fc).toMatchObject({ congested: true, victim: true, cnm: 'sent', qCthBytes: 2000 });
    const b = r.decisions.filter((d) => d.srcIp === hostIp(B) && d.congested);
    expect(b.length).toBeGreaterThan(0);
    expect(b.every((d) => d.victim === false)).toBe(true);
  });

  it('literal mode takes a flow’s own pre-congestion packets as victim evidence (P2)', () => {
    const strict = rig();
    const literal = rig({ victimMode: 'literal' });
    for (const r of [strict, literal]) {
      // No f_v at all. f_c's first frame and B's first frames find R1 empty ("uncongested").
      // R1 → R2 traffic only makes M = 2 (Eq. 6 then clamps to Q_floor), on a third ingress.
      r.at(0, R1, data(R1, R2, 0));
      r.at(0, H1, data(H1, R1, 0));
      burst(r);
      r.at(1, H1, data(H1, R1, 1));
      r.w.sched.run(10_000);
    }
    expect(strict.cnms()).toHaveLength(0);
    // Literal: B is notified (its third frame already sees 2 frames > Q_floor) and so is f_c.
    expect(
      literal
        .cnms()
        .map((c) => c.port)
        .sort(),
    ).toEqual([H1, B]);
  });

  it('evidence older than T does not count', () => {
    const cnmsWithEvidenceAt = (evidenceNs: number) => {
      const r = rig();
      r.at(evidenceNs, H1, data(H1, R2, 0));
      const t = 100_000;
      // 60 frames: with M = 1 (R2 idle for > W_active) Eq. 6 gives 100 000 − 50 000 = 50 000 B.
      for (let k = 0; k < 60; k++) r.at(t, B, data(B, R1, k));
      r.at(t + 1, H1, data(H1, R1, 7));
      r.w.sched.run(t + 10_000);
      const fc = r.decisions.find((d) => d.srcIp === hostIp(H1) && d.dstIp === hostIp(R1))!;
      expect(fc).toMatchObject({ congested: true, qCthBytes: 50_000 });
      return r.cnms().length;
    };
    // T = 48.54 µs before t + 1 ns: just inside, just outside.
    expect(cnmsWithEvidenceAt(100_001 - 48_540 + 1)).toBe(1);
    expect(cnmsWithEvidenceAt(100_001 - 48_540)).toBe(0);
  });

  it('at most one CNM per flow per τ_cnm = 2·N·d (8 µs here)', () => {
    const r = rig();
    r.at(0, H1, data(H1, R2, 0));
    // Keep R1's queue deep: 100 burst frames take 8.5 µs to drain.
    for (let k = 0; k < 100; k++) r.at(0, B, data(B, R1, k));
    for (const t of [1, 1000, 7999, 8001, 8100]) r.at(t, H1, data(H1, R1, t));
    r.at(8000, H1, data(H1, R2, 1)); // evidence stays fresh
    r.w.sched.run(20_000);
    expect(r.events.filter((e) => e.type === 'generated').map((e) => e.nowNs)).toEqual([1, 8001]);
    expect(r.counters().srccCnmSuppressed).toBe(3);
  });

  it('fixed threshold mode compares with f·Q_PFC; skipWhenEgressPaused holds CNMs back while R1 is paused', () => {
    const fixed = rig({ thresholdMode: 'fixed', fixedFraction: 0.4 });
    fixed.at(0, H1, data(H1, R2, 0));
    for (let k = 0; k < 10; k++) fixed.at(0, B, data(B, R1, k));
    fixed.at(1, H1, data(H1, R1, 7));
    fixed.w.sched.run(10_000);
    expect(fixed.cnms()).toHaveLength(0); // 9.6 KB < 40 KB
    expect(fixed.decisions.find((d) => d.srcIp === hostIp(H1) && d.dstIp === hostIp(R1))!.qCthBytes).toBe(
      40_000,
    );

    const paused = rig({ skipWhenEgressPaused: true });
    paused.at(0, R1, pfcPkt(1 << 3, [0, 0, 0, 65535, 0, 0, 0, 0]));
    paused.at(0, H1, data(H1, R2, 0));
    burst(paused);
    paused.at(1, H1, data(H1, R1, 7));
    paused.w.sched.run(10_000);
    expect(paused.cnms()).toHaveLength(0);
    expect(paused.counters().srccCnmEgressPaused).toBe(1);
  });

  it('eq5-measured lowers Q_cth by the measured excess arrival rate', () => {
    const r = rig({ thresholdMode: 'eq5-measured' }, 400_000);
    r.at(0, H1, data(H1, R2, 0));
    // One frame every 200 ns into R1 (≈ 42 Gb/s < C): no excess, Q_cth = Q_PFC/M.
    for (let k = 0; k < 20; k++) r.at(1000 + 200 * k, B, data(B, R1, k));
    // Then 100 frames at once: each adds 1062·8 bit / 4045 ns = 2.1 Gb/s to the EWMA, so it ends
    // above 210 Gb/s: an excess over C of > 110 Gb/s for d = 4 µs is > 55 000 B.
    for (let k = 0; k < 100; k++) r.at(20_000, H1, data(H1, R1, k));
    r.w.sched.run(30_000);
    const toR1 = r.decisions.filter((d) => d.outPort === R1);
    const sparse = toR1.filter((d) => d.nowNs < 20_000);
    expect(sparse.at(-1)!.qCthBytes).toBe(400_000 / sparse.at(-1)!.egressPorts);
    const last = toR1.at(-1)!;
    expect(last.qCthRawBytes).toBeLessThan(400_000 / last.egressPorts - 55_000);
  });

  it('lagged queue sampling sees the value of the previous arrival on that egress (P17)', () => {
    const r = rig({ queueSampling: 'lagged' });
    burst(r);
    r.w.sched.run(10_000);
    const q = r.decisions.map((d) => d.queueBytes);
    expect(q.slice(0, 4)).toEqual([0, 0, 1062, 2124]);
  });
});

function cnmFrame(dstMac: number, flowSrc: number, flowDst: number, hopsTraversed = 0): Packet {
  const p = createPacket();
  p.kind = FrameKind.Cnm;
  p.prio = 7;
  p.dstMac = dstMac;
  p.srcMac = PEER_MAC(R1);
  p.cnm = cnmBody({
    flowId: flowId16(hostIp(flowSrc), hostIp(flowDst), 0xc000 + flowDst),
    targetRateKbps: 1000,
    cpId: 9,
    nHops: 2,
    hopsTraversed,
    mActive: 3,
    flowSrcIp: hostIp(flowSrc),
    flowDstIp: hostIp(flowDst),
    flowSrcPort: 0xc000 + flowDst,
    destQpn: 0x100 + flowDst,
  });
  p.sizeBytes = emulatedSizeBytes(p);
  return p;
}

describe('SRCC hop-by-hop CNM relay', () => {
  it('forwards a CNM out of the port the flow came in on, to its previous hop, and counts the misses', () => {
    for (const keying of ['fullKey', 'crc16'] as const) {
      const r = rig({ ftKeying: keying });
      r.at(0, H1, data(H1, R1, 0)); // learn f_c: ingress H1, previous hop PEER_MAC(H1)
      r.at(1000, R1, cnmFrame(PORT_MAC(R1), H1, R1));
      r.at(2000, R1, cnmFrame(PORT_MAC(R1), B, R1)); // never seen: no entry
      r.at(3000, R1, cnmFrame(PORT_MAC(R2), H1, R1)); // not addressed to this port
      r.at(4000, R1, cnmFrame(PORT_MAC(R1), H1, R1, 16)); // 17th hop: loop guard
      r.w.sched.run(10_000);
      const out = r.cnms();
      expect(out).toHaveLength(1);
      expect(out[0].port).toBe(H1);
      expect(out[0].pkt.srcMac).toBe(PORT_MAC(H1));
      expect(out[0].pkt.dstMac).toBe(PEER_MAC(H1));
      expect(out[0].pkt.cnm!.hopsTraversed).toBe(1);
      expect(r.counters()).toMatchObject({
        srccCnmRelayed: 1,
        srccCnmNoEntry: 1,
        srccCnmBadMac: 1,
        srccCnmLoop: 1,
      });
    }
  });

  it('routes by IP toward the flow source when it has no entry and the fallback is on', () => {
    const r = rig({ cnmIpFallback: true });
    r.at(0, R1, cnmFrame(PORT_MAC(R1), H1, R1));
    r.w.sched.run(10_000);
    const out = r.cnms();
    expect(out).toHaveLength(1);
    expect(out[0].port).toBe(H1);
    expect(out[0].pkt.dstMac).toBe(PEER_MAC(H1));
    expect(out[0].pkt.cnm!.flags & CnmFlag.FallbackIpRouted).toBe(CnmFlag.FallbackIpRouted);
    expect(r.counters().srccCnmFallback).toBe(1);
  });

  it('forgets flows idle for T_age (lazy sweep)', () => {
    const r = rig({ flowTableAgeNs: 10_000 });
    r.at(0, H1, data(H1, R1, 0));
    r.at(0, H1, data(H1, R2, 0));
    r.at(15_000, H1, data(H1, R2, 1)); // sweep at 15 µs: both idle 15 µs > 10 µs, f_v re-learned
    r.at(16_000, R1, cnmFrame(PORT_MAC(R1), H1, R1));
    r.w.sched.run(20_000);
    expect(r.cnms()).toHaveLength(0);
    expect(r.counters().srccCnmNoEntry).toBe(1);
  });
});
