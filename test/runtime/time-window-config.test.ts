/** Which time window a wallclock node runs in: the scenario's `timeWindow`, TIME_WINDOW, the shortest link. */
import { describe, expect, it } from 'vitest';
import { isConfigError } from '../../src/config/errors.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';
import { shortestLinkDelayNs } from '../../src/topology/model.js';
import { nodeConfigOf } from '../support/node-config.js';

const YAML = `
name: tw
duration: 100us
defaults:
  link: { rate: 100Gbps, delay: 2us }
topology: { kind: star, hosts: 3 }
links:
  - { a: h2, b: s1, delay: 700ns }
workload:
  - { kind: incast, senders: [h1], receiver: h3, size: 10KB, start: 0 }
`;

describe('time window configuration', () => {
  const cfg = nodeConfigOf(YAML);

  it('is `link` unless the scenario or TIME_WINDOW says off', () => {
    expect(cfg({}).timeWindow).toBe('link');
    expect(cfg({ TIME_WINDOW: 'off' }).timeWindow).toBe('off');
    expect(cfg({ SET: 'timeWindow=off' }).timeWindow).toBe('off');
    expect(cfg({ SET: 'timeWindow=off', TIME_WINDOW: 'link' }).timeWindow).toBe('link');
  });

  it('refuses anything else, naming the variable', () => {
    let err: unknown;
    try {
      cfg({ TIME_WINDOW: 'on' });
    } catch (e) {
      err = e;
    }
    expect(isConfigError(err)).toBe(true);
    expect(String((err as Error).message)).toMatch(/TIME_WINDOW/);
  });

  it('is the shortest link delay of the whole topology, the same for every node', () => {
    const { topo } = setupRun(cfg({}).scenario);
    expect(shortestLinkDelayNs(topo)).toBe(700);
  });
});
