/** EventTimers.runAt: received frames as events at their arrival stamps (docs/realtime.md). */
import { afterEach, describe, expect, it } from 'vitest';
import { EventTimers } from '../../src/runtime/real/event-timers.js';
import { PreciseWake } from '../../src/runtime/real/precise-wake.js';
import { RealClock } from '../../src/time/real-clock.js';

/** A clock whose real time only moves when the test says so (timeScale 1: real ns = emulated ns). */
function manualClock() {
  let realNs = 1e9;
  const clock = new RealClock({ timeScale: 1, epochRealNs: 1e9, source: () => realNs });
  return {
    clock,
    advance(ns: number) {
      realNs += ns;
    },
  };
}

const open: EventTimers[] = [];
function timers(clock: RealClock, windowNs = 0): EventTimers {
  const t = new EventTimers(clock, { windowNs });
  open.push(t);
  return t;
}
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

describe('EventTimers.runAt', () => {
  it('runs the timers due by the stamp first, then the event at the stamp, later timers after', () => {
    const { clock, advance } = manualClock();
    const t = timers(clock);
    const log: string[] = [];
    t.setTimer(100, () => log.push(`timer100@${t.now()}`));
    t.setTimer(300, () => log.push(`timer300@${t.now()}`));
    advance(500); // the host got to the datagram late: real clock 500
    t.runAt(200, () => log.push(`rx@${t.now()}`));
    expect(log).toEqual(['timer100@100', 'rx@200']);
    t.runDue();
    expect(log).toEqual(['timer100@100', 'rx@200', 'timer300@300']);
  });

  it('a timer set during the event counts from the stamp, not from the late real clock', () => {
    const { clock, advance } = manualClock();
    const t = timers(clock);
    let due = -1;
    advance(1000);
    t.runAt(400, () => {
      t.setTimer(t.now() + 50, () => {
        due = t.now();
      });
    });
    t.runDue();
    expect(due).toBe(450);
  });

  it('an observer reading the clock between events does not move the time the next event sees', () => {
    const { clock, advance } = manualClock();
    const t = timers(clock);
    let seen = -1;
    t.setTimer(100, () => {
      seen = t.now();
    });
    advance(900); // the timer is late; meanwhile a metrics scrape reads the clock
    expect(t.now()).toBe(900);
    t.runDue();
    expect(seen).toBe(100);
  });

  it("a datagram's frames (holdHorizon .. releaseHorizon) share one read of the clock: none is placed later for the time the others took", () => {
    let realNs = 1e9;
    let reads = 0;
    const clock = new RealClock({
      timeScale: 1,
      epochRealNs: 1e9,
      source: () => {
        reads++;
        return realNs;
      },
    });
    const t = timers(clock);
    const log: string[] = [];
    realNs += 500;
    const before = reads;
    t.holdHorizon();
    t.runAt(Number.POSITIVE_INFINITY, () => log.push(`a@${t.now()}`));
    realNs += 100; // handling the first frame took real time
    t.runAt(Number.POSITIVE_INFINITY, () => log.push(`b@${t.now()}`));
    t.runAt(450, () => log.push(`c@${t.now()}`)); // stamped before the last event: at it
    const readsHeld = reads - before;
    t.releaseHorizon();
    t.runAt(Number.POSITIVE_INFINITY, () => log.push(`d@${t.now()}`));
    expect(log).toEqual(['a@500', 'b@500', 'c@500', 'd@600']);
    expect(readsHeld).toBe(1);
  });

  it('pulls a stamp from the future back to the real clock and never lets time go backwards', () => {
    const { clock, advance } = manualClock();
    const t = timers(clock);
    const seen: number[] = [];
    advance(100);
    t.runAt(5000, () => seen.push(t.now())); // clock-sync error: not yet arrived by our clock
    t.runAt(50, () => seen.push(t.now())); // older than the event before: clamped to it
    t.runAt(Number.POSITIVE_INFINITY, () => seen.push(t.now())); // unstamped: real clock
    advance(20);
    t.runAt(110, () => seen.push(t.now()));
    expect(seen).toEqual([100, 100, 100, 110]);
  });
});

describe('EventTimers batches', () => {
  /** 1000 timers at 1..1000 ns, all due, each taking 20 µs real: 20 ms of work behind the clock. */
  function behind() {
    const { clock, advance } = manualClock();
    const t = timers(clock);
    const ran: number[] = [];
    for (let i = 1; i <= 1000; i++)
      t.setTimer(i, () => {
        ran.push(t.now());
        advance(20_000);
      });
    advance(2000);
    return { t, ran };
  }

  it('a woken batch stops after its real-time budget (1 ms) and the next one goes on in order', () => {
    const { t, ran } = behind();
    t.runDue();
    // The budget is checked every 64 callbacks: 63 × 20 µs is past 1 ms.
    expect(ran.length).toBe(63);
    while (ran.length < 1000) {
      const before = ran.length;
      t.runDue();
      expect(ran.length).toBeGreaterThan(before);
    }
    expect(ran).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
  });

  it('the timers before a received frame all run first, whatever the budget', () => {
    const { t, ran } = behind();
    let rxAt = -1;
    t.runAt(1000.5, () => {
      rxAt = t.now();
    });
    expect(ran.length).toBe(1000);
    expect(rxAt).toBe(1000.5);
  });
});

describe('EventTimers time windows (docs/realtime.md "Time windows")', () => {
  it('runs events only up to the last window edge the clock passed, each at its own time', () => {
    const { clock, advance } = manualClock();
    const t = timers(clock, 1000);
    const ran: number[] = [];
    for (const at of [300, 900, 1000, 1200, 2500]) t.setTimer(at, () => ran.push(t.now()));
    advance(999);
    t.runDue();
    expect(ran).toEqual([]); // no edge passed yet
    advance(1); // the clock is at the edge 1000
    t.runDue();
    expect(ran).toEqual([300, 900, 1000]);
    advance(1400); // 2400: the edge 2000 passed, 3000 not
    t.runDue();
    expect(ran).toEqual([300, 900, 1000, 1200]);
    expect(t.horizonNs()).toBe(2000);
  });

  it('a received frame stamped past the edge does not run the timers after the edge', () => {
    const { clock, advance } = manualClock();
    const t = timers(clock, 1000);
    const log: string[] = [];
    t.setTimer(900, () => log.push(`timer900@${t.now()}`));
    t.setTimer(1500, () => log.push(`timer1500@${t.now()}`));
    advance(1700);
    t.runAt(1600, () => log.push(`rx@${t.now()}`));
    // Up to the edge 1000 only: a peer's frame stamped 1001..1599 may still be on its way.
    expect(log).toEqual(['timer900@900', 'rx@1000']);
  });

  it('a timer set between batches before the clock stays at its own time, not the clock', () => {
    const { clock, advance } = manualClock();
    const t = timers(clock, 1000);
    let seen = -1;
    t.setTimer(100, () => {});
    advance(1000);
    t.runDue(); // the batch at the edge 1000; lastEventNs 100
    advance(700); // the clock is at 1700, the next edge 2000
    t.setTimer(1400, () => {
      seen = t.now();
    }); // a held frame due at its stamp 1400
    advance(300);
    t.runDue();
    expect(seen).toBe(1400);
  });

  it('wakes itself at the window edge after the next timer (PreciseWake), on the real clock', async () => {
    // The clock's epoch is the instant measured from: read apart, a host that descheduled the test
    // between the two reads (2.4 ms, CI beside other work) made the wake look early.
    const startRealMs = performance.now();
    const clock = new RealClock({ timeScale: 1000, epochRealNs: startRealMs * 1e6 });
    const t = timers(clock, 1000); // windows of 1 µs emulated = 1 ms real
    const fired = await new Promise<{ atNs: number; realMs: number }>((resolve) =>
      t.setTimer(2300, () => resolve({ atNs: t.now(), realMs: performance.now() - startRealMs })),
    );
    expect(fired.atNs).toBe(2300);
    // Due at the edge 3000 ns emulated = 3 ms real: never before it.
    expect(fired.realMs).toBeGreaterThanOrEqual(3);
  });
});

describe('PreciseWake', () => {
  it('calls each subscriber once, at or after the instant it asked for, earliest first', async () => {
    const wake = PreciseWake.get();
    const now = () => Number(process.hrtime.bigint());
    const order: string[] = [];
    const late: number[] = [];
    // Every instant from one base: with each from its own now(), a host that descheduled this
    // test for 3 ms between two requests (CI beside other work did) really made b due before a.
    const baseNs = now();
    const at = (name: string, inMs: number) =>
      new Promise<void>((resolve) => {
        const dueNs = baseNs + inMs * 1e6;
        wake.at(() => {
          order.push(name);
          late.push(now() - dueNs);
          resolve();
        }, dueNs);
      });
    await Promise.all([at('b', 4.5), at('a', 1.5), at('c', 7)]);
    expect(order).toEqual(['a', 'b', 'c']);
    for (const ns of late) expect(ns).toBeGreaterThanOrEqual(0);
  });

  it('runs requests that are due at once earliest first, whatever order they were made in', async () => {
    const wake = PreciseWake.get();
    const now = () => Number(process.hrtime.bigint());
    const order: string[] = [];
    const baseNs = now();
    const request = (name: string, inMs: number) =>
      new Promise<void>((resolve) => {
        const fn = () => {
          order.push(name);
          resolve();
        };
        wake.at(fn, baseNs + inMs * 1e6);
      });
    const done = Promise.all([request('late', 4), request('early', 1)]);
    // Hold the main thread past both instants: the helper's message waits, so both are due in one fire.
    while (now() < baseNs + 6e6);
    await done;
    expect(order).toEqual(['early', 'late']);
  });

  it('a cancelled request never fires, and a later one replaces an earlier one of the same subscriber', async () => {
    const wake = PreciseWake.get();
    const now = () => Number(process.hrtime.bigint());
    let cancelledRuns = 0;
    const cancelled = () => {
      cancelledRuns++;
    };
    wake.at(cancelled, now() + 1e6);
    wake.cancel(cancelled);
    let calls = 0;
    await new Promise<void>((resolve) => {
      const fn = () => {
        calls++;
        resolve();
      };
      wake.at(fn, now() + 50e6);
      wake.at(fn, now() + 2e6); // replaces the 50 ms request
    });
    await new Promise((r) => setTimeout(r, 60));
    expect(calls).toBe(1);
    expect(cancelledRuns).toBe(0);
  });
});
