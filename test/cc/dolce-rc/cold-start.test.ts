/**
 * The cold-start measurement of F3/F4/H-CF/H-DM (experiments/dolce-rc/workload-run.ts) reads the
 * RP's rate-change causes: this pins it to what the RP really traces. AC4's script (a CNP every
 * 50 µs, Q_MIN 250 µs) gives one QP 5 cuts before its first qualified CNP, all with arm 0, then
 * 195 cuts with the arms the bandit picks.
 */
import { describe, expect, it } from 'vitest';
import { ac4Drive } from '../../../experiments/dolce-rc/learning.js';
import { CutTally } from '../../../experiments/dolce-rc/workload-run.js';
import type { DolceRcParams } from '../../../src/cc/dolce-rc/params.js';
import { resolveParams } from '../../../src/cc/registry.js';

describe('cold-start tally of Dolce-RC cuts', () => {
  it("counts the cuts a QP takes before its bandit's first update, and the cuts per arm", () => {
    const { r, arms } = ac4Drive(resolveParams('dolce-rc', {}) as DolceRcParams);
    const tally = new CutTally(100e9);
    for (const e of r.log) tally.onChange('h1:1', e.why, e.rateBps);
    // A second QP that only ever saw its first CNP: one cold cut (arm 0: 1 − 1/32), no update.
    tally.onChange('h1:2', 'cnp:arm0', 96.875e9);
    tally.onChange('h1:2', 'timer:fr', 96e9);
    expect(tally.cuts).toBe(201);
    expect(tally.coldCuts).toBe(6);
    // Windows of 5 CNPs: arm k of window w cuts 5 times (the window's qualified CNP included).
    const expected = [1, 0, 0, 0];
    for (const a of arms.slice(0, 40)) expected[a] += 5;
    expect(tally.armCuts).toEqual(expected);
    expect(tally.qps()).toEqual({ cut: 2, updated: 1, pastForced: 1 });
    // The depth of each cut is read against the QP's previous rate (line rate at first).
    const log = r.log;
    let before = 100e9;
    let sum = 96.875e9 / 100e9;
    for (const e of log) {
      if (e.why.startsWith('cnp')) sum += e.rateBps / before;
      before = e.rateBps;
    }
    expect(tally.factorSum).toBeCloseTo(sum, 12);
    const first = log.find((e) => e.why.startsWith('cnp'));
    expect(first?.why).toBe('cnp:arm0');
    expect(first?.rateBps).toBe(96.875e9);
  });
});
