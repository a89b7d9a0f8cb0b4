import { describe, expect, it } from 'vitest';
import { type CcRegistryLike, checkCcNames, resolveCcParams } from '../../src/config/cc-params.js';
import { parseScenarioText } from '../../src/config/load.js';

/** A stand-in registry: dcqcn (rai, g; profiles paper/hpcc) and hpcc (eta). */
const registry: CcRegistryLike = {
  names: ['dcqcn', 'hpcc'],
  resolveParams(name, overrides, profile) {
    const known: Record<string, Record<string, number>> = {
      dcqcn: { rai: 40e6, g: 1 / 256 },
      hpcc: { eta: 0.95 },
    };
    const params = { ...known[name] };
    if (profile !== undefined && !(name === 'dcqcn' && (profile === 'paper' || profile === 'hpcc')))
      throw new Error(`cc ${name}: unknown profile "${profile}" (profiles: paper, hpcc)`);
    for (const [k, v] of Object.entries(overrides)) {
      if (!(k in params))
        throw new Error(`cc ${name}: unknown parameter "${k}" (known: ${Object.keys(params).join(', ')})`);
      params[k] = Number(v);
    }
    return params;
  },
};

const load = (extra: string) => parseScenarioText(`topology: { kind: star, hosts: 3 }\n${extra}`);

describe('cc names and parameters against the registry', () => {
  it('resolves the parameters of every algorithm in use', () => {
    const s = load('hosts: { h2: { cc: hpcc } }\ncc: { dcqcn: { profile: paper, rai: 10000000 } }');
    expect(resolveCcParams(s, registry)).toEqual({ dcqcn: { rai: 1e7, g: 1 / 256 }, hpcc: { eta: 0.95 } });
  });

  it.each([
    [
      'defaults: { nic: { cc: dcqnc } }',
      'defaults.nic.cc: unknown algorithm "dcqnc" (did you mean dcqcn? known: dcqcn, hpcc)',
    ],
    ['hosts: { h1: { cc: swift } }', 'hosts.h1.cc: unknown algorithm "swift" (known: dcqcn, hpcc)'],
    ['cc: { hpc: { eta: 0.9 } }', 'cc.hpc: unknown algorithm "hpc" (did you mean hpcc? known: dcqcn, hpcc)'],
    ['cc: { dcqcn: { rai2: 1 } }', 'cc.dcqcn: unknown parameter "rai2" (known: rai, g)'],
    ['cc: { dcqcn: { profile: cx4 } }', 'cc.dcqcn: unknown profile "cx4" (profiles: paper, hpcc)'],
  ])('%s', (extra, line) => {
    expect(() => resolveCcParams(load(extra), registry)).toThrow(line);
  });

  it('an empty registry says so', () => {
    expect(() => checkCcNames(load(''), [])).toThrow(
      'defaults.nic.cc: unknown algorithm "dcqcn" (no algorithms are registered)',
    );
  });
});
