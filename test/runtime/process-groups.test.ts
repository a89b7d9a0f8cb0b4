/**
 * The local runtime's `processes` (docs/realtime.md "Processes"): which nodes share an OS process.
 * Every node runs in exactly one process, neighbours share one, and nodes with their own
 * environment run alone; a run whose processes would not fit the machine's memory is refused.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { loadScenario } from '../../src/config/load.js';
import { processGroups } from '../../src/runtime/local/launcher.js';
import { checkMachineFits } from '../../src/runtime/real/capacity.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';

const leafSpine = setupRun(
  loadScenario({
    text: `
topology: { kind: leafspine, leaves: 4, spines: 2, hostsPerLeaf: 4 }
workload: [{ kind: incast, senders: [h1, h2], receiver: h3, size: 10KB }]
`,
  }),
).topo;

function expectPartition(groups: string[][]): void {
  const all = groups.flat();
  expect(new Set(all).size).toBe(all.length);
  expect(all.sort()).toEqual(leafSpine.nodes.map((n) => n.name).sort());
}

describe('processGroups', () => {
  it('per-node: one process each', () => {
    const g = processGroups(leafSpine, 'per-node');
    expect(g).toHaveLength(leafSpine.nodes.length);
    expect(g.every((x) => x.length === 1)).toBe(true);
  });

  it('auto: one each while the nodes fit the cores, else as many processes as cores', () => {
    expect(processGroups(leafSpine, 'auto', [], 64)).toHaveLength(leafSpine.nodes.length);
    const g = processGroups(leafSpine, 'auto', [], 2);
    expect(g).toHaveLength(2);
    expectPartition(g);
    expect(Math.abs(g[0].length - g[1].length)).toBeLessThanOrEqual(1);
  });

  it('a number: that many balanced processes, a leaf with its hosts in one', () => {
    const g = processGroups(leafSpine, 4);
    expect(g).toHaveLength(4);
    expectPartition(g);
    const leaf = leafSpine.nodes.find(
      (n) => n.kind === 'switch' && n.ports.some((p) => p.peerNode === 'h1'),
    )!;
    const withLeaf = g.find((x) => x.includes(leaf.name))!;
    const hostsOfLeaf = leaf.ports.map((p) => p.peerNode).filter((n) => n.startsWith('h'));
    expect(hostsOfLeaf.filter((h) => withLeaf.includes(h)).length).toBeGreaterThanOrEqual(
      hostsOfLeaf.length - 1,
    );
    expect(processGroups(leafSpine, 1000)).toHaveLength(leafSpine.nodes.length);
  });

  it('nodes with their own environment run alone', () => {
    const g = processGroups(leafSpine, 2, ['h1', 'h5']);
    expectPartition(g);
    expect(g).toContainEqual(['h1']);
    expect(g).toContainEqual(['h5']);
    expect(g.filter((x) => x.length > 1)).toHaveLength(2);
  });
});

describe('checkMachineFits', () => {
  const GB = 2 ** 30;
  it('budgets a process each, and less for every further node sharing one', () => {
    expect(() => checkMachineFits('ft', 376, 'local', 24 * GB, 2)).not.toThrow();
    expect(() => checkMachineFits('ft', 376, 'local', 24 * GB, 376)).toThrow(ConfigError);
  });

  it('a run that does not fit is refused with one line naming the memory it needs', () => {
    let message = '';
    try {
      checkMachineFits('websearch-fattree320', 376, 'local', 8 * GB);
    } catch (err) {
      message = (err as ConfigError).message;
    }
    expect(message).toMatch(/376 nodes in 376 processes, about 47\.0 GB of memory.*8\.0 GB available/);
    expect(message).toContain('--set processes=auto');
    expect(message.split('\n')).toHaveLength(1);
  });
});
