/**
 * Timer semantics of the production scheduler (EngineScheduler, the virtual engine's event loop
 * that unit tests also run on): (time, insertion) order, past times clamp, fractional times round
 * up, cancellation, run control, and a reference model under random interleavings.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/env/rng.js';
import { EngineScheduler } from '../../src/runtime/virtual/engine-scheduler.js';

describe('EngineScheduler ordering', () => {
  it('fires in time order and advances the clock to each event', () => {
    const s = new EngineScheduler();
    const log: Array<[string, number]> = [];
    s.setTimer(300, () => log.push(['c', s.now()]));
    s.setTimer(100, () => log.push(['a', s.now()]));
    s.setTimer(200, () => log.push(['b', s.now()]));
    expect(s.pending).toBe(3);
    expect(s.run()).toBe(3);
    expect(log).toEqual([
      ['a', 100],
      ['b', 200],
      ['c', 300],
    ]);
    expect(s.pending).toBe(0);
    expect(s.eventsProcessed).toBe(3);
  });

  it('fires ties in insertion order', () => {
    const s = new EngineScheduler();
    const log: number[] = [];
    for (let i = 0; i < 100; i++) s.setTimer(50, () => log.push(i));
    s.run();
    expect(log).toEqual([...Array(100).keys()]);
  });

  it('clamps past times to now, after what is already queued for now', () => {
    const s = new EngineScheduler();
    const log: string[] = [];
    s.setTimer(1000, () => {
      s.setTimer(1000, () => log.push('same-time'));
      s.setTimer(5, () => log.push(`past@${s.now()}`));
      s.setTimer(Number.NEGATIVE_INFINITY, () => log.push(`-inf@${s.now()}`));
      log.push('first');
    });
    s.run();
    expect(log).toEqual(['first', 'same-time', 'past@1000', '-inf@1000']);
  });

  it('rounds fractional times up to whole ns', () => {
    const s = new EngineScheduler();
    let at = -1;
    s.setTimer(83.84, () => {
      at = s.now();
    });
    s.run();
    expect(at).toBe(84);
  });

  it('rejects NaN and times beyond 2^53 ns', () => {
    const s = new EngineScheduler();
    expect(() => s.setTimer(Number.NaN, () => {})).toThrow(RangeError);
    expect(() => s.setTimer(Number.POSITIVE_INFINITY, () => {})).toThrow(RangeError);
    expect(() => s.setTimer(2 ** 60, () => {})).toThrow(RangeError);
  });

  it('returns distinct positive ids', () => {
    const s = new EngineScheduler();
    const ids = new Set<number>();
    for (let i = 0; i < 1000; i++) ids.add(s.setTimer(i, () => {}));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toBeGreaterThan(0);
  });
});

describe('EngineScheduler cancellation', () => {
  it('cancelled timers never fire and stop counting as pending', () => {
    const s = new EngineScheduler();
    const log: number[] = [];
    const ids = [10, 20, 30, 40].map((t) => s.setTimer(t, () => log.push(t)));
    s.cancelTimer(ids[1]);
    s.cancelTimer(ids[3]);
    expect(s.pending).toBe(2);
    s.run();
    expect(log).toEqual([10, 30]);
  });

  it('cancel after fire, double cancel and unknown ids are no-ops', () => {
    const s = new EngineScheduler();
    const log: string[] = [];
    const a = s.setTimer(10, () => log.push('a'));
    s.run();
    s.cancelTimer(a);
    s.cancelTimer(a);
    s.cancelTimer(0);
    s.cancelTimer(-1);
    s.cancelTimer(123.5);
    s.cancelTimer(Number.NaN);
    // The slot of `a` is reused; its stale id must not cancel the new timer.
    s.setTimer(20, () => log.push('b'));
    s.cancelTimer(a);
    s.run();
    expect(log).toEqual(['a', 'b']);
  });

  it('a callback can cancel a later timer and itself (no-op)', () => {
    const s = new EngineScheduler();
    const log: string[] = [];
    let later = 0;
    const self: number = s.setTimer(10, () => {
      s.cancelTimer(later);
      s.cancelTimer(self);
      log.push('first');
    });
    later = s.setTimer(20, () => log.push('later'));
    s.setTimer(30, () => log.push('last'));
    s.run();
    expect(log).toEqual(['first', 'last']);
  });

  it('a callback can cancel a same-time timer queued after it', () => {
    const s = new EngineScheduler();
    const log: string[] = [];
    let b = 0;
    s.setTimer(10, () => {
      log.push('a');
      s.cancelTimer(b);
    });
    b = s.setTimer(10, () => log.push('b'));
    s.run();
    expect(log).toEqual(['a']);
  });

  it('tombstone compaction keeps order and pending counts right', () => {
    const s = new EngineScheduler();
    const fired: number[] = [];
    const keep: number[] = [];
    // Re-arm a far timer many times (the RTO pattern), leaving thousands of tombstones.
    let rto = s.setTimer(1_000_000, () => fired.push(-1));
    for (let i = 0; i < 20_000; i++) {
      s.cancelTimer(rto);
      rto = s.setTimer(1_000_000 + i, () => fired.push(-2));
      if (i % 1000 === 0) {
        keep.push(i);
        s.setTimer(i, () => fired.push(i));
      }
    }
    expect(s.pending).toBe(keep.length + 1);
    s.run();
    expect(fired).toEqual([...keep, -2]);
    expect(s.now()).toBe(1_000_000 + 19_999);
  });
});

describe('EngineScheduler run control', () => {
  it('run(until) fires events up to and including until, then parks the clock at until', () => {
    const s = new EngineScheduler();
    const log: number[] = [];
    for (const t of [5, 10, 15, 20]) s.setTimer(t, () => log.push(t));
    expect(s.run(15)).toBe(3);
    expect(log).toEqual([5, 10, 15]);
    expect(s.now()).toBe(15);
    expect(s.run(17)).toBe(0);
    expect(s.now()).toBe(17);
    s.run();
    expect(log).toEqual([5, 10, 15, 20]);
    expect(s.now()).toBe(20);
  });

  it('stop() from a callback ends run() after that callback; run() resumes', () => {
    const s = new EngineScheduler();
    const log: number[] = [];
    for (let t = 1; t <= 5; t++)
      s.setTimer(t, () => {
        log.push(t);
        if (t === 2) s.stop();
      });
    expect(s.run(100)).toBe(2);
    expect(s.now()).toBe(2);
    expect(s.run(100)).toBe(3);
    expect(log).toEqual([1, 2, 3, 4, 5]);
    expect(s.now()).toBe(100);
  });

  it('callbacks can schedule more work, including chains at the same time', () => {
    const s = new EngineScheduler();
    let count = 0;
    const tick = () => {
      count++;
      if (count < 1000) s.setTimer(s.now() + (count % 3), tick);
    };
    s.setTimer(0, tick);
    s.run();
    expect(count).toBe(1000);
    expect(s.eventsProcessed).toBe(1000);
  });

  it('rejects re-entrant run() and keeps working after a callback throws', () => {
    const s = new EngineScheduler();
    s.setTimer(1, () => s.run());
    expect(() => s.run()).toThrow(/inside an event/);
    s.setTimer(2, () => {
      throw new Error('boom');
    });
    expect(() => s.run()).toThrow('boom');
    let ok = false;
    s.setTimer(3, () => {
      ok = true;
    });
    s.run();
    expect(ok).toBe(true);
  });
});

describe('EngineScheduler at scale', () => {
  it('1e6 timers with random times fire in (time, seq) order', () => {
    const s = new EngineScheduler();
    const rng = createRng(42);
    const n = 1_000_000;
    const times = new Float64Array(n);
    let prevT = -1;
    let prevSeq = -1;
    let fired = 0;
    let bad = 0;
    for (let i = 0; i < n; i++) {
      // Few distinct times so ties are common.
      const t = rng.int(50_000);
      times[i] = t;
      s.setTimer(t, () => {
        if (t < prevT || (t === prevT && i < prevSeq)) bad++;
        if (t !== s.now()) bad++;
        prevT = t;
        prevSeq = i;
        fired++;
      });
    }
    s.run();
    expect(bad).toBe(0);
    expect(fired).toBe(n);
    expect(s.pending).toBe(0);
  });

  it('matches a reference model under random set/cancel/run interleavings', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant('set' as const), dt: fc.integer({ min: -5, max: 50 }) }),
            fc.record({ op: fc.constant('cancel' as const), k: fc.nat() }),
            fc.record({ op: fc.constant('run' as const), dt: fc.integer({ min: 0, max: 30 }) }),
          ),
          { maxLength: 200 },
        ),
        (ops) => {
          const s = new EngineScheduler();
          const model: Array<{ t: number; seq: number; live: boolean }> = [];
          const ids: number[] = [];
          const fired: number[] = [];
          const expected: number[] = [];
          let seq = 0;
          const runModel = (until: number) => {
            const due = model
              .filter((e) => e.live && e.t <= until)
              .sort((a, b) => a.t - b.t || a.seq - b.seq);
            for (const e of due) {
              e.live = false;
              expected.push(e.seq);
            }
          };
          for (const o of ops) {
            if (o.op === 'set') {
              const mySeq = seq++;
              const t = Math.max(s.now(), s.now() + o.dt);
              model.push({ t, seq: mySeq, live: true });
              ids.push(s.setTimer(s.now() + o.dt, () => fired.push(mySeq)));
            } else if (o.op === 'cancel') {
              if (ids.length === 0) continue;
              const k = o.k % ids.length;
              s.cancelTimer(ids[k]);
              model[k].live = false;
            } else {
              const until = s.now() + o.dt;
              runModel(until);
              s.run(until);
            }
          }
          runModel(Number.POSITIVE_INFINITY);
          s.run();
          expect(fired).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
