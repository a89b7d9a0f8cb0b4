/**
 * Frame poisoning (src/wire/packet-factory.ts setFramePoisoning), issue 36's test mode for use
 * after release: a frame given back to the free list waits there with NaN in its numbers until it
 * is handed out again. The runtimes recycle frames on the promise that nothing reads one after
 * they give it back (virtual time after the receiving NIC, real switches once sent, real hosts
 * once sent or handled); with poisoning a broken promise computes with NaN and the run's results
 * differ from the same run without it, where a blank frame could pass for a real one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runScenario } from '../../src/runtime/run.js';
import type { Results } from '../../src/stats/results.js';
import {
  createPacket,
  recycledFrameCount,
  recyclePacket,
  setFramePoisoning,
} from '../../src/wire/packet-factory.js';
import { INCAST_4TO1, SPRAY_LEAFSPINE, scenario, tmp, UET_CC_LEAFSPINE } from '../realtime/helpers.js';

afterEach(() => setFramePoisoning(false));

const sections = (r: Results) => ({ flows: r.flows, ports: r.ports, hosts: r.hosts, summary: r.summary });

describe('frame poisoning', () => {
  it('a frame read after it was given back shows NaN, not a blank that passes; handed out again it is blank', () => {
    for (const on of [false, true]) {
      setFramePoisoning(on);
      const p = createPacket();
      p.psn = 42;
      p.sizeBytes = 1078;
      recyclePacket(p);
      // What a stale reference reads: without poisoning a plausible PSN 0.
      expect(Number.isNaN(p.psn)).toBe(on);
      expect(Number.isNaN(p.sizeBytes)).toBe(on);
      const q = createPacket();
      expect(q).toBe(p);
      expect([q.psn, q.sizeBytes]).toEqual([0, 0]);
    }
  });

  it('turned off, the frames waiting on the free list are blank again', () => {
    setFramePoisoning(true);
    const p = createPacket();
    recyclePacket(p);
    setFramePoisoning(false);
    const q = createPacket();
    expect(q).toBe(p);
    expect(q.psn).toBe(0);
  });

  it('virtual runs that recycle give the same results poisoned: incast under dcqcn and hpcc, spraying and trimming over SR, UET', () => {
    const cases: [string, string | undefined][] = [
      [INCAST_4TO1, undefined],
      [INCAST_4TO1, 'hpcc'],
      [SPRAY_LEAFSPINE, undefined],
      [UET_CC_LEAFSPINE, undefined],
    ];
    for (const [yaml, cc] of cases) {
      const s = scenario(yaml);
      const run = () => runScenario({ scenario: s, cc, outDir: tmp(), print: null }).results;
      setFramePoisoning(false);
      const plain = run();
      setFramePoisoning(true);
      while (recycledFrameCount() > 0) createPacket();
      const poisoned = run();
      // The run gave frames back, or there was nothing to poison.
      expect(recycledFrameCount()).toBeGreaterThan(0);
      expect(sections(poisoned)).toEqual(sections(plain));
    }
  });
});
