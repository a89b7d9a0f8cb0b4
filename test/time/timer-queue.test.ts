import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TimerQueue } from '../../src/time/timer-queue.js';

/** Reference model: a list sorted by (time, seq) on demand. */
class Model {
  items: { t: number; seq: number; tag: number }[] = [];
  seq = 0;
  push(t: number, tag: number): number {
    const seq = this.seq++;
    this.items.push({ t, seq, tag });
    return seq;
  }
  cancel(seq: number): void {
    this.items = this.items.filter((x) => x.seq !== seq);
  }
  pop(limit: number): { t: number; tag: number } | undefined {
    if (this.items.length === 0) return undefined;
    let best = 0;
    for (let i = 1; i < this.items.length; i++) {
      const a = this.items[i];
      const b = this.items[best];
      if (a.t < b.t || (a.t === b.t && a.seq < b.seq)) best = i;
    }
    if (this.items[best].t > limit) return undefined;
    return this.items.splice(best, 1)[0];
  }
}

type Op =
  | { k: 'push'; dt: number; frac: boolean }
  | { k: 'cancel'; pick: number }
  | { k: 'pop'; dt: number }
  | { k: 'clear' };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      k: fc.constant('push' as const),
      // Mostly inside the wheel span, some far beyond it, some exactly at its edges.
      dt: fc.oneof(
        fc.integer({ min: 0, max: 120 }),
        // A coarse grid, so timers pushed to the heap and later ones in the wheel tie in time.
        fc.integer({ min: 0, max: 50 }).map((x) => x * 100),
        fc.constantFrom(1023, 1024, 1025),
      ),
      frac: fc.integer({ min: 0, max: 7 }).map((x) => x === 0),
    }),
  },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('cancel' as const), pick: fc.nat() }) },
  {
    weight: 4,
    arbitrary: fc.record({
      k: fc.constant('pop' as const),
      dt: fc.oneof(
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: 0, max: 30 }).map((x) => x * 100),
      ),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ k: 'clear' as const }) },
);

describe('TimerQueue (heap + timing wheel)', () => {
  it('pops in (time, insertion) order like a sorted list, with cancels, limits and clears', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 20, maxLength: 300, size: 'max' }), (ops) => {
        const q = new TimerQueue();
        const m = new Model();
        const ids: { id: number; seq: number }[] = [];
        let now = 0;
        let tag = 0;
        for (const o of ops) {
          let popped = false;
          if (o.k === 'push') {
            // Like the schedulers: never before the last popped time.
            const t = now + o.dt + (o.frac ? 0.25 : 0);
            const myTag = tag++;
            const id = q.push(t, () => myTag);
            ids.push({ id, seq: m.push(t, myTag) });
          } else if (o.k === 'cancel') {
            if (ids.length === 0) continue;
            const x = ids[o.pick % ids.length];
            q.cancel(x.id);
            m.cancel(x.seq);
          } else if (o.k === 'pop') {
            const limit = now + o.dt;
            const want = m.pop(limit);
            const fn = q.popUntil(limit);
            expect(fn?.()).toBe(want?.tag);
            popped = fn !== undefined;
            if (want !== undefined) {
              expect(q.poppedTimeNs).toBe(want.t);
              now = Math.max(now, Math.floor(want.t));
            }
          } else {
            q.clear();
            m.items = [];
          }
          expect(q.size).toBe(m.items.length);
          // earliestNs is a lower bound of the earliest pending time, exact after a failed pop.
          const min = Math.min(...m.items.map((x) => x.t));
          expect(q.earliestNs).toBeLessThanOrEqual(min);
          if (o.k === 'pop' && !popped && m.items.length > 0) expect(q.earliestNs).toBe(min);
        }
        // Drain.
        for (;;) {
          const want = m.pop(Number.POSITIVE_INFINITY);
          const t = q.peekTime();
          const fn = q.pop();
          expect(fn?.()).toBe(want?.tag);
          if (want === undefined) break;
          expect(t).toBe(want.t);
        }
        expect(q.size).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps order for equal times split between the wheel and the heap', () => {
    const q = new TimerQueue();
    const log: string[] = [];
    q.push(2000, () => log.push('heap-first')); // beyond the wheel span: goes to the heap
    q.push(1500, () => log.push('heap-1500'));
    expect(q.pop()?.()).toBeDefined(); // window moves to 1500
    q.push(2000, () => log.push('wheel-second')); // now inside the span
    q.pop()?.();
    q.pop()?.();
    expect(log).toEqual(['heap-1500', 'heap-first', 'wheel-second']);
  });

  it('reuses no slot of a cancelled wheel timer before it leaves its bucket', () => {
    const q = new TimerQueue();
    const log: number[] = [];
    const a = q.push(10, () => log.push(1));
    q.cancel(a);
    for (let i = 0; i < 5; i++) q.push(10 + i, () => log.push(10 + i));
    while (q.size > 0) q.pop()?.();
    expect(log).toEqual([10, 11, 12, 13, 14]);
  });

  it('hands out distinct small-integer ids while slots are reused many times', () => {
    const q = new TimerQueue();
    const ids = new Set<number>();
    for (let i = 0; i < 100_000; i++) {
      const id = q.push(i, () => i);
      expect(ids.has(id)).toBe(false);
      ids.add(id);
      expect(q.pop()?.()).toBe(i);
      expect(q.cancel(id)).toBe(false);
    }
    for (const id of ids) expect(id).toBeLessThan(2 ** 31);
    // An id of a fired timer never cancels a later one that reuses its slot.
    const a = q.push(5, () => 'a');
    q.pop();
    const b = q.push(6, () => 'b');
    expect(q.cancel(a)).toBe(false);
    expect(q.pop()?.()).toBe('b');
    expect(b).not.toBe(a);
  });

  it('a queue given fewer small-id slots stops growing its slot tables there, ids still unique', () => {
    const q = new TimerQueue(8);
    const ids = new Set<number>();
    for (let i = 0; i < 20_000; i++) {
      const id = q.push(i, () => i);
      expect(ids.has(id)).toBe(false);
      ids.add(id);
      expect(q.pop()?.()).toBe(i);
    }
    // 20 000 timers through one busy slot: 127 small generations per slot, then 8 slots at most.
    expect((q as unknown as { slotCount: number }).slotCount).toBe(8);
    expect(Math.max(...ids)).toBeGreaterThan(2 ** 31);
    expect(new TimerQueue().push(0, () => 0)).toBeLessThan(2 ** 31);
  });

  it('popAtBefore: only timers of that instant pushed before the mark, in order, wherever they wait', () => {
    const q = new TimerQueue();
    const log: string[] = [];
    q.push(3000, () => log.push('heap-a')); // beyond the wheel span: the heap
    q.push(100, () => log.push('early'));
    expect(q.pop()?.()).toBeDefined(); // the wheel's window moves to 100
    q.push(3000, () => log.push('heap-b'));
    q.push(2000, () => log.push('later'));
    const mark = q.pushCount;
    q.push(2000, () => log.push('after-mark'));
    // Nothing at 1000; at 2000 only 'later' was pushed before the mark.
    expect(q.popAtBefore(1000, mark)).toBeUndefined();
    for (let fn = q.popAtBefore(2000, mark); fn !== undefined; fn = q.popAtBefore(2000, mark)) fn();
    expect(log).toEqual(['early', 'later']);
    expect(q.popAtBefore(3000, mark)).toBeUndefined(); // 'after-mark' at 2000 is still first
    q.pop()?.();
    // At 3000: one timer from the heap before the wheel moved, one after; both before a later mark.
    const mark2 = q.pushCount;
    q.push(3000, () => log.push('after-mark2'));
    for (let fn = q.popAtBefore(3000, mark2); fn !== undefined; fn = q.popAtBefore(3000, mark2)) fn();
    expect(log).toEqual(['early', 'later', 'after-mark', 'heap-a', 'heap-b']);
    expect(q.size).toBe(1);
  });
});
