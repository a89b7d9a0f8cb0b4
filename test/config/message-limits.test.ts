/**
 * A RoCE message carries at most 2 GiB (src/runtime/message-limits.ts, docs/scenario.md
 * "workload"): a flow that would post a larger one is refused at setup with one line naming its
 * workload entry, never put on the wire with a RETH DMA length that saturated.
 */
import { describe, expect, it } from 'vitest';
import { parseScenarioText } from '../../src/config/load.js';
import { MAX_MESSAGE_BYTES } from '../../src/runtime/message-limits.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';
import { setupError } from '../support/config-error.js';

const scenario = (entries: string) => `topology: { kind: star, hosts: 3 }
workload:
  - { kind: flows, flows: [{ src: h1, dst: h2, size: 1MB }] }
${entries}`;

describe('message size limit', () => {
  it('refuses a flow posted as one message larger than 2^31 B, naming its entry', () => {
    const err = setupError(scenario('  - { kind: flows, flows: [{ src: h1, dst: h3, size: 4.4GB }] }\n'));
    expect(err.where).toBe('workload[1]');
    expect(err.message).toMatch(/flow h1 -> h3 would post a message of 4400000000 B/);
    expect(err.message).toMatch(/set messageSize ≤ 2GiB/);
  });

  it('refuses a messageSize above it, for finite and long-lived flows alike', () => {
    for (const size of ['10GB', 'inf']) {
      const err = setupError(
        scenario(`  - { kind: flows, flows: [{ src: h3, dst: h1, size: ${size}, messageSize: 3GB }] }\n`),
      );
      expect(err.where, size).toBe('workload[1]');
      expect(err.message, size).toMatch(/a message of 3000000000 B/);
    }
  });

  it('takes exactly 2 GiB, and a large flow split into messages of at most that', () => {
    expect(MAX_MESSAGE_BYTES).toBe(2 ** 31);
    const setup = setupRun(
      parseScenarioText(
        scenario(`  - { kind: flows, flows: [{ src: h1, dst: h3, size: 2GiB }] }
  - { kind: flows, flows: [{ src: h2, dst: h3, size: 4.4GB, messageSize: 2GiB }] }
`),
      ),
    );
    expect(setup.workload.flows.map((f) => f.sizeBytes)).toEqual([1e6, 2 ** 31, 4.4e9]);
  });
});
