/**
 * `links` entries with `at` (docs/scenario.md "links"): a change of a switch–switch link at a
 * time, in both directions, handed to the switch at each end as port events; what cannot change
 * at a time is refused with one line.
 */
import { describe, expect, it } from 'vitest';
import { parseScenarioText } from '../../src/config/load.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';
import { setupError } from '../support/config-error.js';

const DUMBBELL = 'topology: { kind: dumbbell, left: 2, right: 2 }\n';

const errorOf = (text: string): string => setupError(text).message;

const portEvents = (text: string, sw: string) => {
  const setup = setupRun(parseScenarioText(text));
  const node = setup.topo.byName.get(sw)!;
  return setup.switchConfig(node, { name: sw, id: node.index, ports: [], routes: new Map() }).portEvents;
};

describe('links at a time', () => {
  it('become port events on both switches, in file order, and leave the topology as built', () => {
    const text = `${DUMBBELL}links:
  - { a: s1, b: s2, at: 200us, rate: 25Gbps }
  - { a: s2, b: s1, at: 1ms, down: true }
  - { a: s1, b: s2, at: 2ms, down: false }
`;
    const setup = setupRun(parseScenarioText(text));
    // The bottleneck is built at its own rate; the change comes later.
    const s1 = setup.topo.byName.get('s1')!;
    const toS2 = s1.ports.find((p) => p.peerNode === 's2')!;
    expect(toS2.rateBps).toBe(100e9);
    expect(portEvents(text, 's1')).toEqual([
      // The RED thresholds of the new rate: the 100G defaults (400/1600 KB) at a quarter.
      {
        atNs: 200_000,
        port: toS2.index,
        rateBps: 25e9,
        ecn: { kminBytes: 100_000, kmaxBytes: 400_000, pmax: 0.2 },
      },
      { atNs: 1_000_000, port: toS2.index, down: true },
      { atNs: 2_000_000, port: toS2.index, down: false },
    ]);
    const s2 = setup.topo.byName.get('s2')!;
    const toS1 = s2.ports.find((p) => p.peerNode === 's1')!.index;
    expect(portEvents(text, 's2')?.map((e) => e.port)).toEqual([toS1, toS1, toS1]);
    expect(portEvents(DUMBBELL, 's1')).toBeUndefined();
  });

  it('refuses what cannot change at a time', () => {
    expect(errorOf(`${DUMBBELL}links: [{ a: s1, b: s2, at: 1us, delay: 5us }]`)).toBe(
      'links[0].delay: cannot change at a time (only rate and down can)',
    );
    expect(errorOf(`${DUMBBELL}links: [{ a: s1, b: s2, at: 1us }]`)).toBe('links[0]: at needs rate or down');
    expect(errorOf(`${DUMBBELL}links: [{ a: h1, b: s1, at: 1us, rate: 10Gbps }]`)).toBe(
      "links[0].a: h1 is a host: only links between switches change at a time (a NIC's line rate is fixed for the run)",
    );
    expect(errorOf(`${DUMBBELL}links: [{ a: s1, b: s2, down: true }]`)).toBe(
      'links[0].down: needs at (at: 0 for a link down from the start)',
    );
    expect(errorOf(`${DUMBBELL}duration: 1ms\nlinks: [{ a: s1, b: s2, at: 2ms, down: true }]`)).toBe(
      'links[0].at: 2ms is not before the end of the run (duration 1ms)',
    );
    expect(
      errorOf(`topology: { kind: leafspine, leaves: 2, spines: 2, hostsPerLeaf: 1 }
links: [{ a: s1, b: s2, at: 1us, down: true }]`),
    ).toBe('links[0]: s1 and s2 are not linked');
  });
});
