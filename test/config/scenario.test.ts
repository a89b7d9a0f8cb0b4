import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RCCC_DEFAULTS } from '../../nic/rccc/settings.js';
import { ConfigError } from '../../src/config/errors.js';
import { loadScenario, parseKeyPath, parseScenarioText } from '../../src/config/load.js';
import { ccByHost, nicFor } from '../../src/config/scenario.js';
import { loadError } from '../support/config-error.js';

const STAR = 'topology: { kind: star, hosts: 9 }\n';

/** The ConfigError a scenario text raises (fails the test if it loads). */

describe('defaults', () => {
  it('a minimal scenario gets every default', () => {
    const s = parseScenarioText(STAR, { file: 'scenarios/minimal.yaml' });
    expect(s.name).toBe('minimal');
    expect(s.seed).toBe(1);
    expect(s.durationNs).toBe(10_000_000);
    expect(s.timeScale).toBe(1000);
    expect(s.processes).toBe('auto');
    expect(s.sampleIntervalNs).toBe(5000); // duration / 2000
    expect(s.defaults.link).toEqual({ rateBps: 100e9, delayNs: 1000, loss: 0 });
    expect(s.defaults.nic).toEqual({
      cc: 'dcqcn',
      mtuBytes: 1000,
      ackEvery: 1,
      rtoNs: 1_000_000,
      cnpIntervalNs: 50_000,
      dataPrio: 3,
      ackPrio: 0,
      controlPrio: 0,
      transport: 'rocev2-gbn',
      paths: { policy: 'ecmp', count: 64 },
      reorderWindow: 1024,
      sackBytes: 16_384,
      reorderThreshold: 'bdp',
      rccc: { ...RCCC_DEFAULTS, enabled: false },
    });
    expect(s.defaults.switch).toEqual({
      bufferBytes: 32e6,
      queues: 8,
      ecn: {
        enabled: true,
        hostPorts: true,
        kminBytes: 400_000,
        kmaxBytes: 1_600_000,
        pmax: 0.2,
        markAt: 'dequeue',
        byRate: [],
      },
      pfc: {
        enabled: true,
        dynamic: true,
        shift: 3,
        thresholdBytes: null,
        headroomBytes: null,
        resumeOffsetBytes: 3072,
        reserveBytes: 4096,
        priorities: null,
      },
      int: true,
      intRates: 'scenario',
      trim: {
        enabled: false,
        queueBytes: null,
        headerQueueBytes: null,
        kminBytes: null,
        kmaxBytes: null,
        pmax: 1,
      },
    });
    expect(s.topology).toEqual({ kind: 'star', hosts: 9, link: { rateBps: 100e9, delayNs: 1000, loss: 0 } });
    expect(s.hostNames).toEqual(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'h7', 'h8', 'h9']);
    expect(s.workload).toEqual([]);
    expect(s.cc).toEqual({});
    expect(s.links).toEqual([]);
  });

  it("the incast-8to1 example (the short form of docs/scenario.md's) loads as written", () => {
    const s = parseScenarioText(
      `name: incast-8to1
seed: 1
duration: 20ms
timeScale: 1000
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: dcqcn, mtu: 1000 }
  switch: { buffer: 32MB, ecn: { kmin: 400KB, kmax: 1600KB, pmax: 0.2 }, pfc: true }
topology: { kind: star, hosts: 9 }
workload:
  - { kind: incast, senders: [h1, h2, h3, h4, h5, h6, h7, h8], receiver: h9, size: 1MB, start: 0 }
`,
    );
    expect(s.name).toBe('incast-8to1');
    expect(s.durationNs).toBe(20e6);
    expect(s.sampleIntervalNs).toBe(10_000);
    expect(s.workload[0]).toEqual({
      kind: 'incast',
      senders: ['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'h7', 'h8'],
      receiver: 'h9',
      sizeBytes: 1e6,
      startNs: 0,
      startSpreadNs: 0,
      flowsPerSender: 1,
      count: 1,
      intervalNs: 0,
      verb: 'write',
      messageBytes: null,
      tag: null,
    });
  });

  it('switch sub-sections accept true/false and partial maps', () => {
    const s = parseScenarioText(
      STAR +
        `defaults:
  switch:
    ecn: false
    pfc: { threshold: 612KB, resumeOffset: 2KB, headroom: 40KB }
`,
    );
    expect(s.defaults.switch.ecn.enabled).toBe(false);
    expect(s.defaults.switch.pfc).toEqual({
      enabled: true,
      dynamic: false,
      shift: 3,
      thresholdBytes: 612_000,
      headroomBytes: 40_000,
      resumeOffsetBytes: 2000,
      reserveBytes: 4096,
      priorities: null,
    });
    const off = parseScenarioText(STAR + 'defaults: { switch: { pfc: false } }');
    expect(off.defaults.switch.pfc.enabled).toBe(false);
  });

  it('ECN thresholds per link rate (the HPCC simulator KMIN/KMAX/PMAX maps)', () => {
    const s = parseScenarioText(
      STAR +
        `defaults:
  switch:
    ecn:
      byRate:
        400Gbps: { kmin: 1600KB, kmax: 6400KB, pmax: 0.2 }
        25Gbps: { kmin: 100KB, kmax: 400KB, pmax: 20% }
`,
    );
    expect(s.defaults.switch.ecn.byRate).toEqual([
      { rateBps: 25e9, kminBytes: 100_000, kmaxBytes: 400_000, pmax: 0.2 },
      { rateBps: 400e9, kminBytes: 1_600_000, kmaxBytes: 6_400_000, pmax: 0.2 },
    ]);
  });

  it('per-host NIC overrides and cc sections', () => {
    const s = parseScenarioText(
      'topology: { kind: star, hosts: 3 }\nhosts: { h1: { cc: hpcc, mtu: 4KB } }\n' +
        'cc: { dcqcn: { profile: paper, rai: 40Mbps }, hpcc: { eta: 0.95 } }\n',
    );
    expect(nicFor(s, 'h1').cc).toBe('hpcc');
    expect(nicFor(s, 'h1').mtuBytes).toBe(4000);
    expect(nicFor(s, 'h2').cc).toBe('dcqcn');
    expect(ccByHost(s)).toEqual({ h1: 'hpcc', h2: 'dcqcn', h3: 'dcqcn' });
    expect(s.cc).toEqual({
      dcqcn: { profile: 'paper', params: { rai: '40Mbps' } },
      hpcc: { profile: null, params: { eta: 0.95 } },
    });
  });
});

describe('YAML conveniences', () => {
  it('x- keys hold anchors; merge keys work', () => {
    const s = parseScenarioText(
      'x-fast: &fast { rate: 400Gbps, delay: 500ns }\n' +
        'topology: { kind: dumbbell, left: 1, right: 1, bottleneck: { <<: *fast, delay: 2us } }\n',
    );
    expect(s.topology).toMatchObject({ bottleneck: { rateBps: 400e9, delayNs: 2000 } });
  });
});

describe('topologies', () => {
  it('dumbbell: bottleneck defaults to the host link', () => {
    const s = parseScenarioText(
      'topology: { kind: dumbbell, left: 2, right: 3, bottleneck: { rate: 40Gbps } }',
    );
    expect(s.topology).toMatchObject({
      kind: 'dumbbell',
      left: 2,
      right: 3,
      link: { rateBps: 100e9, delayNs: 1000 },
      bottleneck: { rateBps: 40e9, delayNs: 1000 },
    });
    expect(s.hostNames).toEqual(['h1', 'h2', 'h3', 'h4', 'h5']);
  });

  it('leafspine with faster uplinks', () => {
    const s = parseScenarioText(
      'defaults: { link: { rate: 25Gbps, delay: 2us } }\n' +
        'topology: { kind: leafspine, leaves: 2, spines: 1, hostsPerLeaf: 4, uplink: { rate: 100Gbps } }',
    );
    expect(s.topology).toMatchObject({
      hostLink: { rateBps: 25e9, delayNs: 2000 },
      fabricLink: { rateBps: 100e9, delayNs: 2000 },
    });
    expect(s.hostNames.length).toBe(8);
  });

  it('fattree: HPCC mix/fat.txt shape by default, k-ary with k', () => {
    const hpcc = parseScenarioText('topology: { kind: fattree, fabric: { rate: 400Gbps } }');
    expect(hpcc.topology).toMatchObject({
      kind: 'fattree',
      k: null,
      pods: 5,
      torsPerPod: 4,
      hostsPerTor: 16,
    });
    expect(hpcc.hostNames.length).toBe(320);
    const k4 = parseScenarioText('topology: { kind: fattree, k: 4 }');
    expect(k4.topology).toMatchObject({
      k: 4,
      pods: 4,
      torsPerPod: 2,
      aggsPerPod: 2,
      hostsPerTor: 2,
      coreUplinksPerAgg: 2,
    });
    expect(k4.hostNames.length).toBe(16);
  });

  it('explicit: kinds inferred from names, per-link settings', () => {
    const s = parseScenarioText(`topology:
  kind: explicit
  nodes: [h1, h2, s1, { name: core, kind: switch }]
  links:
    - { a: h1, b: s1 }
    - { a: s1, b: core, rate: 400Gbps }
    - { a: core, b: h2, delay: 5us, loss: 0.01 }
`);
    expect(s.hostNames).toEqual(['h1', 'h2']);
    expect(s.topology).toMatchObject({
      kind: 'explicit',
      nodes: [
        { name: 'h1', kind: 'host' },
        { name: 'h2', kind: 'host' },
        { name: 's1', kind: 'switch' },
        { name: 'core', kind: 'switch' },
      ],
      links: [
        { a: 'h1', b: 's1', rateBps: 100e9, delayNs: 1000, loss: 0 },
        { a: 's1', b: 'core', rateBps: 400e9, delayNs: 1000, loss: 0 },
        { a: 'core', b: 'h2', rateBps: 100e9, delayNs: 5000, loss: 0.01 },
      ],
    });
  });

  it('loss injection on one link of a generated topology', () => {
    const s = parseScenarioText(STAR + 'links: [{ a: h1, b: s1, loss: 1% }]');
    expect(s.links).toEqual([{ a: 'h1', b: 's1', loss: 0.01 }]);
  });
});

describe('workloads', () => {
  it('host ranges, all, long-lived flows and every kind', () => {
    const s = parseScenarioText(
      STAR +
        `duration: 1s
workload:
  - kind: flows
    flows:
      - { src: h1, dst: h2, size: inf, stop: 500ms, verb: send }
      - { src: h3, dst: h4, size: 2MB, start: 10us, count: 4, messageSize: 8KB, tag: bulk }
  - { kind: incast, senders: [h1..h4, h7], receiver: h9, size: 200KB, flowsPerSender: 32, startSpread: 100ms }
  - { kind: incast, senders: all, receiver: h1, size: 64KB, count: 10, interval: 16us }
  - { kind: permutation, size: 1MB }
  - { kind: poisson, cdf: fb_hadoop, load: 0.5, start: 1ms, flows: 1000, hosts: h1..h8 }
  - { kind: alltoall, hosts: [h1, h2, h3, h4], messageSize: 64KB, iterations: 10, gap: 5us }
`,
    );
    const [flows, incast, incast2, perm, poisson, a2a] = s.workload;
    expect(flows).toMatchObject({
      kind: 'flows',
      flows: [
        { src: 'h1', dst: 'h2', sizeBytes: Number.POSITIVE_INFINITY, stopNs: 500e6, verb: 'send', count: 1 },
        { src: 'h3', dst: 'h4', sizeBytes: 2e6, startNs: 10_000, count: 4, messageBytes: 8000, tag: 'bulk' },
      ],
    });
    expect(incast).toMatchObject({
      senders: ['h1', 'h2', 'h3', 'h4', 'h7'],
      flowsPerSender: 32,
      startSpreadNs: 100e6,
    });
    expect(incast2).toMatchObject({
      senders: ['h2', 'h3', 'h4', 'h5', 'h6', 'h7', 'h8', 'h9'],
      count: 10,
      intervalNs: 16_000,
    });
    expect(perm).toMatchObject({ kind: 'permutation', hosts: s.hostNames, sizeBytes: 1e6 });
    expect(poisson).toMatchObject({
      cdf: 'fb_hadoop',
      cdfFile: null,
      load: 0.5,
      startNs: 1e6,
      stopNs: 1e9,
      maxFlows: 1000,
    });
    expect(poisson.kind === 'poisson' && poisson.hosts.length).toBe(8);
    expect(a2a).toMatchObject({
      hosts: ['h1', 'h2', 'h3', 'h4'],
      messageBytes: 64_000,
      iterations: 10,
      gapNs: 5000,
    });
  });

  it('a CDF file path resolves against the scenario directory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rocelab-cfg-'));
    writeFileSync(join(dir, 'my.cdf'), '0 0\n1000 1\n');
    writeFileSync(join(dir, 'p.yaml'), STAR + 'workload: [{ kind: poisson, cdf: ./my.cdf, load: 30% }]\n');
    const s = loadScenario(join(dir, 'p.yaml'));
    expect(s.workload[0]).toMatchObject({ cdf: './my.cdf', cdfFile: join(dir, 'my.cdf'), load: 0.3 });
    expect(s.name).toBe('p');
  });
});

describe('--set overrides', () => {
  it('apply to the document before validation, as YAML scalars', () => {
    const s = parseScenarioText(
      STAR + 'workload: [{ kind: incast, senders: all, receiver: h9, size: 1MB }]',
      {
        overrides: [
          'seed=7',
          'defaults.switch.ecn.kmin=100KB',
          'workload[0].size=2MB',
          'workload.0.start=5us',
          'cc.dcqcn.rai=40Mbps',
          'defaults.nic.cc=hpcc',
          'topology={kind: star, hosts: 12}',
        ],
      },
    );
    expect(s.seed).toBe(7);
    expect(s.defaults.switch.ecn.kminBytes).toBe(100_000);
    expect(s.workload[0]).toMatchObject({ sizeBytes: 2e6, startNs: 5000 });
    expect(s.cc.dcqcn.params).toEqual({ rai: '40Mbps' });
    expect(s.defaults.nic.cc).toBe('hpcc');
    expect(s.hostNames.length).toBe(12);
  });

  it('parses key paths', () => {
    expect(parseKeyPath('workload[0].size')).toEqual(['workload', 0, 'size']);
    expect(parseKeyPath('a.b.c')).toEqual(['a', 'b', 'c']);
    expect(parseKeyPath('defaults.switch.ecn.byRate["2.5Gbps"].kmin')).toEqual([
      'defaults',
      'switch',
      'ecn',
      'byRate',
      '2.5Gbps',
      'kmin',
    ]);
  });
});

describe('bad input: one exact line each', () => {
  const cases: Array<[string, string, string[]?]> = [
    [
      STAR + 'workload: [{ kind: incast, senders: [h1], receiver: h9, size: -5 }]',
      'workload[0].size: expected a flow size like 64KB or inf, got -5',
    ],
    [
      'topology: { kind: ring }',
      'topology.kind: expected one of star|dumbbell|leafspine|fattree|explicit, got "ring"',
    ],
    [
      STAR + 'defaults: { switch: { bufer: 32MB } }',
      'defaults.switch.bufer: unknown key (did you mean buffer?)',
    ],
    [
      STAR + 'defaults: { switch: { ecn: { kmin: 2MB, kmax: 400KB } } }',
      'defaults.switch.ecn: kmin (2MB) must not exceed kmax (400KB)',
    ],
    [
      STAR + 'defaults: { switch: { ecn: { pmax: 1.5 } } }',
      'defaults.switch.ecn.pmax: expected a fraction in [0, 1] like 0.2 or 20%, got 1.5',
    ],
    ['topology: { kind: star, hosts: 1 }', 'topology.hosts: expected an integer ≥ 2, got 1'],
    [
      'topology: { kind: leafspine, leaves: 1, spines: 1, hostsPerLeaf: 1 }',
      'topology: needs at least 2 hosts, got 1',
    ],
    [
      STAR + 'workload: [{ kind: incast, senders: [h1, h2], receiver: h10, size: 1MB }]',
      'workload[0].receiver: unknown host "h10" (topology has h1..h9; did you mean h1?)',
    ],
    [
      STAR + 'workload: [{ kind: poisson, cdf: websearch, load: 0.1, hosts: [h1], receivers: [h1] }]',
      'workload[0].receivers: no receiver other than h1 itself',
    ],
    [
      STAR + 'workload: [{ kind: incast, senders: [h1, h9], receiver: h9, size: 1MB }]',
      'workload[0].senders: the receiver h9 is also a sender',
    ],
    [
      STAR + 'workload: [{ kind: flows, flows: [{ src: h1, dst: h1, size: 1MB }] }]',
      'workload[0].flows[0]: src and dst are both h1',
    ],
    [
      STAR + 'workload: [{ kind: poisson, cdf: websearch, load: 0 }]',
      'workload[0].load: expected a fraction in (0, 1] like 0.2 or 20%, got 0',
    ],
    [
      STAR + 'workload: [{ kind: poisson, cdf: websearh, load: 0.3 }]',
      'workload[0].cdf: expected websearch, fb_hadoop, cache_follower, data_mining or a CDF file path, got "websearh" (did you mean websearch?)',
    ],
    [
      STAR + 'workload: [{ kind: poisson, cdf: ./nope.cdf, load: 0.3 }]',
      'workload[0].cdf: file not found: ./nope.cdf',
    ],
    [STAR + 'workload: [{ kind: incast, senders: [h1], receiver: h9 }]', 'workload[0].size: required'],
    [
      STAR + 'workload: [{ kind: incast, senders: [h1], receiver: h9, size: 1MB, count: 3 }]',
      'workload[0].interval: required when count > 1',
    ],
    [
      STAR + 'duration: 20ms\nworkload: [{ kind: permutation, size: 1MB, start: 30ms }]',
      'workload[0].start: 30ms is not before the end of the run (duration 20ms)',
    ],
    [
      STAR + 'workload: [{ kind: incast, senders: h1..h3, receiver: h9, size: 1MB, verb: put }]',
      'workload[0].verb: expected one of write|send|read, got "put"',
    ],
    [STAR + 'workload: { kind: incast }', 'workload: expected a list, got a map'],
    [
      STAR + 'workload: [{ kind: incst }]',
      'workload[0].kind: expected one of flows|incast|permutation|poisson|alltoall|matrix|collective, got "incst" (did you mean incast?)',
    ],
    [
      STAR + 'defaults: { link: { rate: 100GBps } }',
      'defaults.link.rate: expected a rate like 100Gbps, got "100GBps"',
    ],
    [
      STAR + 'defaults: { link: { delay: 1 minute } }',
      'defaults.link.delay: expected a duration like 10us, got "1 minute"',
    ],
    [
      STAR + 'defaults: { nic: { mtu: 16KB } }',
      'defaults.nic.mtu: expected a size of at most 9KB, got "16KB"',
    ],
    [
      STAR + 'defaults: { nic: { dataPrio: 9 } }',
      'defaults.nic.dataPrio: expected an integer in [0, 7], got 9',
    ],
    [
      STAR + 'defaults: { switch: { pfc: yes } }',
      'defaults.switch.pfc: expected true, false or a map like { threshold: 600KB, headroom: 40KB }, got "yes"',
    ],
    [
      STAR + 'defaults: { switch: { pfc: { dynamic: false } } }',
      'defaults.switch.pfc.threshold: required when dynamic is false',
    ],
    [STAR + 'seed: -1', 'seed: expected an integer in [0, 4294967295], got -1'],
    [STAR + 'timeScale: 0', 'timeScale: expected a number > 0, got 0'],
    [STAR + 'processes: 0', 'processes: expected per-node, auto or a whole number ≥ 1, got 0'],
    [STAR + 'processes: many', 'processes: expected per-node, auto or a whole number ≥ 1, got "many"'],
    [
      STAR + 'hosts: { h42: { cc: hpcc } }',
      'hosts.h42: unknown host "h42" (topology has h1..h9; did you mean h2?)',
    ],
    [STAR + 'links: [{ a: h1, b: s2, loss: 0.1 }]', 'links[0].b: unknown node "s2" (did you mean s1?)'],
    ['', 'topology: required'],
    [
      STAR + 'cc: { "bad name": { a: 1 } }',
      'cc["bad name"]: expected an algorithm name (letters, digits, _ . -), got "bad name"',
    ],
    [
      STAR + 'workload: [{ kind: incast, senders: [], receiver: h2, size: 1KB }]',
      'workload[0].senders: expected all, a list of host names or a range like h1..h8, got an empty list',
    ],
    [STAR + 'workloads: []', 'workloads: unknown key (did you mean workload?)'],
    ['topology: {}', 'topology.kind: required (one of star|dumbbell|leafspine|fattree|explicit)'],
    ['topology: { kind: fattree, k: 5 }', 'topology.k: expected an even integer ≥ 2, got 5'],
    [
      'topology: { kind: fattree, k: 4, pods: 2 }',
      'topology.pods: give either k or an explicit shape, not both',
    ],
    [
      'topology: { kind: explicit, nodes: [h1, h2, s1], links: [{ a: h1, b: s1 }, { a: h2, b: s3 }] }',
      'topology.links[1].b: unknown node "s3" (did you mean s1?)',
    ],
    [
      'topology: { kind: explicit, nodes: [h1, h2, s1, s2], links: [{ a: h1, b: s1 }, { a: h2, b: s2 }] }',
      'topology: host h2 cannot reach host h1',
    ],
    [
      'topology: { kind: explicit, nodes: [h1, h2, tor], links: [{ a: h1, b: tor }, { a: h2, b: tor }] }',
      'topology.nodes[2]: cannot tell whether "tor" is a host or a switch; write { name: tor, kind: host }',
    ],
    [
      STAR + 'sampleInterval: 20ms\nduration: 10ms',
      'sampleInterval: 20ms is longer than the run (duration 10ms)',
    ],
    ['- a\n- b', 'expected a map of scenario keys at the top level, got a list'],
    [
      'topology: { kind: star, hosts: 9 }\ntopology: { kind: star }',
      'line 2, column 1: malformed YAML: Map keys must be unique',
    ],
    [
      'topology: { kind: star, hosts: 9 ',
      'line 1, column 34: malformed YAML: Flow map in block collection must be sufficiently indented and end with a }',
    ],
    [
      STAR,
      'workload[0].messageSize: expected a size like 64KB, got "big"',
      ['workload[0]={kind: alltoall, messageSize: big}'],
    ],
    [
      STAR,
      'workload[0].hosts: unknown host "h99" (topology has h1..h9; did you mean h9?)',
      ['workload=[{kind: alltoall, messageSize: 1KB, hosts: [h1, h99]}]'],
    ],
    [
      STAR + 'workload: [{ kind: collective, op: allreduce, ranks: [h1, h99], size: 8MB }]',
      'workload[0].ranks: unknown host "h99" (topology has h1..h9; did you mean h9?)',
    ],
    [
      STAR + 'workload: [{ kind: collective, op: allreduce, ranks: h1..h8, size: 1000001 }]',
      'workload[0].size: 1000001 B is not divisible by 8 (ring allreduce over 8 ranks splits it into 8 equal parts)',
    ],
    [
      STAR + 'workload: [{ kind: collective, op: alltoall, algorithm: ring, size: 9MB }]',
      'workload[0].algorithm: ring does not apply to alltoall (valid: direct)',
    ],
    [
      STAR + 'workload: [{ kind: collective, op: allreduce, algorithm: halving-doubling, size: 9MB }]',
      'workload[0].ranks: halving-doubling needs a power-of-two number of ranks, got 9',
    ],
    [
      STAR + 'workload: [{ kind: collective, op: reduce, size: 9MB }]',
      'workload[0].op: expected one of allreduce|allgather|reducescatter|alltoall|broadcast, got "reduce"',
    ],
    [
      STAR + 'workload: [{ kind: collective, op: allgather, ranks: [h1], size: 9MB }]',
      'workload[0].ranks: a collective needs at least 2 ranks, got 1',
    ],
    [
      STAR + 'workload: [{ kind: collective, op: alltoall, ranks: [h1, h2], sizes: [[0, 1], [2]] }]',
      'workload[0].sizes: expected 2 rows of 2 sizes (one per rank, rows are senders)',
    ],
    [
      STAR +
        'workload: [{ kind: collective, job: a, op: allgather, size: 9MB, iterations: 2 }, { kind: collective, job: a, op: alltoall, size: 9MB }]',
      'workload[1].iterations: job a runs 2 iterations (workload[0]), not 1',
    ],
    [STAR, '--set expects key=value, got "seed"', ['seed']],
    [STAR, '--set topology.kind.x=1: topology.kind is "star", not a map', ['topology.kind.x=1']],
    [
      STAR + 'workload: []',
      '--set workload[2].size=1MB: workload has 0 entries, no [2]',
      ['workload[2].size=1MB'],
    ],
  ];

  it.each(cases)('%s', (text, line, overrides) => {
    expect(loadError(text, overrides).message).toBe(line);
  });
});

describe('file problems and locations', () => {
  it('reports a missing file, a directory, and the file:line of a bad key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rocelab-cfg-'));
    const missing = join(dir, 'nope.yaml');
    expect(() => loadScenario(missing)).toThrow(ConfigError);
    try {
      loadScenario(missing);
    } catch (e) {
      expect((e as ConfigError).describe()).toBe(`${missing}: file not found`);
    }
    try {
      loadScenario(dir);
    } catch (e) {
      expect((e as ConfigError).describe()).toBe(`${dir}: is a directory, expected a scenario file`);
    }
    const f = join(dir, 'bad.yaml');
    writeFileSync(f, 'seed: 1\ntopology:\n  kind: star\n  hosts: 9\ndefaults:\n  switch:\n    bufer: 1MB\n');
    try {
      loadScenario(f);
      throw new Error('loaded');
    } catch (e) {
      expect((e as ConfigError).describe()).toBe(
        `${f}:7: defaults.switch.bufer: unknown key (did you mean buffer?)`,
      );
    }
  });
});
