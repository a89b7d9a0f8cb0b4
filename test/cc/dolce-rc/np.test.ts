/**
 * Dolce-RC's notification point: ideal mode counts CE packets into CNPs (exact extension and
 * the saturating 7-bit BTH field), one CNP per τ_CNP with a deferred flush; actual mode sends
 * bare CNPs at most every 1 µs.
 */
import { describe, expect, it } from 'vitest';
import { dolceRcNp } from '../../../src/cc/dolce-rc/np.js';
import type { DolceRcParams } from '../../../src/cc/dolce-rc/params.js';
import { resolveParams } from '../../../src/cc/registry.js';
import { driveNp } from '../../../src/cc/testing/index.js';
import { flowInfo, US } from './rig.js';

/** Dolce-RC's NP on the one harness (src/cc/testing): one QP, its CNPs with their payload. */
function npRig(p: DolceRcParams) {
  const d = driveNp(dolceRcNp, p, { flow: () => flowInfo(100e9) });
  const data = (t: number, ce: boolean) => {
    d.at(t);
    d.mark(1, ce);
  };
  return { cnps: d.cnps, data, at: d.at };
}

const params = (o: Record<string, unknown> = {}, profile?: string) =>
  resolveParams('dolce-rc', o, profile) as DolceRcParams;

describe('Dolce-RC NP', () => {
  it('ideal: a CNP per τ_CNP carrying the CE count since the previous one, none lost', () => {
    const r = npRig(params());
    r.data(0, true); // first mark: CNP now, count 1
    r.data(5 * US, false);
    r.data(10 * US, true);
    r.data(20 * US, true);
    r.data(30 * US, true); // held: flush at 50 µs with 3
    r.data(120 * US, true); // hold-off over: CNP now, count 1
    r.at(500 * US);
    expect(r.cnps.map((c) => [c.t, c.fields?.ecnCount, c.fields?.bthResv7])).toEqual([
      [0, 1, 1],
      [50 * US, 3, 3],
      [120 * US, 1, 1],
    ]);
  });

  it('ideal: the 7-bit field saturates at 127, the extension keeps the exact count', () => {
    const r = npRig(params());
    r.data(0, true);
    for (let k = 1; k <= 200; k++) r.data(k * 100, true); // 200 marks in (0, 20 µs]
    r.at(100 * US);
    expect(r.cnps[1].fields).toEqual({ bthResv7: 127, ecnCount: 200 });
    const only7 = npRig(params({ cnpCount: 'resv7' }));
    only7.data(0, true);
    expect(only7.cnps[0].fields).toEqual({ bthResv7: 1 });
  });

  it('actual: a bare CNP for a CE packet at least 1 µs after the previous CNP', () => {
    const r = npRig(params({}, 'hardware'));
    for (const t of [0, 500, 1000, 1700, 2000, 2100]) r.data(t, true);
    r.at(100 * US);
    // 0 sends; 500 < 1 µs; 1000 sends; 1700 < 1 µs after 1000; 2000 sends; 2100 no
    expect(r.cnps.map((c) => c.t)).toEqual([0, 1000, 2000]);
    expect(r.cnps.every((c) => c.fields === undefined)).toBe(true);
  });
});
