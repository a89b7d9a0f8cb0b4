/**
 * The shared-buffer MMU on its own (docs/switch.md, "Shared-buffer MMU" and "PFC"): where a
 * frame's bytes are charged, when XOFF and XON are signalled, the dynamic threshold, refresh.
 */
import { describe, expect, it } from 'vitest';
import { pfcQuantumNs } from '../../src/wire/pfc.js';
import type { PfcConfig } from '../../switch/api.js';
import { type MmuPort, SharedBufferMmu } from '../../switch/mmu.js';
import { G, makeWorld } from './harness.js';

interface Signal {
  tNs: number;
  port: number;
  prio: number;
  quanta: number;
}

const PFC: PfcConfig = {
  enabled: true,
  thresholdBytes: 10_000,
  dynamicAlpha: null,
  headroomBytes: 5_000,
  resumeOffsetBytes: 2_000,
  reserveBytes: 1_000,
  pauseQuanta: 1_000,
};

function rig(pfc: Partial<PfcConfig> = {}, bufferBytes = 100_000, ports: MmuPort[] = [{ rateBps: 100 * G }]) {
  const w = makeWorld();
  const signals: Signal[] = [];
  const mmu = new SharedBufferMmu(w.env, bufferBytes, { ...PFC, ...pfc }, ports, (port, prio, quanta) =>
    signals.push({ tNs: w.sched.now(), port, prio, quanta }),
  );
  return { w, mmu, signals };
}

describe('SharedBufferMmu', () => {
  it('sets aside headroom and reserve per ingress port for the shared pool', () => {
    const { mmu } = rig({}, 100_000, [{ rateBps: 100 * G }, { rateBps: 100 * G, pfcHeadroomBytes: 20_000 }]);
    expect(mmu.sharedPoolBytes).toBe(100_000 - (5_000 + 20_000) - 2 * 1_000);
  });

  it('charges the reserve first, then the shared pool, and pauses at the static threshold', () => {
    const { mmu, signals } = rig();
    expect(mmu.admit(0, 3, 1_000)).toBe(true); // all in the reserve
    expect(mmu.sharedUsedBytes).toBe(0);
    for (let k = 0; k < 9; k++) expect(mmu.admit(0, 3, 1_000)).toBe(true);
    expect(mmu.sharedUsedBytes).toBe(9_000);
    expect(signals).toEqual([]);
    expect(mmu.admit(0, 3, 1_000)).toBe(true); // shared reaches 10 000 = threshold
    expect(signals).toEqual([{ tNs: 0, port: 0, prio: 3, quanta: 1_000 }]);
    expect(mmu.inXoff(0, 3)).toBe(true);
    expect(mmu.ingressBytes(0, 3)).toBe(11_000);
    expect(mmu.usedBytes).toBe(11_000);
  });

  it('puts frames above the threshold in headroom, then drops when headroom is full', () => {
    const { mmu } = rig();
    for (let k = 0; k < 11; k++) mmu.admit(0, 3, 1_000);
    for (let k = 0; k < 5; k++) expect(mmu.admit(0, 3, 1_000)).toBe(true);
    expect(mmu.sharedUsedBytes).toBe(10_000);
    expect(mmu.ingressBytes(0, 3)).toBe(16_000);
    expect(mmu.admit(0, 3, 1_000)).toBe(false);
    expect(mmu.usedBytes).toBe(16_000);
    // Another priority of the same port has its own counters.
    expect(mmu.admit(0, 4, 1_000)).toBe(true);
  });

  it('releases headroom first and resumes resumeOffset below the threshold', () => {
    const { mmu, signals } = rig();
    for (let k = 0; k < 13; k++) mmu.admit(0, 3, 1_000); // 1 000 reserve + 10 000 shared + 2 000 headroom
    mmu.release(0, 3, 2_000);
    expect(mmu.sharedUsedBytes).toBe(10_000);
    expect(signals.length).toBe(1);
    mmu.release(0, 3, 1_000); // shared 9 000: 9 000 + 2 000 > 10 000, still XOFF
    expect(signals.length).toBe(1);
    mmu.release(0, 3, 1_000); // shared 8 000: resume
    expect(signals.at(-1)).toEqual({ tNs: 0, port: 0, prio: 3, quanta: 0 });
    expect(mmu.inXoff(0, 3)).toBe(false);
    expect(mmu.usedBytes).toBe(9_000);
  });

  it('refreshes XOFF every half pause time while congested, until XON', () => {
    const { w, mmu, signals } = rig();
    for (let k = 0; k < 11; k++) mmu.admit(0, 3, 1_000);
    const halfNs = Math.floor((1_000 * pfcQuantumNs(100 * G)) / 2); // 2 560 ns
    w.sched.run(halfNs * 2 + 1);
    expect(signals.map((s) => [s.tNs, s.quanta])).toEqual([
      [0, 1_000],
      [halfNs, 1_000],
      [2 * halfNs, 1_000],
    ]);
    // A dequeue that leaves the class above the resume point changes nothing; one below it
    // sends XON and ends the refreshes.
    mmu.release(0, 3, 0);
    expect(signals.length).toBe(3);
    mmu.release(0, 3, 5_000);
    expect(signals.at(-1)!.quanta).toBe(0);
    w.sched.run(10 * halfNs);
    expect(signals.length).toBe(4);
  });

  it('applies the dynamic threshold alpha × free shared buffer', () => {
    const { mmu, signals } = rig({ dynamicAlpha: 1, reserveBytes: 0, headroomBytes: 10_000 }, 30_000);
    // Pool 20 000; XOFF once shared ≥ 1 × (20 000 − shared), i.e. at 10 000.
    expect(mmu.xoffThreshold(0)).toBe(20_000);
    for (let k = 0; k < 9; k++) mmu.admit(0, 3, 1_000);
    expect(signals).toEqual([]);
    expect(mmu.xoffThreshold(0)).toBe(11_000);
    mmu.admit(0, 3, 1_000);
    expect(mmu.xoffThreshold(0)).toBe(10_000);
    expect(signals.length).toBe(1);
  });

  it('without PFC: no headroom, no threshold, drop-tail on the shared pool', () => {
    const { mmu, signals } = rig({ enabled: false, reserveBytes: 0 }, 10_000);
    expect(mmu.xoffThreshold(0)).toBe(Number.POSITIVE_INFINITY);
    for (let k = 0; k < 10; k++) expect(mmu.admit(0, 3, 1_000)).toBe(true);
    expect(mmu.admit(0, 3, 1)).toBe(false);
    expect(signals).toEqual([]);
  });

  it('control frames take only physical buffer', () => {
    const { mmu } = rig({}, 2_000);
    expect(mmu.chargeControl(1_500)).toBe(true);
    expect(mmu.chargeControl(600)).toBe(false);
    expect(mmu.sharedUsedBytes).toBe(0);
    mmu.releaseControl(1_500);
    expect(mmu.usedBytes).toBe(0);
  });
});
