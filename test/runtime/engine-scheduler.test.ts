import { describe, expect, it } from 'vitest';
import { EngineScheduler, NodeEvents } from '../../src/runtime/virtual/engine-scheduler.js';

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

  describe('windowed mode (runWindowed), with a host and a switch of timers only', () => {
    function windowed(lookaheadNs: number): {
      s: EngineScheduler;
      host: NodeEvents;
      sw: NodeEvents;
      log: string[];
    } {
      const s = new EngineScheduler();
      s.windowed = true;
      s.lookaheadNs = lookaheadNs;
      const host = new NodeEvents();
      s.hosts.push(host);
      const sw = new NodeEvents();
      s.switches.push(sw);
      return { s, host, sw, log: [] };
    }

    it('a run that ends inside a window ends for the switches at the same instant', () => {
      const { s, host, sw, log } = windowed(100);
      for (const t of [10, 40, 41, 90]) sw.timers.push(t, () => log.push(`sw@${s.now()}`));
      host.timers.push(40, () => {
        log.push(`host@${s.now()}`);
        s.finishInstant();
      });
      s.run();
      // Hosts run first in a window, switches after: the switch still runs its whole instant 40.
      expect(log).toEqual(['host@40', 'sw@10', 'sw@40']);
      expect(s.now()).toBe(40);
    });

    it("a global timer runs after exactly the switches' timers of its instant set before it", () => {
      const { s, sw, log } = windowed(1000);
      sw.timers.push(500, () => log.push('sw-before'));
      s.setTimer(500, () => {
        log.push(`global@${s.now()}`);
        // Set within the window that starts at 500: the window must end before 700.
        s.setTimer(700, () => log.push(`global@${s.now()}`));
      });
      sw.timers.push(500, () => log.push('sw-after'));
      sw.timers.push(600, () => {
        log.push('sw@600');
        // Set after the global timer of 700 was (at 500): runs after it.
        sw.timers.push(700, () => log.push('sw@700-after'));
      });
      // Set before the global timer of 700 (which is set at 500): runs before it.
      sw.timers.push(700, () => log.push('sw@700-before'));
      s.run();
      expect(log).toEqual([
        'sw-before',
        'global@500',
        'sw-after',
        'sw@600',
        'sw@700-before',
        'global@700',
        'sw@700-after',
      ]);
    });

    it('hosts run host by host while the run cannot end within the window, else instant by instant', () => {
      for (const far of [true, false]) {
        const { s, host, log } = windowed(100);
        const other = new NodeEvents();
        s.hosts.push(other);
        s.endIsFar = () => far;
        for (const t of [10, 30]) host.timers.push(t, () => log.push(`a@${s.now()}`));
        for (const t of [20, 40]) other.timers.push(t, () => log.push(`b@${s.now()}`));
        s.run();
        expect(log).toEqual(far ? ['a@10', 'a@30', 'b@20', 'b@40'] : ['a@10', 'b@20', 'a@30', 'b@40']);
        expect([s.windowsHostByHost, s.windowsHostsStepped]).toEqual(far ? [1, 0] : [0, 1]);
      }
    });

    it('a run that ends while hosts run host by host is an error, not a wrong result', () => {
      const { s, host } = windowed(100);
      s.endIsFar = () => true;
      host.timers.push(10, () => s.finishInstant());
      expect(() => s.run()).toThrow(/ended at 10 ns inside a window whose hosts ran one by one/);
    });

    it('run(until) stops every node at until and leaves the clock there', () => {
      const { s, host, sw, log } = windowed(100);
      for (const t of [10, 150, 250]) sw.timers.push(t, () => log.push(`sw@${s.now()}`));
      host.timers.push(160, () => log.push(`host@${s.now()}`));
      s.run(200);
      expect(log).toEqual(['sw@10', 'host@160', 'sw@150']);
      expect(s.now()).toBe(200);
      s.run();
      expect(log.at(-1)).toBe('sw@250');
    });
  });
});
