/**
 * DR-UCB (paper Alg. 1): AC1's golden vectors (produced by independent
 * Python and Node.js implementations) and AC2's forced exploration and learning checks.
 */
import { describe, expect, it } from 'vitest';
import { DrUcb } from '../../../src/cc/dolce-rc/dr-ucb.js';
import { createRng } from '../../../src/env/rng.js';

const EPS = 0.015;
const GAMMA = 0.9998;
const XI = 0.5001;

function runDeterministic(rewards: number[], steps: number) {
  const b = new DrUcb(rewards.length, EPS, GAMMA, XI);
  const seq: number[] = [];
  const counts = new Array(rewards.length).fill(0);
  for (let t = 0; t < steps; t++) {
    const arm = b.select();
    seq.push(arm);
    counts[arm]++;
    b.update(arm, rewards[arm]);
  }
  return { b, seq, counts };
}

describe('DR-UCB golden vectors (AC1)', () => {
  it('K = 4, rewards [0.5, 0.6, 0.7, 0.9]', () => {
    const { b, seq, counts } = runDeterministic([0.5, 0.6, 0.7, 0.9], 5000);
    // P = floor(4 / 0.015) = 266
    expect(b.period).toBe(266);
    expect(seq.slice(0, 40).join('')).toBe('0123323103233132303231332333013233332133');
    expect(counts).toEqual([40, 66, 131, 4763]);
    const n = [21.333873, 35.791131, 72.355474, 3031.306271];
    n.forEach((v, i) => {
      expect(Math.abs(b.n[i] - v)).toBeLessThanOrEqual(1e-6);
    });
  });

  it('K = 8, rewards [0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 0.7, 0.1]', () => {
    const { b, seq, counts } = runDeterministic([0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 0.7, 0.1], 5000);
    // P = floor(8 / 0.015) = 533
    expect(b.period).toBe(533);
    expect(seq.slice(0, 40).join('')).toBe('0123456756435265140563576452565345615654');
    expect(counts).toEqual([20, 27, 40, 65, 129, 4334, 369, 16]);
  });

  it('clamps rewards to [0, 1] and never divides by zero', () => {
    const b = new DrUcb(2, 0.5, GAMMA, XI);
    // P = floor(2 / 0.5) = 4: t = 0, 1 forced, t = 2, 3 UCB
    b.update(b.select(), 7);
    b.update(b.select(), -3);
    expect(Array.from(b.acc)).toEqual([GAMMA, 0]);
    expect(b.select()).toBe(0);
  });
});

function bernoulliShare(
  seed: number,
  means: (t: number) => number[],
  steps: number,
  windows: [number, number, number][],
): number[] {
  const rng = createRng(seed);
  const b = new DrUcb(4, EPS, GAMMA, XI);
  const hits = windows.map(() => 0);
  for (let t = 0; t < steps; t++) {
    const arm = b.select();
    windows.forEach(([from, to, target], w) => {
      if (t >= from && t < to && arm === target) hits[w]++;
    });
    b.update(arm, rng.next() < means(t)[arm] ? 1 : 0);
  }
  return windows.map(([from, to], w) => hits[w] / (to - from));
}

describe('DR-UCB forced exploration and learning (AC2)', () => {
  it('plays arms 0, 1, 2, 3 at t mod 266 = 0..3 whatever the rewards', () => {
    const rng = createRng(7);
    const b = new DrUcb(4, EPS, GAMMA, XI);
    for (let t = 0; t < 3000; t++) {
      const arm = b.select();
      if (t % 266 < 4) expect(arm).toBe(t % 266);
      b.update(arm, rng.next());
    }
  });

  it('learns the best of [0.5, 0.6, 0.7, 0.9]: arm 3 share ≥ 0.93 in [1000, 5000) for 20 seeds', () => {
    const shares = Array.from(
      { length: 20 },
      (_, seed) => bernoulliShare(seed + 1, () => [0.5, 0.6, 0.7, 0.9], 5000, [[1000, 5000, 3]])[0],
    );
    // spec reference: min 0.956, mean 0.967
    expect(Math.min(...shares)).toBeGreaterThanOrEqual(0.93);
  });

  it('tracks a change of the best arm at t = 5000 (10 seeds)', () => {
    const means = (t: number) => (t < 5000 ? [0.5, 0.6, 0.7, 0.9] : [0.9, 0.7, 0.6, 0.5]);
    const runs = Array.from({ length: 10 }, (_, seed) =>
      bernoulliShare(seed + 1, means, 15000, [
        [5200, 6000, 0],
        [6000, 15000, 0],
      ]),
    );
    const mean = (k: number) => runs.reduce((a, r) => a + r[k], 0) / runs.length;
    // spec reference: 0.84-0.99 per seed in [5200, 6000); ≥ 0.95 after
    expect(mean(0)).toBeGreaterThanOrEqual(0.8);
    expect(mean(1)).toBeGreaterThanOrEqual(0.9);
  });
});
