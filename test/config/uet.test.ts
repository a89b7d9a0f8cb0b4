/**
 * The Ultra Ethernet keys of the scenario (docs/algorithms/rccc.md, docs/algorithms/nscc.md
 * "Valid combinations"): `rccc` on the NIC defaults and per host, and the combinations that exit 2
 * with one line. Today every NIC runs RoCEv2 go-back-N (the multipath transport's `transport` key
 * is issue 34), so NSCC and RCCC are refused everywhere, naming the key that asked for them.
 */
import { describe, expect, it } from 'vitest';
import { RCCC_DEFAULTS } from '../../nic/rccc/settings.js';
import { type ConfigError, isConfigError } from '../../src/config/errors.js';
import { parseScenarioText } from '../../src/config/load.js';
import { nicFor } from '../../src/config/scenario.js';
import { CC_TRANSPORTS, checkUetCombinations } from '../../src/config/uet.js';

const STAR = 'topology: { kind: star, hosts: 3 }\n';

function errorOf(text: string): ConfigError {
  try {
    parseScenarioText(text, { file: 'bad.yaml' });
  } catch (err) {
    expect(isConfigError(err)).toBe(true);
    expect((err as Error).message.includes('\n')).toBe(false);
    return err as ConfigError;
  }
  throw new Error('scenario unexpectedly loaded');
}

describe('rccc NIC key', () => {
  it('is off by default; false, or a map of settings with defaults', () => {
    expect(parseScenarioText(STAR).defaults.nic.rccc).toEqual({ ...RCCC_DEFAULTS, enabled: false });
    const off = parseScenarioText(`${STAR}defaults: { nic: { rccc: false } }\n`);
    expect(off.defaults.nic.rccc.enabled).toBe(false);
  });

  it('rejects bad values with one line naming the key', () => {
    expect(errorOf(`${STAR}defaults: { nic: { rccc: { pullRate: 2 } } }\n`).message).toMatch(
      /defaults\.nic\.rccc\.pullRate/,
    );
    expect(errorOf(`${STAR}defaults: { nic: { rccc: { oversubscription: maybe } } }\n`).message).toMatch(
      /defaults\.nic\.rccc\.oversubscription: expected one of auto\|on\|off/,
    );
    expect(errorOf(`${STAR}defaults: { nic: { rccc: yes } }\n`).message).toMatch(
      /defaults\.nic\.rccc: expected true, false or a map/,
    );
  });
});

describe('valid combinations', () => {
  it('NSCC needs uet or rocev2-sr: on go-back-N it exits 2 naming the key', () => {
    expect(CC_TRANSPORTS.nscc).toEqual(['uet', 'rocev2-sr']);
    expect(errorOf(`${STAR}defaults: { nic: { cc: nscc } }\n`).message).toBe(
      'defaults.nic.cc: nscc needs transport uet or rocev2-sr, but h1 runs rocev2-gbn',
    );
    expect(errorOf(`${STAR}hosts: { h2: { cc: nscc } }\n`).message).toMatch(
      /hosts\.h2\.cc: nscc needs transport uet or rocev2-sr, but h2 runs rocev2-gbn$/,
    );
  });

  it('RCCC needs uet', () => {
    expect(errorOf(`${STAR}defaults: { nic: { rccc: true } }\n`).message).toMatch(
      /defaults\.nic\.rccc: rccc needs transport uet, but h1 runs rocev2-gbn$/,
    );
    expect(errorOf(`${STAR}hosts: { h3: { rccc: { pullRate: 0.9 } } }\n`).message).toMatch(
      /hosts\.h3\.rccc: rccc needs transport uet, but h3 runs rocev2-gbn$/,
    );
  });

  it('accepts NSCC on rocev2-sr and uet, RCCC on uet, each alone or together', () => {
    const s = parseScenarioText(STAR);
    const d = nicFor(s, 'h1');
    const on = { ...d.rccc, enabled: true };
    const run = (over: Record<string, unknown>) => () =>
      checkUetCombinations({ ...d, ...over } as typeof d, {}, ['h1']);
    expect(run({ cc: 'nscc', transport: 'rocev2-sr' })).not.toThrow();
    expect(run({ cc: 'nscc', transport: 'uet' })).not.toThrow();
    expect(run({ cc: 'none', transport: 'uet', rccc: on })).not.toThrow();
    expect(run({ cc: 'nscc', transport: 'uet', rccc: on })).not.toThrow();
    expect(run({ cc: 'nscc', transport: 'rocev2-sr', rccc: on })).toThrow(/rccc needs transport uet/);
    expect(run({ cc: 'dcqcn' })).not.toThrow();
  });
});
