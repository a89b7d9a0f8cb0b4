import { describe, expect, it } from 'vitest';
import { parseScenarioText } from '../../src/config/load.js';
import { nicFor } from '../../src/config/scenario.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';
import { setupError } from '../support/config-error.js';

const STAR = 'topology: { kind: star, hosts: 4 }\n';
const FLOW = 'workload:\n  - { kind: flows, flows: [{ src: h1, dst: h2, size: 1MB }] }\n';

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

  it('refuses a flow whose ends run different transports, and HPCC or SRCC over spraying (exit 2)', () => {
    expect(setupError(`${STAR}${FLOW}hosts: { h2: { transport: rocev2-sr } }\n`).message).toMatch(
      /h1 -> h2 joins transport rocev2-gbn to rocev2-sr/,
    );
    expect(
      setupError(
        `${STAR}${FLOW}defaults: { nic: { cc: hpcc, transport: rocev2-sr, paths: { policy: reps } } }\n`,
      ).message,
    ).toMatch(/hpcc.*cannot spray/);
    // SRCC's switches key a flow by its UDP source port: every entropy would be a flow.
    expect(
      setupError(
        `${STAR}${FLOW}defaults: { nic: { cc: srcc, transport: rocev2-sr, paths: { policy: oblivious } } }\n`,
      ).message,
    ).toBe(
      'defaults.nic.paths: h1 runs srcc, whose switches key a flow by its UDP source port; spraying (policy oblivious) would make each entropy a flow: use ecmp',
    );
    expect(() =>
      setupRun(parseScenarioText(`${STAR}${FLOW}defaults: { nic: { cc: srcc, transport: rocev2-sr } }\n`)),
    ).not.toThrow();
    // HPCC over selective repeat on one path is fine.
    expect(() =>
      setupRun(parseScenarioText(`${STAR}${FLOW}defaults: { nic: { cc: hpcc, transport: rocev2-sr } }\n`)),
    ).not.toThrow();
  });
});
