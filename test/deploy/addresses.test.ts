/** Address maps with DNS names (Kubernetes): parsed, refused unresolved, resolved and checked. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AddressError,
  addressOf,
  endpointOf,
  hasDnsNames,
  isDnsName,
  parseAddressMap,
  resolveAddressMap,
  resolveAddressMapRetrying,
} from '../../src/runtime/real/addresses.js';

const table: Record<string, string> = {
  'h1.lab': '198.18.40.11',
  's1.lab': '198.18.40.21',
  'evil.lab': '10.0.0.1',
};
const lookup = async (n: string) => {
  const ip = table[n];
  if (ip === undefined) throw new Error('ENOTFOUND');
  return ip;
};

describe('DNS names in the address map', () => {
  it('accepts host:port names next to ip:port and keeps them unresolved', () => {
    const m = parseAddressMap('{"h1":"h1.lab:6081","s1":"198.18.40.21:6081"}');
    expect(endpointOf(m, 'h1')).toEqual({ host: 'h1.lab', port: 6081 });
    expect(hasDnsNames(m)).toBe(true);
    expect(hasDnsNames(parseAddressMap('{"s1":"198.18.40.21:6081"}'))).toBe(false);
    expect(isDnsName('h1.rocelab')).toBe(true);
    expect(isDnsName('198.18.0.1')).toBe(false);
    expect(isDnsName('-bad.lab')).toBe(false);
  });

  it('refuses malformed names and ports', () => {
    expect(() => parseAddressMap('{"h1":"h_1.lab:6081"}')).toThrow(AddressError);
    expect(() => parseAddressMap('{"h1":"h1.lab:70000"}')).toThrow(/out of range/);
    expect(() => parseAddressMap('{"h1":"h1.lab"}')).toThrow(AddressError);
  });

  it('addressOf never hands out an unresolved name (the node sends only to addresses)', () => {
    const m = parseAddressMap('{"h1":"h1.lab:6081"}');
    expect(() => addressOf(m, 'h1')).toThrow(/resolve the address map first/);
  });

  it('rocelab node given an unresolved name exits 2 with one line instead of sending to a name', () => {
    const r = spawnSync(
      process.execPath,
      [join(import.meta.dirname, '..', '..', 'bin', 'rocelab.js'), 'node'],
      {
        env: {
          PATH: process.env.PATH ?? '',
          NODE: 'h1',
          SCENARIO: join(import.meta.dirname, '..', '..', 'deploy', 'scenarios', 'mini-testbed.yaml'),
          ADDRESS_MAP: '{"h1":"h1.lab:6081"}',
        },
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/DNS name h1.lab: resolve the address map first/);
  });

  it('resolves every name once and checks the address it resolves to', async () => {
    let calls = 0;
    const counting = async (n: string) => {
      calls++;
      return lookup(n);
    };
    const m = parseAddressMap(
      '{"h1":"h1.lab:6081","h1:0":"h1.lab:6082","s1":"s1.lab:6081","x":"127.0.0.9:1"}',
    );
    const r = await resolveAddressMap(m, counting);
    expect(r).toEqual({
      h1: '198.18.40.11:6081',
      'h1:0': '198.18.40.11:6082',
      s1: '198.18.40.21:6081',
      x: '127.0.0.9:1',
    });
    expect(calls).toBe(2);
    expect(addressOf(r, 'h1')).toEqual({ host: '198.18.40.11', port: 6081 });
    await expect(resolveAddressMap(parseAddressMap('{"e":"evil.lab:1"}'), lookup)).rejects.toThrow(
      /outside 127.0.0.0\/8 and 198.18.0.0\/15/,
    );
    await expect(resolveAddressMap(parseAddressMap('{"n":"nope.lab:1"}'), lookup)).rejects.toThrow(
      /cannot resolve nope.lab/,
    );
  });

  it('retries a name that is not published yet, and gives up after the timeout', async () => {
    let tries = 0;
    const late = async (n: string) => {
      tries++;
      if (tries < 3) throw new Error('ENOTFOUND');
      return lookup(n);
    };
    const m = parseAddressMap('{"h1":"h1.lab:6081"}');
    const retries: string[] = [];
    const r = await resolveAddressMapRetrying(m, {
      timeoutMs: 5000,
      retryMs: 5,
      lookup: late,
      onRetry: (p) => retries.push(p),
    });
    expect(r.h1).toBe('198.18.40.11:6081');
    expect(retries).toHaveLength(2);
    const t0 = Date.now();
    await expect(
      resolveAddressMapRetrying(parseAddressMap('{"n":"nope.lab:1"}'), { timeoutMs: 50, retryMs: 5, lookup }),
    ).rejects.toThrow(/cannot resolve/);
    expect(Date.now() - t0).toBeLessThan(5000);
    // A forbidden address is not retried.
    await expect(
      resolveAddressMapRetrying(parseAddressMap('{"e":"evil.lab:1"}'), { timeoutMs: 60_000, lookup }),
    ).rejects.toThrow(/outside/);
  });
});
