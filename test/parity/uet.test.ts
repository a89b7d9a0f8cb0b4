/**
 * The uet parity harness (src/parity, docs/parity.md) without running a simulation: the reference
 * set-up arithmetic against the numbers htsim_uec prints for the same runs, the options of every
 * experiment in parity/uet/reference.json, the scenarios they become, and the verdict rules.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseScenarioText } from '../../src/config/load.js';
import { loadReference, referenceValue } from '../../src/parity/reference.js';
import { parseRefOptions } from '../../src/parity/uet/options.js';
import { parityScenario } from '../../src/parity/uet/scenario.js';
import {
  bdpPackets,
  failedFatTreeLinks,
  fatTreeFor,
  networkRttNs,
  parseLeafSpineTopo,
  refQueues,
} from '../../src/parity/uet/setup.js';
import { experimentScenario, selectExperiments } from '../../src/parity/uet/suite.js';
import { judge, type ParityMetrics, parityMetrics } from '../../src/parity/verdict.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';
import type { Results } from '../../src/stats/results.js';
import { buildFatTree } from '../../src/topology/build.js';

const DATA = join(import.meta.dirname, '..', '..', 'parity', 'uet');
const topoFile = (f: string) => readFileSync(join(DATA, 'topologies', f), 'utf8');

describe('reference set-up (main_uec.cpp), as htsim_uec prints it', () => {
  it('3-tier fat trees: network RTT 14.0227 µs, 43-packet BDP, queue 178 450 B, ECN 37 350 / 145 250 B, min RTO 100.656 µs', () => {
    for (const n of [16, 128, 1024]) {
      const t = fatTreeFor(n);
      expect(t).toMatchObject({ kind: 'fattree', k: { 16: 4, 128: 8, 1024: 16 }[n] });
      expect(networkRttNs(t)).toBeCloseTo(14_022.72, 6);
      expect(bdpPackets(t)).toBe(43);
      expect(refQueues(t, null)).toEqual({
        queueBytes: 178_450,
        ecnLowBytes: 37_350,
        ecnHighBytes: 145_250,
        minRtoNs: expect.closeTo(100_656, 6),
      });
    }
    expect(() => fatTreeFor(100)).toThrow(/no 3-tier fat tree/);
  });

  it('leaf-spine files: 9.34848 µs, ECN 24 900 / 99 600 B; -q 500 sets the queue and the RTO (1011 µs)', () => {
    const t = parseLeafSpineTopo(topoFile('leaf_spine_1024_oversub.topo'));
    expect(t).toEqual({ kind: 'leafspine', leaves: 32, hostsPerLeaf: 32, spines: 8, hosts: 1024 });
    expect(parseLeafSpineTopo(topoFile('leaf_spine_1024_oversub_8-1.topo'))).toMatchObject({ spines: 4 });
    expect(parseLeafSpineTopo(topoFile('leaf_spine_128_oversub.topo'))).toMatchObject({
      leaves: 4,
      spines: 8,
    });
    expect(networkRttNs(t)).toBeCloseTo(9_348.48, 6);
    const q = refQueues(t, 500);
    expect(q.queueBytes).toBe(2_075_000);
    expect(q.ecnLowBytes).toBe(24_900);
    expect(q.ecnHighBytes).toBe(99_600);
    expect(q.minRtoNs).toBeCloseTo(1_011_000, 6);
  });

  it('-failed N: the first N core links of aggregation switch 0 (then 1, …), links of our fat tree', () => {
    const t = fatTreeFor(128);
    const failed = failedFatTreeLinks(t, 4);
    // k = 8: ToRs s1..s32, aggregations s33..s64, cores s65..s80; htsim "agg_sw 0 l 0..3"
    expect(failed).toEqual([65, 66, 67, 68].map((c) => ({ agg: 's33', core: `s${c}` })));
    const topo = buildFatTree({ k: 8, hostLink: { rateBps: 100e9, delayNs: 1000 } });
    for (const l of failed)
      expect(topo.byName.get(l.agg)!.ports.some((p) => p.peerNode === l.core)).toBe(true);
    expect(failedFatTreeLinks(fatTreeFor(1024), 8).map((l) => l.agg)).toEqual(Array(8).fill('s129'));
    expect(failedFatTreeLinks(fatTreeFor(16), 3).map((l) => l.agg)).toEqual(['s9', 's9', 's10']);
  });
});

describe('the suite as scenarios', () => {
  const ref = loadReference(join(DATA, 'reference.json'));

  it('every experiment has a reference value, and its options an equivalent', () => {
    for (const e of ref.experiments) {
      expect(referenceValue(e), e.id).not.toBeNull();
      expect(() => parseRefOptions(e.params), e.id).not.toThrow();
    }
    expect(() => parseRefOptions(['-strat', 'ecmp_host'])).toThrow('option -strat has no equivalent');
  });

  it('the default selection has no 1024-node run but a k = 8 cut of each', () => {
    const chosen = selectExperiments(ref, { large: false, only: null });
    expect(chosen.every((e) => e.nodes <= 128)).toBe(true);
    const large = ref.experiments.filter((e) => e.nodes === 1024);
    expect(large.length).toBeGreaterThan(0);
    for (const e of large)
      expect(
        chosen.some((c) => c.cutOf === e.id),
        e.id,
      ).toBe(true);
  });

  it('options become scenario keys', () => {
    const s = (params: string[], nodes = 16, matrix = 'perm_16n_16c_2MB.cm') =>
      parityScenario({ id: 'x', matrix, nodes, options: parseRefOptions(params), dataDir: DATA }) as {
        defaults: { nic: Record<string, unknown>; switch: Record<string, unknown> };
        cc: Record<string, Record<string, unknown>>;
        topology: unknown;
        links: unknown[];
        duration: string;
      };
    const a = s(['-sender_cc_only', '-end', '2000', '-paths', '1', '-failed', '1', '-cwnd', '50']);
    expect(a.duration).toBe('2000us');
    expect(a.defaults.nic).toMatchObject({
      cc: 'nscc',
      mtu: 4086,
      transport: 'uet',
      rccc: false,
      rto: 100_656,
    });
    expect(a.defaults.nic.paths).toEqual({ policy: 'mixed', count: 1 });
    expect(a.cc.nscc).toEqual({ networkRtt: 14_023, initialWindowBytes: 50 * 4086 });
    expect(a.topology).toEqual({ kind: 'fattree', k: 4 });
    // The reference's failed link: core → aggregation only, its queue and thresholds at 25 %.
    expect(a.links).toEqual([
      {
        a: 's17',
        b: 's9',
        rate: 25e9,
        oneWay: true,
        trim: { queueBytes: 44_612, headerQueueBytes: 89_224, kmin: 9_337, kmax: 36_312 },
      },
    ]);
    // 16 KB of -sack_threshold is 4 of the reference's 4150-byte packets: 4 × 4086 of ours.
    expect(a.defaults.nic.sackBytes).toBe(4 * 4086);
    expect(a.defaults.switch).toEqual({
      pfc: false,
      trim: {
        enabled: true,
        queueBytes: 178_450,
        headerQueueBytes: 356_900,
        kmin: 37_350,
        kmax: 145_250,
        pmax: 1,
      },
    });
    const r = s([
      '-receiver_cc_only',
      '-load_balancing_algo',
      'reps',
      '-sack_threshold',
      '4000',
      '-q',
      '500',
    ]);
    expect(r.defaults.nic).toMatchObject({ cc: 'none', sackBytes: 4086, rccc: { enabled: true } });
    // With receiver credits the reference marks no port that faces a host.
    expect(r.defaults.switch.ecn).toEqual({ hostPorts: false });
    // Queues and thresholds hold the reference's packet counts in our frames: with credits a
    // data frame carries the 4-byte pull target (4154 B), so 500, 9 and 35 packets of 4154 B.
    expect(r.defaults.switch.trim).toEqual({
      enabled: true,
      queueBytes: 500 * 4154,
      headerQueueBytes: 1000 * 4154,
      kmin: 9 * 4154,
      kmax: 35 * 4154,
      pmax: 1,
    });
    expect(r.defaults.nic.paths).toEqual({ policy: 'reps', count: 64 });
    expect(r.cc).toEqual({});
    const b = s(
      ['-sender_cc', '-receiver_cc', '-topo', 'topologies/leaf_spine_1024_oversub.topo'],
      1024,
      'perm_1024n_1024c_0u_2000000b.cm',
    );
    expect(b.defaults.nic).toMatchObject({ cc: 'nscc', rccc: { enabled: true } });
    expect(b.topology).toEqual({ kind: 'leafspine', leaves: 32, spines: 8, hostsPerLeaf: 32 });
    expect(b.cc.nscc).toEqual({ networkRtt: 9_348 });
  });

  it("a failed link's ports, as the switches get them: core → aggregation at 25 % with 25 % of the queue and thresholds, the reverse port untouched", () => {
    // links[].trim is explicit, so main's rule (a slowed port's thresholds scale with its rate,
    // src/runtime/link-thresholds.ts) must not apply twice: 25 %, not 6.25 %.
    const text = experimentScenario(
      ref.experiments.find((e) => e.id.startsWith('lb-failed-sender/03') && e.cutOf !== null)!,
      DATA,
    );
    const setup = setupRun(parseScenarioText(text, { file: 'failed.yaml', dir: DATA }));
    const portOf = (node: string, peer: string) => {
      const n = setup.topo.byName.get(node)!;
      const cfg = setup.switchConfig(n, {
        name: n.name,
        id: 0,
        routes: new Map(),
        ports: n.ports.map((p) => ({ rateBps: p.rateBps, mac: 0, peerMac: 0 })),
      });
      const i = n.ports.findIndex((p) => p.peerNode === peer);
      return { rateBps: n.ports[i].rateBps, trim: cfg.ports[i].trim };
    };
    const failed = failedFatTreeLinks(fatTreeFor(128), 4);
    expect(failed).toHaveLength(4);
    for (const l of failed) {
      expect(portOf(l.core, l.agg)).toEqual({
        rateBps: 25e9,
        trim: {
          queueBytes: 44_612,
          headerQueueBytes: 89_224,
          ecn: { kminBytes: 9_337, kmaxBytes: 36_312, pmax: 1 },
        },
      });
      expect(portOf(l.agg, l.core)).toEqual({
        rateBps: 100e9,
        trim: {
          queueBytes: 178_450,
          headerQueueBytes: 356_900,
          ecn: { kminBytes: 37_350, kmaxBytes: 145_250, pmax: 1 },
        },
      });
    }
  });
});

describe('verdicts', () => {
  const refRun = {
    tailFctUs: 200,
    firstFctUs: 160,
    spread: 1.25,
    connections: 16,
    newPkts: 7840,
    rtx: 100,
    rts: 0,
    bounced: 0,
    acks: 2000,
    nacks: 0,
    pulls: 0,
    flowFctUs: {},
  };
  const ours = (o: Partial<ParityMetrics>): ParityMetrics => ({
    tailFctUs: 200,
    firstFctUs: 160,
    spread: 1.25,
    nacks: 0,
    rtx: 100,
    flowsCompleted: 16,
    flowsTotal: 16,
    ...o,
  });
  const pass = (o: Partial<ParityMetrics>, target = 0) =>
    Object.fromEntries(judge(refRun, ours(o), target).map((v) => [v.metric, v.pass]));

  it('tail within 10 %, or inside the target where the reference meets it', () => {
    expect(pass({ tailFctUs: 219 }).tailFct).toBe(true);
    expect(pass({ tailFctUs: 221 }).tailFct).toBe(false);
    expect(pass({ tailFctUs: 179 }).tailFct).toBe(false);
    expect(pass({ tailFctUs: 179 }, 210).tailFct).toBe(true); // faster than 10 % but inside the target
    expect(pass({ tailFctUs: 225 }, 230).tailFct).toBe(true);
    expect(pass({ tailFctUs: 235 }, 230).tailFct).toBe(false);
    expect(judge({ ...refRun, tailFctUs: 240 }, ours({ tailFctUs: 215 }), 210)[0].pass).toBe(false); // ref misses it
  });

  it('spread within 15 %; counts within 2× on counts + 1; unfinished flows fail', () => {
    expect(pass({ spread: 1.43 }).spread).toBe(true);
    expect(pass({ spread: 1.45 }).spread).toBe(false);
    expect(pass({ rtx: 201 }).rtx).toBe(true);
    expect(pass({ rtx: 203 }).rtx).toBe(false);
    expect(pass({ rtx: 50 }).rtx).toBe(true);
    expect(pass({ rtx: 49 }).rtx).toBe(false);
    expect(pass({ nacks: 1 }).nacks).toBe(true);
    expect(pass({ nacks: 2 }).nacks).toBe(false);
    const v = judge(refRun, ours({ flowsCompleted: 15 }), 0);
    expect(v[0]).toMatchObject({ pass: false, ours: null, note: '1 of 16 flows unfinished' });
  });

  it('our results are reduced as validate.py reduces the reference: finish times, counters over hosts', () => {
    const r = {
      flows: [
        { id: 0, endNs: 176_000 },
        { id: 1, endNs: 200_500 },
        { id: 2, endNs: null },
      ],
      hosts: [
        { nackTx: 3, retransmits: 4 },
        { nackTx: 1, retransmits: 0 },
      ],
    } as unknown as Results;
    expect(parityMetrics(r)).toEqual({
      tailFctUs: 200.5,
      firstFctUs: 176,
      spread: 200.5 / 176,
      nacks: 4,
      rtx: 4,
      flowsCompleted: 2,
      flowsTotal: 3,
    });
  });

  it('with connection reuse a connection finishes with its last message (one line of the reference)', () => {
    const r = {
      flows: [0, 1, 2, 3].map((id) => ({ id, endNs: 10_000 * (id + 1) })),
      hosts: [],
    } as unknown as Results;
    // Messages 0–2 share one connection, 3 is its own.
    const m = parityMetrics(r, (id) => (id < 3 ? 'id 1' : '#3'));
    expect(m).toMatchObject({ tailFctUs: 40, firstFctUs: 30, spread: 40 / 30, flowsCompleted: 4 });
  });
});
