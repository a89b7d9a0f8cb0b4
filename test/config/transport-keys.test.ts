import { describe, expect, it } from 'vitest';
import { type ConfigError, isConfigError } from '../../src/config/errors.js';
import { parseScenarioText } from '../../src/config/load.js';
import { nicFor } from '../../src/config/scenario.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';

const STAR = 'topology: { kind: star, hosts: 4 }\n';
const FLOW = 'workload:\n  - { kind: flows, flows: [{ src: h1, dst: h2, size: 1MB }] }\n';

function errorOf(text: string): ConfigError {
  try {
    setupRun(parseScenarioText(text, { file: 'bad.yaml' }));
  } catch (err) {
    expect(isConfigError(err)).toBe(true);
    expect((err as Error).message.includes('\n')).toBe(false);
    return err as ConfigError;
  }
  throw new Error('scenario unexpectedly loaded');
}

describe('transport and path keys', () => {
  it('default to go-back-N and one entropy per flow, with the 1 ms RTO', () => {
    const n = nicFor(parseScenarioText(STAR), 'h1');
    expect(n.transport).toBe('rocev2-gbn');
    expect(n.paths).toEqual({ policy: 'ecmp', count: 64 });
    expect(n.rtoNs).toBe(1_000_000);
    expect(n.reorderWindow).toBe(1024);
    expect(n.sackBytes).toBe(16_384);
  });

  it('uet takes the reference RTO and no SACK-gap threshold; rocev2-sr the BDP threshold', () => {
    const s = parseScenarioText(
      `${STAR}defaults: { nic: { transport: uet } }\nhosts: { h2: { transport: rocev2-sr }, h3: { transport: uet, rto: 300us } }\n`,
    );
    expect(nicFor(s, 'h1')).toMatchObject({ transport: 'uet', rtoNs: 100_000, reorderThreshold: null });
    expect(nicFor(s, 'h2')).toMatchObject({
      transport: 'rocev2-sr',
      rtoNs: 1_000_000,
      reorderThreshold: 'bdp',
    });
    expect(nicFor(s, 'h3')).toMatchObject({ transport: 'uet', rtoNs: 300_000 });
  });

  it('refuses bad values with one line', () => {
    for (const [text, what] of [
      [`${STAR}defaults: { nic: { transport: tcp } }\n`, /transport.*one of/],
      [`${STAR}defaults: { nic: { paths: { policy: flowlet } } }\n`, /policy/],
      [`${STAR}defaults: { nic: { paths: { policy: oblivious, count: 48 } } }\n`, /power of two/],
      [`${STAR}defaults: { nic: { reorderWindow: 1000 } }\n`, /power of two/],
      [`${STAR}defaults: { nic: { reorderThreshold: soon } }\n`, /bdp or off/],
    ] as const) {
      expect(() => parseScenarioText(text), text).toThrow(what);
    }
  });

  it('refuses a flow whose ends run different transports, and HPCC over spraying (exit 2)', () => {
    expect(errorOf(`${STAR}${FLOW}hosts: { h2: { transport: rocev2-sr } }\n`).message).toMatch(
      /h1 -> h2 joins transport rocev2-gbn to rocev2-sr/,
    );
    expect(
      errorOf(
        `${STAR}${FLOW}defaults: { nic: { cc: hpcc, transport: rocev2-sr, paths: { policy: reps } } }\n`,
      ).message,
    ).toMatch(/hpcc.*cannot spray/);
    // HPCC over selective repeat on one path is fine.
    expect(() =>
      setupRun(parseScenarioText(`${STAR}${FLOW}defaults: { nic: { cc: hpcc, transport: rocev2-sr } }\n`)),
    ).not.toThrow();
  });
});
