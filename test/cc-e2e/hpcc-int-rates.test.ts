/**
 * HPCC INT's line-rate code indexes one table per run (docs/wire.md "Rate codes"): the scenario's
 * distinct switch-port rates, or the HPCC simulator's 25/50/100/200/400G table when they are all
 * in it (`defaults.switch.intRates: ns3` keeps that table and refuses any other rate). A rate the
 * table cannot hold exits 2 with one line; none is carried as another rate (the simulator's code
 * 0 = 25G made a 40G link read as 25G).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/app.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';
import type { TopologyNode } from '../../src/topology/model.js';
import { decapsulate, encapsulate } from '../../src/wire/encap.js';
import { NS3_HPCC_RATES_BPS } from '../../src/wire/int-hpcc.js';
import { FrameKind, type Packet } from '../../src/wire/packet.js';
import { makeRun, scenario } from '../runtime/helpers.js';

/** Two flows into h3 on a star whose host links run at `rate`; `more` adds keys. */
const STAR = (rate: string, more = '', cc = 'hpcc') => `
duration: 2ms
defaults:
  link: { rate: ${rate}, delay: 1us }
  nic: { cc: ${cc}, mtu: 1000 }
${more}
topology: { kind: star, hosts: 3 }
workload:
  - kind: flows
    flows: [{ src: h1, dst: h3, size: 500KB }, { src: h2, dst: h3, size: 500KB }]
`;

/** The same with each host's link at its own rate (explicit links override the default). */
const MIXED = (rates: string[], more = '', cc = 'hpcc') => `
duration: 2ms
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: ${cc}, mtu: 1000 }
${more}
topology:
  kind: explicit
  nodes: [${rates.map((_, i) => `h${i + 1}`).join(', ')}, { name: s1, kind: switch }]
  links: [${rates.map((r, i) => `{ a: h${i + 1}, b: s1, rate: ${r} }`).join(', ')}]
workload:
  - kind: flows
    flows: [{ src: h1, dst: h2, size: 100KB }]
`;

describe('the run derives one HPCC INT rate table from its switch ports', () => {
  it("is the ns-3 table when every rate is in it (those runs keep ns-3's codes)", () => {
    expect(setupRun(scenario(STAR('100Gbps'))).intRatesBps).toBe(NS3_HPCC_RATES_BPS);
    expect(setupRun(scenario(MIXED(['25Gbps', '400Gbps', '100Gbps']))).intRatesBps).toBe(NS3_HPCC_RATES_BPS);
  });

  it("is the scenario's distinct rates, ascending, otherwise; every switch stamps with it", () => {
    const setup = setupRun(scenario(MIXED(['800Gbps', '10Gbps', '40Gbps', '10Gbps'])));
    expect(setup.intRatesBps).toEqual([10e9, 40e9, 800e9]);
    const s1 = setup.topo.byName.get('s1')!;
    const cfg = setup.switchConfig(s1, { name: 's1', id: 0, ports: [], routes: new Map() });
    expect(cfg.intRatesBps).toEqual([10e9, 40e9, 800e9]);
  });

  it('holds up to eight rates', () => {
    const eight = Array.from({ length: 8 }, (_, i) => `${10 * (i + 1)}Gbps`);
    expect(setupRun(scenario(MIXED(eight))).intRatesBps).toHaveLength(8);
  });
});

describe('a rate the table cannot carry is refused (exit 2, one line)', () => {
  it('more distinct rates than the 3-bit code holds, when HPCC INT is stamped', () => {
    const nine = Array.from({ length: 9 }, (_, i) => `${10 * (i + 1)}Gbps`);
    expect(() => setupRun(scenario(MIXED(nine)))).toThrow(
      "topology: switch ports use 9 distinct line rates, but HPCC INT's 3-bit rate code holds 8 (10Gbps, 20Gbps, 30Gbps, 40Gbps, 50Gbps, 60Gbps, 70Gbps, 80Gbps, 90Gbps); use at most 8 link rates with HPCC INT",
    );
    // Nothing reads HPCC INT (DCQCN), or switches stamp none: nothing to refuse.
    expect(() => setupRun(scenario(MIXED(nine, '', 'dcqcn')))).not.toThrow();
    expect(() => setupRun(scenario(MIXED(nine, '  switch: { int: false }')))).not.toThrow();
  });

  it('intRates: ns3 with a link outside the simulator table', () => {
    const ns3 = '  switch: { intRates: ns3 }';
    expect(() => setupRun(scenario(STAR('40Gbps', ns3)))).toThrow(
      "defaults.switch.intRates: ns3: the HPCC simulator's rate codes (25Gbps, 50Gbps, 100Gbps, 200Gbps, 400Gbps) cannot carry 40Gbps; drop intRates: ns3 to derive the table from the scenario",
    );
    expect(setupRun(scenario(STAR('100Gbps', ns3))).intRatesBps).toBe(NS3_HPCC_RATES_BPS);
    expect(setupRun(scenario(STAR('40Gbps', ns3, 'dcqcn'))).intRatesBps).toBe(NS3_HPCC_RATES_BPS);
  });

  it('the CLI says so in one line and exits 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rocelab-int-rates-'));
    writeFileSync(join(dir, 'x.yaml'), STAR('40Gbps', '  switch: { intRates: ns3 }'));
    let stdout = '';
    let stderr = '';
    const code = await main(['run', 'x.yaml', '--runtime', 'virtual', '--out', join(dir, 'out')], {
      stdout: (t) => {
        stdout += t;
      },
      stderr: (t) => {
        stderr += t;
      },
      env: {},
      cwd: dir,
      deps: {},
    });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/defaults\.switch\.intRates: ns3: .* cannot carry 40Gbps/);
  });
});

describe('a buffer that could hold queues longer than the INT layout carries is refused', () => {
  it("HPCC: 2^33 units of 80·intMulti bytes (the hop word's 17 bits and option 0x04's 16)", () => {
    expect(() => setupRun(scenario(STAR('100Gbps', '  switch: { buffer: 700GB }')))).toThrow(
      'defaults.switch.buffer: 700GB can hold queues longer than HPCC INT carries (687.195GB at intMulti 1; raise cc.<algorithm>.intMulti)',
    );
    // A buffer of hundreds of MB is carried at intMulti 1, and 700 GB at intMulti 2.
    expect(() => setupRun(scenario(STAR('100Gbps', '  switch: { buffer: 500MB }')))).not.toThrow();
    const multi2 = STAR('100Gbps', '  switch: { buffer: 700GB }\ncc: { hpcc: { intMulti: 2 } }');
    expect(() => setupRun(scenario(multi2))).not.toThrow();
  });

  it("MPCC: its block's u32 queue length (4 GiB)", () => {
    expect(() => setupRun(scenario(STAR('100Gbps', '  switch: { buffer: 5GB }', 'mpcc')))).toThrow(
      'defaults.switch.buffer: 5GB can hold queues longer than MPCC INT carries (4.29497GB)',
    );
    expect(() => setupRun(scenario(STAR('100Gbps', '  switch: { buffer: 5GB }', 'dcqcn')))).not.toThrow();
  });
});

describe('a virtual HPCC run at 40 Gbit/s', () => {
  it('switches stamp 40 Gbit/s, the wire carries it with the run table, and HPCC fills the link', () => {
    const stamped: Packet[] = [];
    const tap = {
      onRx() {},
      onTx(node: TopologyNode, _port: number, pkt: Packet) {
        if (node.kind === 'switch' && pkt.kind === FrameKind.Data && pkt.int !== null && stamped.length < 500)
          stamped.push(pkt);
      },
    };
    const { run, setup } = makeRun(STAR('40Gbps'), { tap, recyclePackets: false });
    expect(setup.intRatesBps).toEqual([40e9]);
    const r = run.run();
    expect(r.summary.flowsCompleted).toBe(2);
    expect(stamped.length).toBe(500);
    for (const pkt of stamped) expect(pkt.int!.hops.map((h) => h.lineRateBps)).toEqual([40e9]);
    // What a real node does with it: the run's table both ways gives the stack back exactly.
    for (const pkt of stamped.slice(0, 50)) {
      const opts = { intMulti: setup.intMulti, intRatesBps: setup.intRatesBps };
      const back = decapsulate(encapsulate(pkt, { vni: 1, ...opts }), opts);
      if ('code' in back) throw new Error(back.message);
      expect(back.int).toEqual(pkt.int);
    }
    // 1 MB through a 40 Gbit/s port: with the line rate read as 25G (the simulator's code 0)
    // HPCC held U near 1.6·η and sent ~60 % of this; η = 0.95 of the link less INT's 42 B/frame
    // and start-up is ≥ 0.8 here.
    const lastEndNs = Math.max(...r.flows.map((f) => f.endNs!));
    const payloadBps = 40e9 * (1000 / 1062);
    expect((1e6 * 8e9) / lastEndNs / payloadBps).toBeGreaterThan(0.8);
  });
});
