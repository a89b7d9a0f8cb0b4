/**
 * The Ultra Ethernet keys of the scenario (docs/algorithms/rccc.md, docs/algorithms/nscc.md
 * "Valid combinations", docs/scenario.md "UET: valid combinations"): `rccc` on the NIC defaults
 * and per host, and the combinations that exit 2 with one line naming the key that asked for
 * them (NSCC on go-back-N, RCCC on anything but uet), from the scenario loader and from the CLI
 * (`run`, `run --cc nscc`, `compare` with a variant that makes one).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RCCC_DEFAULTS } from '../../nic/rccc/settings.js';
import { main } from '../../src/cli/app.js';
import { parseScenarioText } from '../../src/config/load.js';
import { nicFor } from '../../src/config/scenario.js';
import { CC_TRANSPORTS, checkUetCombinations } from '../../src/config/uet.js';
import { loadError } from '../support/config-error.js';

const STAR = 'topology: { kind: star, hosts: 3 }\n';

describe('rccc NIC key', () => {
  it('is off by default; false, or a map of settings with defaults', () => {
    expect(parseScenarioText(STAR).defaults.nic.rccc).toEqual({ ...RCCC_DEFAULTS, enabled: false });
    const off = parseScenarioText(`${STAR}defaults: { nic: { rccc: false } }\n`);
    expect(off.defaults.nic.rccc.enabled).toBe(false);
  });

  it('rejects bad values with one line naming the key', () => {
    expect(loadError(`${STAR}defaults: { nic: { rccc: { pullRate: 2 } } }\n`).message).toMatch(
      /defaults\.nic\.rccc\.pullRate/,
    );
    expect(loadError(`${STAR}defaults: { nic: { rccc: { oversubscription: maybe } } }\n`).message).toMatch(
      /defaults\.nic\.rccc\.oversubscription: expected one of auto\|on\|off/,
    );
    expect(loadError(`${STAR}defaults: { nic: { rccc: yes } }\n`).message).toMatch(
      /defaults\.nic\.rccc: expected true, false or a map/,
    );
  });
});

describe('valid combinations', () => {
  it('NSCC needs uet or rocev2-sr: on go-back-N it exits 2 naming the key', () => {
    expect(CC_TRANSPORTS.nscc).toEqual(['uet', 'rocev2-sr']);
    expect(loadError(`${STAR}defaults: { nic: { cc: nscc } }\n`).message).toBe(
      'defaults.nic.cc: nscc needs transport uet or rocev2-sr, but h1 runs rocev2-gbn',
    );
    expect(loadError(`${STAR}hosts: { h2: { cc: nscc } }\n`).message).toMatch(
      /hosts\.h2\.cc: nscc needs transport uet or rocev2-sr, but h2 runs rocev2-gbn$/,
    );
  });

  it('RCCC needs uet', () => {
    expect(loadError(`${STAR}defaults: { nic: { rccc: true } }\n`).message).toMatch(
      /defaults\.nic\.rccc: rccc needs transport uet, but h1 runs rocev2-gbn$/,
    );
    expect(loadError(`${STAR}hosts: { h3: { rccc: { pullRate: 0.9 } } }\n`).message).toMatch(
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

describe('bad combinations on the command line: exit 2, one line, nothing run', () => {
  const ROOT = join(import.meta.dirname, '..', '..');
  async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'rocelab-uet-bad-'));
    writeFileSync(join(dir, 'gbn.yaml'), `${STAR}defaults: { nic: { cc: nscc } }\n`);
    writeFileSync(join(dir, 'sr.yaml'), `${STAR}defaults: { nic: { transport: rocev2-sr, rccc: true } }\n`);
    writeFileSync(
      join(dir, 'plain.yaml'),
      `${STAR}workload: [{ kind: incast, senders: [h1, h2], receiver: h3, size: 64KB }]\n`,
    );
    let stdout = '';
    let stderr = '';
    const io = {
      stdout: (t: string) => {
        stdout += t;
      },
      stderr: (t: string) => {
        stderr += t;
      },
      env: {},
      cwd: dir,
    };
    const code = await main([...argv, '--out', join(dir, 'out')], io);
    return { code, stdout, stderr };
  }

  it.each([
    [
      ['run', 'gbn.yaml'],
      /^rocelab: gbn\.yaml:\d+: defaults\.nic\.cc: nscc needs transport uet or rocev2-sr, but h1 runs rocev2-gbn$/,
    ],
    [
      ['run', 'plain.yaml', '--cc', 'nscc'],
      /^rocelab: plain\.yaml: defaults\.nic\.cc: nscc needs transport uet or rocev2-sr, but h1 runs rocev2-gbn$/,
    ],
    [
      ['compare', 'plain.yaml', '--cc', 'dcqcn,nscc'],
      /^rocelab: plain\.yaml: defaults\.nic\.cc: nscc needs transport uet or rocev2-sr, but h1 runs rocev2-gbn$/,
    ],
    [
      ['run', 'sr.yaml'],
      /^rocelab: sr\.yaml:\d+: defaults\.nic\.rccc: rccc needs transport uet, but h1 runs rocev2-sr$/,
    ],
    [
      ['run', 'plain.yaml', '--set', 'hosts.h3.rccc=true'],
      /hosts\.h3\.rccc: rccc needs transport uet, but h3 runs rocev2-gbn$/,
    ],
    [
      [
        'compare',
        join(ROOT, 'scenarios', 'uet-vs-roce.yaml'),
        '--variant',
        'nscc:defaults.nic.transport=rocev2-gbn',
      ],
      /nscc needs transport uet or rocev2-sr, but h1 runs rocev2-gbn$/,
    ],
    [
      [
        'compare',
        join(ROOT, 'scenarios', 'uet-vs-roce.yaml'),
        '--variant',
        'nscc-rccc:defaults.nic.transport=rocev2-sr',
      ],
      /rccc needs transport uet, but h1 runs rocev2-sr$/,
    ],
  ])('%j', async (argv, line) => {
    const r = await cli(argv as string[]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(line as RegExp);
  });
});
