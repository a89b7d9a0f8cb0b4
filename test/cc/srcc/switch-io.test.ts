/** The two CP io additions SRCC needs (switch/cp.ts): the frame in serialisation and egress pause state. */
import { describe, expect, it } from 'vitest';
import type { SwitchCpIo } from '../../../switch/cp.js';
import { createSwitch } from '../../../switch/switch.js';
import { baseConfig, dataPkt, makeWorld, pfcPkt } from '../../switch/harness.js';

describe('SwitchCpIo.inFlightBytesOf / egressPaused', () => {
  it('counts the frame being serialised for its own queue only, and follows PFC pauses', () => {
    const w = makeWorld();
    let io: SwitchCpIo | null = null;
    const sw = createSwitch(
      w.env,
      baseConfig({
        cp: [
          (x) => {
            io = x;
            return { name: 'probe' };
          },
        ],
      }),
    );
    const cp = io as unknown as SwitchCpIo;
    sw.receive(0, dataPkt({ sizeBytes: 1000, prio: 3 }));
    sw.receive(0, dataPkt({ sizeBytes: 1000, prio: 3 }));
    // At 100 Gbps a 1000 B frame takes 80 ns: the first is on the wire, the second queued.
    expect(cp.inFlightBytesOf(1, 3)).toBe(1000);
    expect(cp.inFlightBytesOf(1, 2)).toBe(0);
    expect(cp.queueBytesOf(1, 3)).toBe(1000);
    w.sched.run(200);
    expect(cp.inFlightBytesOf(1, 3)).toBe(0);
    expect(cp.inFlightBytesOf(99, 3)).toBe(0);

    expect(cp.egressPaused(1, 3)).toBe(false);
    sw.receive(1, pfcPkt(1 << 3, [0, 0, 0, 65535, 0, 0, 0, 0]));
    expect(cp.egressPaused(1, 3)).toBe(true);
    expect(cp.egressPaused(1, 4)).toBe(false);
    sw.receive(1, pfcPkt(1 << 3, [0, 0, 0, 0, 0, 0, 0, 0]));
    expect(cp.egressPaused(1, 3)).toBe(false);
    expect(cp.egressPaused(9, 3)).toBe(false);
  });
});
