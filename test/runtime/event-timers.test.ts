/** EventTimers.runAt: received frames as events at their arrival stamps (docs/realtime.md). */
import { afterEach, describe, expect, it } from 'vitest';
import { EventTimers } from '../../src/runtime/real/event-timers.js';
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
function timers(clock: RealClock): EventTimers {
  const t = new EventTimers(clock);
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
