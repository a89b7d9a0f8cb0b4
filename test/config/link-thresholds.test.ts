/**
 * Byte thresholds of a link whose rate a `links` entry changes (docs/scenario.md "links",
 * src/runtime/link-thresholds.ts): they keep their queueing delay, as the UEC reference simulator
 * builds its slowed links and the HPCC simulator keys its RED thresholds by rate. RED/ECN from
 * `ecn.byRate` for the new rate when it is there, else the built rate's scaled; trimming caps and
 * their RED scaled; `thresholds: keep` leaves them; both ends of the link, from the start or at
 * a time.
 */
import { describe, expect, it } from 'vitest';
import { isConfigError } from '../../src/config/errors.js';
import { parseScenarioText } from '../../src/config/load.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';

const DUMBBELL = 'topology: { kind: dumbbell, left: 2, right: 2 }\n';
const TRIM = `defaults:
  nic: { mtu: 4096 }
  switch: { pfc: { priorities: [4] }, trim: { queueBytes: 200KB, kmin: 40KB, kmax: 160KB } }
`;

function config(text: string, sw: string) {
  const setup = setupRun(parseScenarioText(text));
  const node = setup.topo.byName.get(sw)!;
  const base = {
    name: sw,
    id: node.index,
    ports: node.ports.map((p) => ({ rateBps: p.rateBps, mac: 0, peerMac: 0 })),
    routes: new Map(),
  };
  const cfg = setup.switchConfig(node, base);
  const toward = (peer: string) => cfg.ports[node.ports.findIndex((p) => p.peerNode === peer)];
  return { cfg, toward };
}

const red = (p: { ecn?: { kminBytes: number; kmaxBytes: number; pmax: number } }) => [
  p.ecn!.kminBytes,
  p.ecn!.kmaxBytes,
  p.ecn!.pmax,
];

describe('a link slowed from the start', () => {
  it('scales the RED/ECN thresholds of both its ports; other ports keep theirs', () => {
    const text = `${DUMBBELL}links: [{ a: s1, b: s2, rate: 25Gbps }]\n`;
    for (const [sw, peer] of [
      ['s1', 's2'],
      ['s2', 's1'],
    ]) {
      const { toward } = config(text, sw);
      expect(toward(peer).rateBps).toBe(25e9);
      expect(red(toward(peer))).toEqual([100_000, 400_000, 0.2]);
    }
    expect(red(config(text, 's1').toward('h1'))).toEqual([400_000, 1_600_000, 0.2]);
  });

  it('takes ecn.byRate for the new rate when the table has it', () => {
    const text = `${DUMBBELL}defaults: { switch: { ecn: { byRate: { 25Gbps: { kmin: 50KB, kmax: 300KB, pmax: 0.1 } } } } }
links: [{ a: s1, b: s2, rate: 25Gbps }]\n`;
    expect(red(config(text, 's1').toward('s2'))).toEqual([50_000, 300_000, 0.1]);
  });

  it('scales the trimming caps and their RED with the rate', () => {
    const { toward } = config(`${DUMBBELL}${TRIM}links: [{ a: s1, b: s2, rate: 25Gbps }]\n`, 's1');
    expect(toward('s2').trim).toEqual({
      queueBytes: 50_000,
      headerQueueBytes: 100_000,
      ecn: { kminBytes: 10_000, kmaxBytes: 40_000, pmax: 1 },
    });
    expect(toward('h1').trim).toEqual({
      queueBytes: 200_000,
      headerQueueBytes: 400_000,
      ecn: { kminBytes: 40_000, kmaxBytes: 160_000, pmax: 1 },
    });
  });

  it('keeps the bytes with thresholds: keep', () => {
    const text = `${DUMBBELL}${TRIM}links: [{ a: s1, b: s2, rate: 25Gbps, thresholds: keep }]\n`;
    const { toward } = config(text, 's1');
    expect(red(toward('s2'))).toEqual([400_000, 1_600_000, 0.2]);
    expect(toward('s2').trim?.queueBytes).toBe(200_000);
  });
});

describe('a link whose rate changes at a time', () => {
  it('hands the thresholds of each new rate to the switch with the event', () => {
    const text = `${DUMBBELL}${TRIM}links:
  - { a: s1, b: s2, at: 100us, rate: 25Gbps }
  - { a: s1, b: s2, at: 200us, rate: 100Gbps }
  - { a: s1, b: s2, at: 300us, rate: 50Gbps, thresholds: keep }
`;
    const events = config(text, 's2').cfg.portEvents!;
    expect(events.map((e) => e.ecn && red(e))).toEqual([
      [100_000, 400_000, 0.2],
      [400_000, 1_600_000, 0.2],
      undefined,
    ]);
    expect(events.map((e) => e.trim?.queueBytes)).toEqual([50_000, 200_000, undefined]);
  });

  it('refuses thresholds without a rate', () => {
    try {
      setupRun(parseScenarioText(`${DUMBBELL}links: [{ a: s1, b: s2, delay: 2us, thresholds: keep }]\n`));
      throw new Error('loaded');
    } catch (err) {
      expect(isConfigError(err)).toBe(true);
      expect((err as Error).message).toBe(
        'links[0].thresholds: needs rate (the thresholds follow a rate change)',
      );
    }
  });
});
