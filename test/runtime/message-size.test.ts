/**
 * A RoCE message carries at most 2^31 bytes (InfiniBand's largest; RETH's DMA length holds it,
 * src/wire/reth.ts): a `messageSize` above that is refused with one line, and a flow larger than
 * that without one is posted as messages of that size, so no RETH on the wire claims a length
 * its message does not have (it saturated at 4 GiB - 1 before).
 */
import { describe, expect, it } from 'vitest';
import { parseScenarioText } from '../../src/config/load.js';
import { planFromSetup } from '../../src/runtime/app/plan.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';
import { MAX_MESSAGE_BYTES } from '../../src/wire/reth.js';
import { loadError } from '../support/config-error.js';

const flows = (list: string) => `topology: { kind: star, hosts: 3 }
workload:
  - kind: flows
    flows: [${list}]
`;

describe('message size', () => {
  it('is at most 2^31 B: a larger messageSize is refused with one line naming it', () => {
    expect(MAX_MESSAGE_BYTES).toBe(2 ** 31);
    for (const size of ['10GB', 'inf']) {
      const err = loadError(flows(`{ src: h1, dst: h2, size: ${size}, messageSize: 3GB }`));
      expect(err.where, size).toBe('workload[0].flows[0].messageSize');
      expect(err.message, size).toMatch(/at most/);
    }
  });

  it('a flow larger than that without one is posted as messages of 2^31 B and the rest', () => {
    const setup = setupRun(
      parseScenarioText(
        flows(
          '{ src: h1, dst: h3, size: 4.4GB }, { src: h2, dst: h3, size: 2GiB }, { src: h1, dst: h2, size: 5GB, messageSize: 1GB }',
        ),
      ),
    );
    const plan = planFromSetup(setup);
    expect(plan.flows[0].messageBytes).toEqual([2 ** 31, 2 ** 31, 4.4e9 - 2 ** 32]);
    // Exactly the largest message stays one message; a messageSize of the user's is kept as given.
    expect(plan.flows[1].messageBytes).toEqual([2 ** 31]);
    expect(plan.flows[2].messageBytes).toEqual([1e9, 1e9, 1e9, 1e9, 1e9]);
  });
});
