import { describe, expect, it } from 'vitest';
import {
  CcConfigError,
  getAlgorithm,
  listAlgorithms,
  resolveCc,
  resolveParams,
} from '../../src/cc/registry.js';

describe('CC registry', () => {
  it('lists the built-in algorithms with summaries, profiles and described parameters', () => {
    const list = listAlgorithms();
    const names = list.map((a) => a.name);
    expect(names).toContain('none');
    expect(names).toContain('dcqcn');
    const d = list.find((a) => a.name === 'dcqcn')!;
    expect(d.summary.length).toBeGreaterThan(20);
    expect(d.profiles).toEqual(['paper', 'hpcc-sim']);
    expect(d.defaultProfile).toBe('hpcc-sim');
    expect(d.aliases.rai).toBe('rateAiBps');
    for (const p of d.params) expect(p.description.length).toBeGreaterThan(5);
    const rai = d.params.find((p) => p.name === 'rateAiBps')!;
    expect(rai.default).toBe(20e6);
    expect(rai.byProfile).toEqual({ paper: 40e6, 'hpcc-sim': 20e6 });
    expect(list.find((a) => a.name === 'none')!.params).toEqual([]);
  });

  it('resolves the default profile, a named profile, aliases and unit strings', () => {
    const def = resolveParams('dcqcn');
    expect(def).toMatchObject({ machine: 'hpcc-sim', rateIncreasePeriodNs: 300_000, fastRecoveryTimes: 1 });
    const p = resolveParams(
      'dcqcn',
      { rai: '10Mbps', alphaPeriodNs: '55us', B: '2MB', g: '0.0625' },
      'paper',
    );
    expect(p).toMatchObject({
      machine: 'paper',
      rateAiBps: 10e6,
      alphaPeriodNs: 55_000,
      byteCounterBytes: 2_000_000,
      alphaGain: 0.0625,
      cnpIntervalNs: 50_000,
    });
    expect(resolveParams('dcqcn', { profile: 'paper' }).machine).toBe('paper');
    expect(resolveParams('dcqcn', { cutWithUpdatedAlpha: 'true' }, 'paper').cutWithUpdatedAlpha).toBe(true);
    // Idempotent: a resolved set resolves to itself, under any profile.
    expect(resolveParams('dcqcn', p)).toEqual(p);
    expect(resolveCc('dcqcn', { profile: 'paper' })).toMatchObject({ name: 'dcqcn', profile: 'paper' });
    expect(resolveCc('dcqcn').profile).toBe('hpcc-sim');
  });

  it('throws one-line errors naming the unknown algorithm, profile or parameter', () => {
    const message = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(CcConfigError);
        return (e as Error).message;
      }
      throw new Error('did not throw');
    };
    expect(message(() => getAlgorithm('dcqnc'))).toMatch(
      /^unknown congestion control "dcqnc" \(known: .*dcqcn/,
    );
    expect(message(() => resolveParams('dcqcn', { rIA: 5 }))).toMatch(
      /^cc dcqcn: unknown parameter "rIA" \(known: /,
    );
    expect(message(() => resolveParams('dcqcn', {}, 'cx5'))).toBe(
      'cc dcqcn: unknown profile "cx5" (profiles: paper, hpcc-sim)',
    );
    const bad = message(() => resolveParams('dcqcn', { rai: 'fast' }));
    expect(bad).toMatch(/^cc dcqcn: parameter "rateAiBps": .*rate.* \(got "fast"\)$/);
    expect(message(() => resolveParams('dcqcn', { alphaGain: 2 }))).toMatch(/parameter "alphaGain"/);
    expect(message(() => resolveParams('dcqcn', { npMode: 'lazy' }))).toMatch(
      /parameter "npMode": .*immediate/,
    );
    expect(message(() => resolveParams('none', { x: 1 }))).toBe(
      'cc none: unknown parameter "x" (known: none)',
    );
    for (const m of [bad]) expect(m.includes('\n')).toBe(false);
  });
});
