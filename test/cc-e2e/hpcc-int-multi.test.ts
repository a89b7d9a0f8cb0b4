/**
 * HPCC's INT_MULTI is one value per run (docs/algorithms/hpcc.md `intMulti`, docs/wire.md "INT
 * stacks"): with `cc.hpcc.intMulti: 4` the switches stamp txBytes in 512-byte and qlen in 320-byte
 * units wrapped at 2^20·512 bytes, which is the modulus the HPCC sender unwraps with, and a real
 * node encoding and decoding the stack with the same multiplier gives it back exactly.
 */
import { describe, expect, it } from 'vitest';
import { hpcc } from '../../src/cc/hpcc/index.js';
import { registerAlgorithm } from '../../src/cc/registry.js';
import { ConfigError } from '../../src/config/errors.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';
import type { TopologyNode } from '../../src/topology/model.js';
import { decapsulate, encapsulate } from '../../src/wire/encap.js';
import { HPCC_BYTES_MODULO } from '../../src/wire/int-hpcc.js';
import { FrameKind, type IntHop, type Packet } from '../../src/wire/packet.js';
import { makeRun, scenario } from '../runtime/helpers.js';

const TWO_FLOWS = (cc: string) => `
duration: 200us
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: hpcc, mtu: 1000 }
  switch: { buffer: 32MB, pfc: true }
${cc}
topology: { kind: leafspine, leaves: 2, hostsPerLeaf: 2, spines: 1 }
workload:
  - kind: flows
    flows: [{ src: h1, dst: h3, size: 400KB }, { src: h2, dst: h3, size: 400KB, start: 3us }]
`;

describe('cc.hpcc.intMulti = 4', () => {
  it('switches stamp in 512-B / 320-B units, and the wire round trip with intMulti 4 is exact', () => {
    const departures: { pkt: Packet; hop: IntHop; sentBefore: number }[] = [];
    let run: ReturnType<typeof makeRun>['run'];
    const tap = {
      onRx() {},
      onTx(node: TopologyNode, port: number, pkt: Packet) {
        if (node.kind !== 'switch' || pkt.kind !== FrameKind.Data || pkt.int === null) return;
        const st = pkt.int;
        const txBytes = run.switches.get(node.name)!.portCounters()[port].txBytes;
        departures.push({ pkt, hop: { ...st.hops[(st.nhop - 1) % 5] }, sentBefore: txBytes - pkt.sizeBytes });
      },
    };
    const made = makeRun(TWO_FLOWS('cc: { hpcc: { intMulti: 4 } }'), { tap });
    run = made.run;
    expect(made.setup.intMulti).toBe(4);
    const r = run.run();
    expect(r.summary.flowsCompleted).toBe(2);
    expect(departures.length).toBeGreaterThan(1000);

    const bad: string[] = [];
    let notMultipleOf128x4 = 0;
    for (const d of departures) {
      const want = (Math.floor(d.sentBefore / 512) % HPCC_BYTES_MODULO) * 512;
      if (d.hop.txBytes !== want && bad.length < 10) bad.push(`txBytes ${d.hop.txBytes}, want ${want}`);
      if (d.hop.qlenBytes % 320 !== 0 && bad.length < 10)
        bad.push(`qlen ${d.hop.qlenBytes} not in 320-B units`);
      // With INT_MULTI 1 most of these would be odd multiples of 128 bytes.
      if (Math.floor(d.sentBefore / 128) % 4 !== 0) notMultipleOf128x4++;
    }
    expect(bad).toEqual([]);
    expect(notMultipleOf128x4).toBeGreaterThan(departures.length / 2);

    // What a real node does with the stamped stack: encode and decode it with the run's intMulti.
    for (const { pkt } of departures.slice(0, 200)) {
      const back = decapsulate(encapsulate(pkt, { vni: 1, intMulti: made.setup.intMulti }), {
        intMulti: made.setup.intMulti,
      });
      if ('code' in back) throw new Error(back.message);
      expect(back.int).toEqual(pkt.int);
    }
  });

  it('the default stays 1', () => {
    expect(setupRun(scenario(TWO_FLOWS(''))).intMulti).toBe(1);
  });
});

describe('intMulti that the wire cannot carry is refused (exit 2, one line)', () => {
  it('below 1', () => {
    expect(() => setupRun(scenario(TWO_FLOWS('cc: { hpcc: { intMulti: 0 } }')))).toThrow(ConfigError);
    expect(() => setupRun(scenario(TWO_FLOWS('cc: { hpcc: { intMulti: 0 } }')))).toThrow(
      'cc.hpcc.intMulti: must be an integer >= 1, got 0',
    );
  });

  it('hosts whose algorithms read HPCC INT with different multipliers', () => {
    // A second algorithm with HPCC's INT layout, so two hosts can ask for different multipliers.
    registerAlgorithm({ ...hpcc, name: 'hpcc-twin' });
    const yaml = `${TWO_FLOWS('cc: { hpcc: { intMulti: 4 }, hpcc-twin: { intMulti: 2 } }')}hosts: { h2: { cc: hpcc-twin } }\n`;
    expect(() => setupRun(scenario(yaml))).toThrow(
      'cc: hosts read HPCC INT with different intMulti (hpcc 4, hpcc-twin 2); a run has one',
    );
    // The same multiplier on both is one wire: accepted.
    const same = `${TWO_FLOWS('cc: { hpcc: { intMulti: 2 }, hpcc-twin: { intMulti: 2 } }')}hosts: { h2: { cc: hpcc-twin } }\n`;
    expect(setupRun(scenario(same)).intMulti).toBe(2);
  });
});
