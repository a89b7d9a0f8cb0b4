/**
 * Link events (docs/switch.md "Link events"): a port's rate changes at its emulated time (the frame
 * on the wire finishes at the old rate); a failed link loses its queued, in-flight and arriving
 * frames, counted, and the switch fails over to another equal-cost port while one is up.
 */
import { describe, expect, it } from 'vitest';
import type { SwitchConfig } from '../../switch/api.js';
import { createSwitch } from '../../switch/switch.js';
import { baseConfig, dataPkt, G, hostIp, makeWorld, portCfg } from './harness.js';

function rig(over: Partial<SwitchConfig> = {}) {
  const w = makeWorld();
  const sw = createSwitch(w.env, baseConfig(over));
  return { w, sw };
}

describe('a rate change at a time', () => {
  it('serialises at the new rate from the next frame on; the frame on the wire keeps the old one', () => {
    // Port 1 goes from 100G to 25G at 1000 ns, while 40 frames of 1000 B wait.
    const { w, sw } = rig({ portEvents: [{ atNs: 1000, port: 1, rateBps: 25 * G }] });
    for (let k = 0; k < 40; k++) sw.receive(0, dataPkt({ psn: k }));
    w.sched.run();
    const t = w.sent.filter((s) => s.port === 1).map((s) => s.tNs);
    expect(t).toHaveLength(40);
    // 80 ns per frame at 100G: frames end at 80, 160, …, 960; the 13th starts at 960 and ends at
    // 1040 (it began before the change); from then on 320 ns per frame.
    expect(t.slice(0, 13)).toEqual(Array.from({ length: 13 }, (_, k) => 80 * (k + 1)));
    for (let k = 13; k < 40; k++) expect(t[k] - t[k - 1]).toBe(320);
    expect(sw.portRateBps(1)).toBe(25 * G);
    expect(sw.portRateBps(0)).toBe(100 * G);
  });
});

describe('thresholds that follow a rate change', () => {
  const NEVER = { kminBytes: 1e12, kmaxBytes: 2e12, pmax: 0 };
  const trim = { queueBytes: 10_000, headerQueueBytes: 64_000, ecn: NEVER };
  /** 40 frames of 1000 B arrive at 10 ns on a trimming port; how many leave whole. */
  function whole(over: Partial<SwitchConfig>): number {
    const { w, sw } = rig({ pfc: { ...baseConfig().pfc, enabled: false }, trim, ...over });
    w.sched.setTimer(10, () => {
      for (let k = 0; k < 40; k++) sw.receive(0, dataPkt({ psn: k }));
    });
    w.sched.run();
    return w.sent.filter((s) => s.port === 1 && s.pkt.trimHop === 0).length;
  }

  it('take the caps and RED thresholds the event carries, and keep theirs without', () => {
    // One frame on the wire and 10 queued under the 10 000 B cap; 5 under a 5 000 B one.
    expect(whole({})).toBe(11);
    expect(whole({ portEvents: [{ atNs: 1, port: 1, rateBps: 25 * G }] })).toBe(11);
    const half = { ...trim, queueBytes: 5_000 };
    expect(whole({ portEvents: [{ atNs: 1, port: 1, rateBps: 25 * G, trim: half }] })).toBe(6);
    // A port's own trimming caps from the start.
    expect(whole({ ports: [portCfg(100 * G, 0), { ...portCfg(100 * G, 1), trim: half }] })).toBe(6);
    // RED on a non-trimming port: every frame leaving a queue above the new kmax is marked.
    const { w, sw } = rig({
      portEvents: [{ atNs: 1, port: 1, rateBps: 25 * G, ecn: { kminBytes: 0, kmaxBytes: 1, pmax: 1 } }],
    });
    w.sched.setTimer(10, () => {
      for (let k = 0; k < 10; k++) sw.receive(0, dataPkt({ psn: k }));
    });
    w.sched.run();
    expect(sw.portCounters()[1].ecnMarked).toBe(8);
  });
});

describe('a link that fails', () => {
  const ecmp = {
    ports: [0, 1, 2].map((i) => portCfg(100 * G, i)),
    routes: new Map([
      [hostIp(0), [0]],
      [hostIp(1), [1, 2]],
    ]),
    ecmpSeed: 3,
  };

  it('loses what was queued and what is sent to it, counted, until it is back', () => {
    const { w, sw } = rig({
      ports: [portCfg(100 * G, 0), portCfg(10 * G, 1)],
      portEvents: [
        { atNs: 2000, port: 1, down: true },
        { atNs: 5000, port: 1, down: false },
      ],
    });
    // 10 frames at 0 (800 ns each at 10G: 2 leave whole, 1 is on the wire at 2000, 7 queued).
    for (let k = 0; k < 10; k++) sw.receive(0, dataPkt({ psn: k }));
    // 3 frames while it is down, 2 after it is back.
    for (const [t, psn] of [
      [3000, 100],
      [3500, 101],
      [4000, 102],
      [6000, 200],
      [6100, 201],
    ])
      w.sched.setTimer(t, () => sw.receive(0, dataPkt({ psn })));
    w.sched.run();
    const out = w.sent.filter((s) => s.port === 1);
    expect(out.map((s) => s.pkt.psn)).toEqual([0, 1, 200, 201]);
    const c = sw.portCounters();
    // 7 flushed + the one on the wire + 3 routed to it while down.
    expect(c[1].linkDownDrops).toBe(11);
    expect(sw.switchCounters().linkDownDrops).toBe(11);
    expect(c[0].ingressDrops).toBe(3);
    expect(sw.queueBytes(1)).toBe(0);
    expect(sw.portRateBps(1)).toBe(10 * G);
  });

  it('drops frames still arriving on it', () => {
    const { w, sw } = rig({ portEvents: [{ atNs: 100, port: 0, down: true }] });
    w.sched.setTimer(200, () => sw.receive(0, dataPkt({ psn: 1 })));
    w.sched.run();
    expect(w.sent).toHaveLength(0);
    expect(sw.portCounters()[0]).toMatchObject({ linkDownDrops: 1, ingressDrops: 1, rxPackets: 0 });
    expect(sw.portRateBps(0)).toBe(0);
  });

  it('fails over to the equal-cost ports that are up, and back when it returns', () => {
    const { w, sw } = rig({
      ...ecmp,
      portEvents: [
        { atNs: 1000, port: 1, down: true },
        { atNs: 2000, port: 1, down: false },
      ],
    });
    const flows = 64;
    for (const t of [0, 1500, 2500])
      w.sched.setTimer(t, () => {
        for (let f = 0; f < flows; f++)
          sw.receive(0, dataPkt({ srcPort: 0xc000 + f, psn: t, sizeBytes: 100 }));
      });
    w.sched.run();
    const portOf = (t: number) =>
      new Map(w.sent.filter((s) => s.pkt.psn === t).map((s) => [s.pkt.srcPort, s.port] as const));
    const before = portOf(0);
    const during = portOf(1500);
    const after = portOf(2500);
    expect(before.size).toBe(flows);
    expect(new Set(before.values())).toEqual(new Set([1, 2]));
    // While port 1 is down every flow takes port 2; nothing is lost.
    expect(during.size).toBe(flows);
    expect(new Set(during.values())).toEqual(new Set([2]));
    expect(sw.switchCounters().linkDownDrops).toBe(0);
    // Back: each flow on its old port again.
    expect(after).toEqual(before);
  });

  it('refuses an event it cannot apply', () => {
    expect(() => rig({ portEvents: [{ atNs: 0, port: 5, down: true }] })).toThrow(RangeError);
    expect(() => rig({ portEvents: [{ atNs: -1, port: 1, down: true }] })).toThrow(RangeError);
    expect(() => rig({ portEvents: [{ atNs: 0, port: 1, rateBps: 0 }] })).toThrow(RangeError);
    const ecn = { kminBytes: 2, kmaxBytes: 1, pmax: 0.5 };
    expect(() => rig({ portEvents: [{ atNs: 0, port: 1, rateBps: G, ecn }] })).toThrow(RangeError);
    expect(() =>
      rig({ portEvents: [{ atNs: 0, port: 1, down: true, ecn: { ...ecn, kminBytes: 0 } }] }),
    ).toThrow(RangeError);
  });
});
