import { describe, expect, it } from 'vitest';
import { EngineScheduler } from '../../src/runtime/virtual/engine-scheduler.js';

describe('EngineScheduler', () => {
  it('merges timers and per-delay arrival FIFOs in time order; timers first on ties', () => {
    const s = new EngineScheduler();
    const log: string[] = [];
    const sink = (name: string) => ({ arrive: () => log.push(`${name}@${s.now()}`) });
    const d1 = s.delayClass(1000);
    const d2 = s.delayClass(300);
    expect(s.delayClass(1000)).toBe(d1);
    s.setTimer(0, () => {
      d1.push(sink('a'), s.now() + 1000);
      d2.push(sink('b'), s.now() + 300);
    });
    s.setTimer(300, () => log.push('t300'));
    s.setTimer(500, () => {
      d1.push(sink('c'), s.now() + 1000);
      d2.push(sink('d'), s.now() + 300);
    });
    s.setTimer(1000, () => log.push('t1000'));
    s.run();
    expect(log).toEqual(['t300', 'b@300', 'd@800', 't1000', 'a@1000', 'c@1500']);
    expect(s.eventsProcessed).toBe(8);
    expect(s.pending).toBe(0);
  });

  it('run(until) stops before later events and advances the clock; stop() ends a run', () => {
    const s = new EngineScheduler();
    const fired: number[] = [];
    for (const t of [10, 20, 30]) s.setTimer(t, () => fired.push(t));
    s.run(25);
    expect(fired).toEqual([10, 20]);
    expect(s.now()).toBe(25);
    s.setTimer(26, () => s.stop());
    s.run();
    expect(s.now()).toBe(26);
    expect(fired).toEqual([10, 20]);
    s.run();
    expect(fired).toEqual([10, 20, 30]);
  });

  it('timer semantics: past times clamp to now, fractional times round up, cancel works', () => {
    const s = new EngineScheduler();
    const at: number[] = [];
    s.setTimer(5, () => {
      s.setTimer(1, () => at.push(s.now()));
      s.setTimer(7.2, () => at.push(s.now()));
      const id = s.setTimer(9, () => at.push(-1));
      s.cancelTimer(id);
    });
    s.run();
    expect(at).toEqual([5, 8]);
  });
});
