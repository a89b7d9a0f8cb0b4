/**
 * `defaults.switch.trim` and `defaults.switch.pfc.priorities` (docs/scenario.md): keys, checks,
 * and the reference simulator's BDP-based defaults that setupRun fills in (src/runtime/trim-setup.ts).
 */
import { describe, expect, it } from 'vitest';
import { parseScenarioText } from '../../src/config/load.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';
import { networkBdp } from '../../src/runtime/trim-setup.js';
import { setupError } from '../support/config-error.js';

const STAR = 'topology: { kind: star, hosts: 9 }\n';

/** The reference simulator's validation set-up: k = 4 fat tree, 100G, 1 µs hops, 4 KB payload. */
const REFERENCE = `
topology: { kind: fattree, k: 4 }
defaults:
  nic: { mtu: 4096 }
  switch: { pfc: false, trim: true }
`;

const switchConfig = (text: string) => {
  const setup = setupRun(parseScenarioText(text));
  const sw = setup.topo.switches[0];
  const ports = sw.ports.map((p) => ({ rateBps: p.rateBps, mac: 0, peerMac: 0 }));
  return setup.switchConfig(sw, { name: sw.name, id: 0, ports, routes: new Map() });
};

describe('trim defaults', () => {
  it('follow the reference on its own set-up: 1 × BDP queue, RED at 9 and 35 frames, headers 2 × queue', () => {
    const setup = setupRun(parseScenarioText(REFERENCE));
    const bdp = networkBdp(setup.scenario, setup.topo, setup.routes);
    // 6 links: 12 µs of propagation and 6 × (4158 + 66) B at 100G = 2.03 µs (the reference: ≈ 14.0 µs).
    expect(bdp.rttNs).toBeCloseTo(12_000 + (6 * (4158 + 66) * 8) / 100, 6);
    expect(bdp.frameBytes).toBe(4158);
    expect(bdp.frames).toBe(43);
    const cfg = switchConfig(REFERENCE);
    expect(cfg.trim).toEqual({
      queueBytes: 43 * 4158,
      headerQueueBytes: 2 * 43 * 4158,
      ecn: { kminBytes: 9 * 4158, kmaxBytes: 35 * 4158, pmax: 1 },
    });
    // A ToR: two ports face hosts (last-hop trims there), two face aggs.
    expect(cfg.ports.map((p) => p.peerIsHost)).toEqual([true, true, false, false]);
  });

  it('take the sizes the scenario sets', () => {
    const cfg = switchConfig(
      `${STAR}defaults: { switch: { pfc: false, trim: { queueBytes: 100KB, headerQueueBytes: 10KB, kmin: 20KB, kmax: 80KB, pmax: 0.5 } } }`,
    );
    expect(cfg.trim).toEqual({
      queueBytes: 100_000,
      headerQueueBytes: 10_000,
      ecn: { kminBytes: 20_000, kmaxBytes: 80_000, pmax: 0.5 },
    });
  });

  it('are off by default, and a switch then has no trim config', () => {
    expect(switchConfig(STAR).trim).toBeUndefined();
    expect(switchConfig(`${STAR}defaults: { switch: { trim: false } }`).trim).toBeUndefined();
  });
});

describe('lossy priorities', () => {
  it('pfc.priorities lists the lossless priorities and reaches the switches', () => {
    const cfg = switchConfig(`${STAR}defaults: { switch: { pfc: { priorities: [4, 2, 4] }, trim: true } }`);
    expect(cfg.pfc.priorities).toEqual([2, 4]);
    expect(cfg.trim).not.toBeUndefined();
  });

  it('trimming with every data priority lossless is refused: it would trim nothing', () => {
    expect(setupError(`${STAR}defaults: { switch: { trim: true } }`).message).toBe(
      'defaults.switch.trim: trims only lossy priorities, but every host sends data on a lossless one (dataPrio 3); list the lossless priorities in defaults.switch.pfc.priorities, or set pfc: false',
    );
    // One host on a lossy priority is enough.
    expect(() =>
      setupRun(
        parseScenarioText(
          `${STAR}defaults: { switch: { pfc: { priorities: [3] }, trim: true } }\nhosts: { h2: { dataPrio: 2 } }`,
        ),
      ),
    ).not.toThrow();
  });

  it('refuses a priority beyond the switch queues and a kmax above the queue', () => {
    expect(
      setupError(`${STAR}defaults: { switch: { queues: 4, pfc: { priorities: [5] } } }`).message,
    ).toContain('defaults.switch.pfc.priorities: priority 5 needs at least 6 switch queues');
    expect(
      setupError(`${STAR}defaults: { switch: { pfc: false, trim: { queueBytes: 10KB, kmax: 20KB } } }`)
        .message,
    ).toContain('defaults.switch.trim.kmax: kmax (20KB) exceeds queueBytes (10KB)');
    // Defaults that do not fit a small queue are refused too, rather than snapped.
    expect(setupError(`${REFERENCE.replace('trim: true', 'trim: { queueBytes: 50KB }')}`).message).toContain(
      'defaults.switch.trim: kmax (145.53KB) exceeds queueBytes (50KB)',
    );
  });
});
