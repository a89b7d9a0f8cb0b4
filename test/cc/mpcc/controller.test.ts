/**
 * MPCC's per-ACK controller (src/cc/mpcc/controller.ts) and path model (rp.ts) against values
 * worked by hand from the thesis' model (§3.2-§4.5; docs/algorithms/mpcc.md "Model and
 * controller").
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  controlStep,
  historySum,
  initMpccState,
  type MpccHop,
  selectHop,
  smallestFairShareHop,
} from '../../../src/cc/mpcc/controller.js';
import { type MpccParams, mpccParams } from '../../../src/cc/mpcc/params.js';
import { mpccPacketWireBytes, mpccPath } from '../../../src/cc/mpcc/rp.js';
import type { FlowInfo } from '../../../src/cc/types.js';

const G = 1e9;
const params = (o: Partial<MpccParams> = {}): MpccParams => mpccParams.parse(o);

function flow(linkRatesBps: number[], propDelayNs: number): FlowInfo {
  return {
    qpn: 256,
    remoteQpn: 256,
    lineRateBps: linkRatesBps[0],
    mtuBytes: 1000,
    baseRttNs: 0,
    bottleneckRateBps: Math.min(...linkRatesBps),
    hops: linkRatesBps.length - 1,
    linkRatesBps,
    propDelayNs,
  };
}

// Thesis dumbbell: sender → SW1 → SW2 → receiver, 3 links of 1 Gbps and 1 µs.
const DUMBBELL = flow([G, G, G], 3000);

describe('path model (thesis §3.3, eq. 2.2)', () => {
  it('thesis dumbbell: D_base = 2·3 µs + 3·1000 B·8/1 Gbps = 30 µs, P = 3750 B', () => {
    const p = mpccPath(DUMBBELL, params());
    expect(p.baseRttNs).toBe(30_000);
    expect(p.bdpBytes).toBe(3750);
    expect(p.hopRatesBps).toEqual([G, G]);
    // 1000 B payload + 62 B Eth/IPv4/UDP/BTH/ICRC/FCS + 32 B MPCC INT
    expect(p.packetWireBytes).toBe(1094);
    expect(mpccPacketWireBytes(1000)).toBe(1094);
  });

  it('thesis fat-tree: 1/3/5 switches give 4.16/8.20/12.24 µs and 52 000/102 500/153 000 B', () => {
    // 1 hop: 2·2 µs + 2·80 ns; 3 hops: 2·4 µs + 2·80 + 2·20 ns; 5 hops: 2·6 µs + 2·80 + 4·20 ns
    const cases: [number[], number, number, number][] = [
      [[100 * G, 100 * G], 2000, 4160, 52_000],
      [[100 * G, 400 * G, 400 * G, 100 * G], 4000, 8200, 102_500],
      [[100 * G, 400 * G, 400 * G, 400 * G, 400 * G, 100 * G], 6000, 12_240, 153_000],
    ];
    for (const [rates, prop, d, P] of cases) {
      const p = mpccPath(flow(rates, prop), params());
      expect(p.baseRttNs).toBeCloseTo(d, 6);
      expect(p.bdpBytes).toBeCloseTo(P, 6);
      expect(p.hopRatesBps).toEqual(rates.slice(1));
    }
  });

  it('overrides and the fallback without per-link rates', () => {
    expect(mpccPath(DUMBBELL, params({ baseRttNs: 84_000 })).bdpBytes).toBe(10_500);
    expect(mpccPath(DUMBBELL, params({ bdpBytes: 30_000 })).bdpBytes).toBe(30_000);
    const bare: FlowInfo = {
      ...DUMBBELL,
      linkRatesBps: undefined,
      propDelayNs: undefined,
      baseRttNs: 33_000,
    };
    const p = mpccPath(bare, params());
    expect(p.baseRttNs).toBe(33_000);
    expect(p.hopRatesBps).toEqual([G, G]);
  });
});

describe('Algorithm 1 and the zero-queue policies (thesis §3.4)', () => {
  const h = (q: number, n: number): MpccHop => ({ qlenBytes: q, activeFlows: n });

  it('selects the first hop with the strictly largest queue, -1 when all are 0', () => {
    expect(selectHop([h(0, 1), h(5, 2), h(5, 3), h(3, 4)], 4)).toBe(1);
    expect(selectHop([h(0, 1), h(0, 2)], 2)).toBe(-1);
    // only the first n slots count
    expect(selectHop([h(1, 1), h(9, 1)], 1)).toBe(0);
  });

  it('fairShare picks the smallest R_h/N_h: 100G/2, 400G/4, 100G/8 → hop 2', () => {
    const path = { ...mpccPath(flow([100 * G, 100 * G, 400 * G, 100 * G], 4000), params()) };
    expect(smallestFairShareHop([h(0, 2), h(0, 4), h(0, 8)], 3, path)).toBe(2);
    // ties: the first
    expect(
      smallestFairShareHop([h(0, 2), h(0, 8), h(0, 2)], 3, { ...path, hopRatesBps: [G, 4 * G, G] }),
    ).toBe(0);
  });

  it('hold keeps W and pushes 0; algo1Defaults jumps back to W = P; fairShare goes to that hop’s W_fair', () => {
    const path = mpccPath(DUMBBELL, params());
    const zero = [h(0, 4), h(0, 4)];
    const hold = initMpccState(path, params({ zeroQueuePolicy: 'hold' }));
    hold.windowBytes = 1234;
    expect(controlStep(hold, path, zero, 2, params({ zeroQueuePolicy: 'hold' }))!.path).toBe('hold');
    expect(hold.windowBytes).toBe(1234);
    expect(hold.histCount).toBe(1);
    expect(historySum(hold, 1)).toBe(0);
    // algo1Defaults: N = 1 on hop 0 → W_fair = R·P/(R·1) = P, Q̄ = 0 → u = 0 → W = P
    const a1 = initMpccState(path, params({ zeroQueuePolicy: 'algo1Defaults' }));
    a1.windowBytes = 1234;
    controlStep(a1, path, zero, 2, params({ zeroQueuePolicy: 'algo1Defaults' }));
    expect(a1.windowBytes).toBe(3750);
    // fairShare: N = 4 → W_fair = 3750/4 = 937.5 B, pacing 1 Gbps·937.5/3750 = 250 Mb/s
    const fs = initMpccState(path, params());
    controlStep(fs, path, zero, 2, params());
    expect(fs.windowBytes).toBe(937.5);
    expect(fs.rateBps).toBe(250e6);
  });
});

describe('one control step by hand (thesis §3.2–3.3)', () => {
  // Dumbbell, W = P = 3750, S_wire = 1080 (the thesis' constant), INT: hop 0 q = 2000 B, n = 4.
  // D  = 30 µs + 2000 B·8/1 Gbps = 46 µs;   Δt = 1080·46 µs/3750 = 13.248 µs
  // B  = Δt·N·R/(8P) = 13.248e-6·4·1e9/30 000 = 1.7664;   W_fair = 937.5 B
  // τ  = round(46/13.248) = round(3.47) = 3;   Q̄ = 2000 (empty history)
  // Riccati (1:10, Hp 3): S3 = 1, S2 = 1 + 10/(10 + B²) = 1.762185, S1 = 1 + 10·S2/(10 + B²·S2) = 2.137017
  // k0 = B·S1/(10 + B²·S1) = 0.226473;  u0 = −k0·2000 = −452.947 (≥ lb = 270 − 937.5 = −667.5: fast path)
  // W  = 937.5 − 452.947 = 484.553 B;  c = B·(W − W_fair) = −800.086;  rate = 1 Gbps·484.553/3750
  const p = params({ packetWireBytes: 1080 });
  const hops = [
    { qlenBytes: 2000, activeFlows: 4 },
    { qlenBytes: 0, activeFlows: 4 },
  ];

  it('model parameters, the MPC move, the applied window and the pacing rate', () => {
    const path = mpccPath(DUMBBELL, p);
    const s = initMpccState(path, p);
    const rec = controlStep(s, path, hops, 2, p)!;
    expect(rec.path).toBe('fast');
    expect(rec.hop).toBe(0);
    expect(rec.flows).toBe(4);
    expect(rec.B).toBeCloseTo(1.7664, 12);
    expect(rec.wFairBytes).toBe(937.5);
    expect(rec.tauSteps).toBe(3);
    expect(rec.qBarBytes).toBe(2000);
    expect(rec.u0Bytes).toBeCloseTo(-452.94698, 4);
    expect(s.windowBytes).toBeCloseTo(484.55302, 4);
    expect(s.rateBps / 1e6).toBeCloseTo((1e3 * 484.55302) / 3750, 4);
    expect(historySum(s, 1)).toBeCloseTo(-800.0856, 3);
  });

  it('the next step predicts Q̄ = Q + Σ of the last τ inputs (eq. 3.7)', () => {
    const path = mpccPath(DUMBBELL, p);
    const s = initMpccState(path, p);
    controlStep(s, path, hops, 2, p);
    // Second ACK, same INT: W = 484.55 → Δt = 1080·46/1080 µs (W < S_wire: guard) = 46 µs, τ = 1,
    // Q̄ = 2000 − 800.086 = 1199.914
    const rec = controlStep(s, path, hops, 2, p)!;
    expect(rec.tauSteps).toBe(1);
    expect(rec.qBarBytes).toBeCloseTo(1199.9144, 3);
  });

  it('Δt counts the in-flight batch when it exceeds the window (thesis App. A.2), the window otherwise', () => {
    const path = mpccPath(DUMBBELL, p);
    const cut = (q: MpccParams, inflight: number) => {
      const s = initMpccState(path, q);
      controlStep(s, path, hops, 2, q, 3000); // W = 484.55 after this step
      return controlStep(s, path, hops, 2, q, inflight)!;
    };
    // 3000 B still in flight after a cut to 484.55 B: Δt = 1080·46 µs/3000 = 16.56 µs,
    // B = 16.56e-6·4·1e9/30 000 = 2.208, τ = round(46/16.56) = 3 (the whole first step's input).
    const big = cut(p, 3000);
    expect(big.B).toBeCloseTo(2.208, 12);
    expect(big.tauSteps).toBe(3);
    expect(big.qBarBytes).toBeCloseTo(1199.9144, 3);
    expect(big.inflightBytes).toBe(3000);
    // Less in flight than the window: as the window alone (the S_wire guard here).
    const small = cut(p, 200);
    expect(small.tauSteps).toBe(1);
    expect(small.B).toBeCloseTo((46e-6 * 4 * 1e9) / 30_000, 12);
    // intervalBytes: window is the literal reading: the window alone, whatever is in flight.
    const literal = cut(params({ packetWireBytes: 1080, intervalBytes: 'window' }), 3000);
    expect(literal.tauSteps).toBe(1);
  });

  it('pacing none leaves the rate at line rate; controlEveryNAcks skips steps', () => {
    const path = mpccPath(DUMBBELL, p);
    const none = params({ packetWireBytes: 1080, pacing: 'none' });
    const s = initMpccState(path, none);
    controlStep(s, path, hops, 2, none);
    expect(s.rateBps).toBe(1e9);
    const every2 = params({ controlEveryNAcks: 2 });
    const t = initMpccState(path, every2);
    expect(controlStep(t, path, hops, 2, every2)).toBeNull();
    expect(controlStep(t, path, hops, 2, every2)).not.toBeNull();
    expect(t.steps).toBe(1);
  });

  it('a 6-switch INT uses the five recorded hops and counts the overflow', () => {
    const path = mpccPath(flow([G, G, G, G, G, G, G], 7000), p);
    const s = initMpccState(path, p);
    const five = Array.from({ length: 5 }, (_, i) => ({ qlenBytes: i === 4 ? 500 : 0, activeFlows: 2 }));
    const rec = controlStep(s, path, five, 6, p)!;
    expect(rec.hop).toBe(4);
    expect(s.intOverflows).toBe(1);
  });
});

describe('invariants', () => {
  it('every applied window is in [W_floor, P] whatever the INT (AC9c)', () => {
    const path = mpccPath(DUMBBELL, params());
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.nat(200_000),
            fc.integer({ min: 0, max: 64 }),
            fc.nat(200_000),
            fc.integer({ min: 0, max: 64 }),
          ),
          { minLength: 1, maxLength: 60 },
        ),
        fc.constantFrom(...(['fairShare', 'hold', 'algo1Defaults'] as const)),
        (acks, zeroQueuePolicy) => {
          const p = params({ zeroQueuePolicy });
          const s = initMpccState(path, p);
          for (const [q0, n0, q1, n1] of acks) {
            controlStep(
              s,
              path,
              [
                { qlenBytes: q0, activeFlows: n0 },
                { qlenBytes: q1, activeFlows: n1 },
              ],
              2,
              p,
            );
            if (!(s.windowBytes >= p.windowFloorBytes && s.windowBytes <= path.bdpBytes)) return false;
            if (!(s.rateBps > 0 && s.rateBps <= path.nicRateBps)) return false;
          }
          return true;
        },
      ),
      { numRuns: 300 },
    );
  });
});
