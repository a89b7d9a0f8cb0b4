/**
 * RCC-sender (RCC paper §III-G) end to end: the same 8-to-1 incast from idle as check 3 and the
 * in-network scenario of check 6, with every host running rcc-sender. The sender sees N and the
 * last-hop-full flag on ACKs and measures RTT itself, so it should classify and share like RCC.
 */

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jain } from '../../../experiments/ports.js';
import { goodputBps, probedRun, rccScenario } from '../../../experiments/rcc/probe.js';

const T = 12_271;
const out = mkdtempSync(join(tmpdir(), 'rocelab-rcc-sender-'));

describe('rcc-sender', () => {
  it('8-to-1 incast: every flow last-hop (no PID), C·eff shared fairly once the burst drained', () => {
    const s = rccScenario('c3-incast.yaml', ['defaults.nic.cc=rcc-sender', `duration=${60 * T}ns`]);
    const p = probedRun(s, { outDir: join(out, 'incast') });
    const states = p.flows.map((_, i) => p.senderState(i));
    expect(states.map((x) => x.rccInPid)).toEqual(new Array(8).fill(0));
    // the receiver's count reached the senders: N = 8 on the ACKs
    expect(states.map((x) => x.rccAckN)).toEqual(new Array(8).fill(8));
    const rates = p.flows.map((f) => goodputBps(p, f, 30 * T, 60 * T));
    const sum = rates.reduce((a, b) => a + b, 0);
    // C·eff = 100 Gb/s × 1000/1070 = 93.46 Gb/s; the paper (Fig. 12(a)): "similar … compared with RCC"
    expect(sum).toBeGreaterThan(0.97 * 93.46e9);
    expect(jain(rates)).toBeGreaterThan(0.99);
  });

  it('in-network congestion: both flows enter PID on RTT samples (pd mode shares the link)', () => {
    const s = rccScenario('c6-in-network.yaml', [
      'defaults.nic.cc=rcc-sender',
      'cc.rcc-sender.uMode=pd',
      `duration=${150 * T}ns`,
    ]);
    const p = probedRun(s, { outDir: join(out, 'in-network') });
    const states = p.flows.map((_, i) => p.senderState(i));
    expect(states.map((x) => x.rccInPid)).toEqual([1, 1]);
    const rates = p.flows.map((f) => goodputBps(p, f, 100 * T, 150 * T));
    expect(rates.reduce((a, b) => a + b, 0)).toBeGreaterThan(0.9 * 93.46e9);
    expect(jain(rates)).toBeGreaterThan(0.99);
  });
});
