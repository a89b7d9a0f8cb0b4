/**
 * SRCC's reaction point (SRCC §III-E; docs/algorithms/srcc.md "NIC side") driven by hand: CNM resets as min,
 * RT rules, "hold while notified", the CNP hold window, flow matching and the PSN-echo latency. Rates in Gb/s
 * in the comments; C = 100 Gb/s.
 */
import { describe, expect, it } from 'vitest';
import { initDcqcn } from '../../../src/cc/dcqcn/rp.js';
import { resolveParams } from '../../../src/cc/registry.js';
import { flowId16 } from '../../../src/cc/srcc/flow-id.js';
import type { SrccParams } from '../../../src/cc/srcc/params.js';
import { alphaOnlyCnp, cnmStep } from '../../../src/cc/srcc/reaction.js';
import { type SrccState, srccRp } from '../../../src/cc/srcc/rp.js';
import { cnmBody, driveRp, flowInfo } from '../../../src/cc/testing/index.js';
import { createRng } from '../../../src/env/rng.js';
import { FrameKind } from '../../../src/wire/packet.js';
import { createPacket } from '../../../src/wire/packet-factory.js';

const G = 1e9;
const SRC = 0x0a000001;
const DST = 0x0a000002;
const SPORT = 0xc001;

function rig(over: Record<string, unknown> = {}, baseRttNs = 16_000) {
  const p = resolveParams('srcc', { profile: 'paper', ...over }) as SrccParams;
  const d = driveRp(srccRp, p, flowInfo({ baseRttNs }), { rng: createRng(1) });
  const ev = d.ev;
  const tx = (psn: number) => {
    const pkt = createPacket();
    pkt.srcIp = SRC;
    pkt.dstIp = DST;
    pkt.srcPort = SPORT;
    pkt.psn = psn;
    pkt.sizeBytes = 1062;
    ev({ type: 'tx', pkt, bytes: 1000, retransmit: false });
  };
  const cnm = (targetBps: number, o: { psn?: number; flowId?: number; srcPort?: number } = {}) => {
    const pkt = createPacket();
    pkt.kind = FrameKind.Cnm;
    pkt.cnm = cnmBody({
      flowId: o.flowId ?? flowId16(SRC, DST, SPORT),
      targetRateKbps: targetBps / 1000,
      mActive: 2,
      MActive: 2,
      cpEgressPort: 1,
      flowSrcIp: SRC,
      flowDstIp: DST,
      flowSrcPort: o.srcPort ?? SPORT,
      destQpn: 2,
      triggerPsn: o.psn ?? 0,
    });
    ev({ type: 'cnm', pkt });
  };
  return {
    s: d.s as SrccState,
    p,
    log: d.log,
    timers: { get: (slot: number) => d.timers.get(slot)?.at },
    counters: d.counts,
    at: d.at,
    tx,
    cnm,
    cnp: () => d.cnp(),
    inspect: d.inspect,
  };
}

describe('cnmStep (pure)', () => {
  it('only lowers RC; RT is the pre-cut rate or the target', () => {
    expect(cnmStep(100 * G, 100 * G, 30 * G, 0.1 * G, 'preCut')).toEqual({
      rcBps: 30 * G,
      rtBps: 100 * G,
      applied: true,
    });
    expect(cnmStep(30 * G, 100 * G, 20 * G, 0.1 * G, 'preCut')).toEqual({
      rcBps: 20 * G,
      rtBps: 30 * G,
      applied: true,
    });
    expect(cnmStep(20 * G, 30 * G, 40 * G, 0.1 * G, 'preCut')).toEqual({
      rcBps: 20 * G,
      rtBps: 30 * G,
      applied: false,
    });
    expect(cnmStep(20 * G, 30 * G, 20 * G, 0.1 * G, 'preCut').applied).toBe(false);
    expect(cnmStep(100 * G, 100 * G, 30 * G, 0.1 * G, 'target')).toEqual({
      rcBps: 30 * G,
      rtBps: 30 * G,
      applied: true,
    });
    // Never below R_MIN (0.1% of 100 Gb/s = 0.1 Gb/s).
    expect(cnmStep(100 * G, 100 * G, 0, 0.1 * G, 'preCut').rcBps).toBe(0.1 * G);
  });

  it('α-only CNP of the paper machine: α ← (1 − g)·α + g, RC and RT untouched', () => {
    const p = resolveParams('srcc', { profile: 'paper', alpha0: 0.5 }) as SrccParams;
    const flow = {
      qpn: 1,
      remoteQpn: 2,
      lineRateBps: 100 * G,
      mtuBytes: 1000,
      baseRttNs: 1,
      bottleneckRateBps: 100 * G,
      hops: 1,
    };
    const s = initDcqcn(flow, p);
    s.rcBps = 30 * G;
    alphaOnlyCnp(s, p, 1000);
    // (255/256)·0.5 + 1/256 = 0.501953125
    expect(s.alpha).toBe(0.501953125);
    expect([s.rcBps, s.rtBps]).toEqual([30 * G, 100 * G]);
  });

  it('α-only CNP of the hpcc-sim machine: first CNP starts the α grid, later ones flag the next tick', () => {
    const p = resolveParams('srcc', { profile: 'hpcc-sim' }) as SrccParams;
    const flow = {
      qpn: 1,
      remoteQpn: 2,
      lineRateBps: 100 * G,
      mtuBytes: 1000,
      baseRttNs: 1,
      bottleneckRateBps: 100 * G,
      hops: 1,
    };
    const s = initDcqcn(flow, p);
    if (s.machine !== 'hpcc-sim') throw new Error('machine');
    alphaOnlyCnp(s, p, 10_000);
    expect([s.firstCnp, s.originNs, s.alpha, s.alphaCnpArrived, s.decreaseCnpArrived]).toEqual([
      false,
      10_000,
      1,
      false,
      false,
    ]);
    // 2.5 periods later: two decay ticks applied (α = (255/256)²), this CNP flagged for the next.
    alphaOnlyCnp(s, p, 12_500);
    expect(s.alphaTicksDone).toBe(2);
    expect(s.alpha).toBeCloseTo((255 / 256) ** 2, 12);
    expect(s.alphaCnpArrived).toBe(true);
    expect(s.decreaseCnpArrived).toBe(false);
    expect(s.rcBps).toBe(100 * G);
  });
});

describe('SRCC RP', () => {
  it('resets to the minimum target, keeps RT at the pre-cut rate and restarts the increase timer on every CNM', () => {
    const r = rig();
    r.at(1000);
    r.tx(0);
    r.at(5000);
    r.cnm(30 * G);
    expect(r.log.at(-1)).toEqual({ t: 5000, rateBps: 30 * G, why: 'cnm' });
    expect([r.s.rcBps, r.s.rtBps]).toEqual([30 * G, 100 * G]);
    expect(r.timers.get(0)).toBe(5000 + 55_000);
    r.at(6000);
    r.cnm(20 * G);
    expect([r.s.rcBps, r.s.rtBps]).toEqual([20 * G, 30 * G]);
    r.at(7000);
    r.cnm(40 * G); // hold: no change, timer restarted
    expect([r.s.rcBps, r.s.rtBps]).toEqual([20 * G, 30 * G]);
    expect(r.timers.get(0)).toBe(7000 + 55_000);
    expect(r.log).toHaveLength(3); // init, 30, 20
    expect(r.inspect()).toMatchObject({ cnmRx: 3, cnmApplied: 2, lastCnmRxNs: 7000 });
    if (r.s.machine === 'paper') expect([r.s.timerCount, r.s.byteCount, r.s.ccActive]).toEqual([0, 0, true]);
  });

  it('without the hold, a CNM that does not cut leaves the increase timer alone', () => {
    const r = rig({ cnmHold: false });
    r.tx(0);
    r.at(5000);
    r.cnm(30 * G);
    r.at(7000);
    r.cnm(40 * G);
    expect(r.timers.get(0)).toBe(5000 + 55_000);
  });

  it('CNPs within one base RTT of a CNM move α only; later ones cut as DCQCN', () => {
    const r = rig({ alpha0: 0.5 }, 16_000);
    r.tx(0);
    r.at(10_000);
    r.cnm(30 * G);
    r.at(10_000 + 15_999);
    r.cnp();
    expect([r.s.rcBps, r.s.rtBps]).toEqual([30 * G, 100 * G]);
    expect(r.s.alpha).toBe(0.501953125);
    expect(r.counters.get('srccCnpHeld')).toBe(1);
    r.at(10_000 + 16_000);
    r.cnp(); // outside the hold: RT = RC, RC·(1 − α/2)
    expect(r.s.rtBps).toBe(30 * G);
    expect(r.s.rcBps).toBeCloseTo(30 * G * (1 - 0.501953125 / 2), 3);
  });

  it('cnpHoldAfterCnmRtts = 0 restores independent reactions', () => {
    const r = rig({ cnpHoldAfterCnmRtts: 0 });
    r.tx(0);
    r.at(10_000);
    r.cnm(30 * G);
    r.cnp();
    expect(r.s.rcBps).toBe(15 * G); // α = 1: 30·(1 − 1/2)
  });

  it('ignores and counts a CNM for another flow id or 5-tuple, and measures latency by PSN echo', () => {
    const r = rig();
    r.at(100);
    r.tx(7);
    r.at(200);
    r.tx(8);
    r.at(8300);
    r.cnm(30 * G, { flowId: 1 });
    r.cnm(30 * G, { srcPort: SPORT + 1, flowId: flowId16(SRC, DST, SPORT) });
    expect(r.s.rcBps).toBe(100 * G);
    expect(r.counters.get('srccCnmUnknownFlow')).toBe(2);
    r.cnm(30 * G, { psn: 8 });
    r.at(9000);
    r.cnm(30 * G, { psn: 7 });
    expect(r.inspect()).toMatchObject({
      cnmLatencyFirstNs: 8100,
      cnmLatencyMinNs: 8100,
      cnmLatencyMaxNs: 8900,
      cnmLatencyCount: 2,
      cnmUnknownFlow: 2,
    });
  });
});
