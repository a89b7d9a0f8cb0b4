import { describe, expect, it } from 'vitest';
import { PathFeedback, PathSelector } from '../../nic/paths.js';
import { createRng } from '../../src/env/rng.js';

const BASE = 0xd234;

describe('path selection by entropy', () => {
  it('ecmp keeps the connection port and draws nothing', () => {
    const p = new PathSelector({ policy: 'ecmp', count: 64 }, BASE, null);
    for (let i = 0; i < 10; i++) expect(p.pick(1000, i)).toBe(BASE);
    expect(p.fixed).toBe(true);
    expect(p.count).toBe(1);
  });

  it('oblivious visits every entropy once per round, in a new order each round', () => {
    const p = new PathSelector({ policy: 'oblivious', count: 16 }, BASE, createRng(1));
    const rounds: number[][] = [];
    for (let r = 0; r < 4; r++) {
      const round: number[] = [];
      for (let i = 0; i < 16; i++) round.push(p.pick(1000, 0));
      rounds.push(round);
      expect(new Set(round).size).toBe(16);
      for (const port of round) {
        expect(port >>> 14).toBe(3); // 0xC000..0xFFFF
        expect(p.indexOf(port)).toBeGreaterThanOrEqual(0);
        expect(port & ~15).toBe((BASE & ~15) | 0xc000);
      }
    }
    expect(new Set(rounds.map((r) => r.join())).size).toBeGreaterThan(1);
    expect([...p.sentBytes]).toEqual(new Array(16).fill(4000));
  });

  it('bitmap skips entropies penalised by ECN, NACK and timeout, and forgives them as it skips', () => {
    const p = new PathSelector({ policy: 'bitmap', count: 8 }, BASE, createRng(2));
    const bad = p.portOf(3);
    p.feedback(bad, PathFeedback.Timeout, 0);
    const picks: number[] = [];
    for (let i = 0; i < 8 * 10; i++) picks.push(p.pick(1, 0));
    // Penalty 15, one point forgiven per pick that meets it first: skipped for the first 10 rounds.
    expect(picks.filter((x) => x === bad)).toHaveLength(0);
    const ecn = p.portOf(5);
    p.feedback(ecn, PathFeedback.Ecn, 0);
    const next: number[] = [];
    for (let i = 0; i < 8; i++) next.push(p.pick(1, 0));
    // Skipped the first time it comes up (a round boundary may bring it up twice in 8 picks).
    expect(next.filter((x) => x === ecn).length).toBeLessThanOrEqual(1);
    for (let i = 0; i < 8 * 10; i++) next.push(p.pick(1, 0));
    expect(next.filter((x) => x === ecn).length).toBeGreaterThan(5);
  });

  it('reps reuses the entropies whose ACKs came back unmarked, oldest first', () => {
    const p = new PathSelector({ policy: 'reps', count: 256 }, BASE, createRng(3));
    const good = [p.portOf(10), p.portOf(20), p.portOf(30)];
    p.feedback(good[0], PathFeedback.Good, 0);
    p.feedback(p.portOf(99), PathFeedback.Ecn, 0);
    p.feedback(good[1], PathFeedback.Good, 0);
    p.feedback(good[2], PathFeedback.Good, 0);
    expect([p.pick(1, 0), p.pick(1, 0), p.pick(1, 0)]).toEqual(good);
    // Nothing fresh: explore at random.
    const explore = new Set<number>();
    for (let i = 0; i < 50; i++) explore.add(p.pick(1, 0));
    expect(explore.size).toBeGreaterThan(20);
  });

  it('reps freezes on a timeout and then cycles only through known-good entropies', () => {
    const p = new PathSelector({ policy: 'reps', count: 256 }, BASE, createRng(4));
    const good = [p.portOf(1), p.portOf(2), p.portOf(3), p.portOf(4)];
    for (const g of good) p.feedback(g, PathFeedback.Good, 0);
    p.feedback(p.portOf(200), PathFeedback.Timeout, 1000);
    const picks = new Set<number>();
    for (let i = 0; i < 100; i++) picks.add(p.pick(1, 2000));
    expect([...picks].sort()).toEqual([...good].sort());
    const out: Record<string, number> = {};
    p.inspect(out);
    expect(out.repsFrozen).toBe(1);
  });

  it('refuses a path count that is not a power of two', () => {
    expect(() => new PathSelector({ policy: 'oblivious', count: 6 }, BASE, createRng(1))).toThrow(
      /power of two/,
    );
    expect(() => new PathSelector({ policy: 'oblivious', count: 1 << 15 }, BASE, createRng(1))).toThrow();
  });
});
