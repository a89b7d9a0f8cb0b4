/**
 * Lockstep's end of a run (docs/realtime.md "Lockstep", the end bound): a node that finished at
 * the run's end promises +∞ on its links but passes on that end as the bound, so a neighbour that
 * has not yet heard the launcher's `finish` (each process hears it at its own moment) runs no
 * event after the end. With a +∞ bound a spine forwarded a pull after the last flow completed
 * (1 netns run in 7 of test/netns/uet-cc.test.ts's scenario).
 */

import { describe, expect, it } from 'vitest';
import { nullLogger } from '../../src/env/env.js';
import { createRng } from '../../src/env/rng.js';
import { EventTimers } from '../../src/runtime/real/event-timers.js';
import { LockstepScheduler } from '../../src/runtime/real/lockstep.js';
import { RealNodeEnv } from '../../src/runtime/real/node-env.js';
import { RealClock } from '../../src/time/real-clock.js';
import type { Topology } from '../../src/topology/model.js';
import type { Packet } from '../../src/wire/packet.js';
import { TrainReader } from '../../src/wire/train.js';
import { fakeSocket, twoPortSwitch } from './real-node-rig.js';

const END_NS = 83_716;

/** A clock far ahead of every event, so the wall clock never holds the scheduler. */
function clock(): RealClock {
  return new RealClock({ timeScale: 1, epochRealNs: 0, source: () => 1e12 });
}

describe('lockstep: the end bound of a finished node', () => {
  it('promiseForever(end) promises +∞ on every link with the end as the bound, not +∞', () => {
    const c = clock();
    const timers = new EventTimers(c, {});
    const sent: Buffer[] = [];
    const socket = fakeSocket((buf) => sent.push(Buffer.from(buf)));
    const me = twoPortSwitch();
    const lockstep = new LockstepScheduler<Packet>({
      clock: c,
      inputDelaysNs: [1000, 1000],
      deliver: () => {},
      afterTurn: () => {},
      onError: (err) => {
        throw err;
      },
    });
    const env = new RealNodeEnv({
      node: me,
      topo: {} as Topology,
      addresses: { s1: '127.0.0.1:6081', a: '127.0.0.2:6081', b: '127.0.0.3:6081' },
      socket,
      timers,
      overlay: 'geneve',
      rng: createRng(1),
      log: nullLogger,
      preciseNow: () => c.now(),
      lockstep,
    });
    try {
      env.promiseForever(END_NS);
      const reader = new TrainReader();
      const got = sent.map((buf) => {
        expect(reader.reset(buf)).toBeNull();
        return { promiseNs: reader.promiseNs, endBoundNs: reader.endBoundNs };
      });
      expect(got).toHaveLength(2);
      for (const g of got) {
        expect(g.promiseNs).toBe(Number.POSITIVE_INFINITY);
        expect(g.endBoundNs).toBe(END_NS);
      }
    } finally {
      env.close();
      timers.close();
      lockstep.close();
    }
  });

  it('a bounded node that heard +∞ and the end from every link runs its events up to the end only', async () => {
    const ran: number[] = [];
    const lockstep = new LockstepScheduler<Packet>({
      clock: clock(),
      inputDelaysNs: [1000],
      deliver: () => {},
      afterTurn: () => {},
      onError: (err) => {
        throw err;
      },
    });
    try {
      for (const t of [83_000, END_NS, 84_000]) lockstep.setTimer(t, () => ran.push(t));
      lockstep.start();
      // Its only neighbour finished: nothing more arrives, and the run ends at END_NS.
      lockstep.promise(0, Number.POSITIVE_INFINITY, END_NS);
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      expect(ran).toEqual([83_000, END_NS]);
      expect(lockstep.stats.blockedOnBound).toBeGreaterThan(0);
    } finally {
      lockstep.close();
    }
  });
});
