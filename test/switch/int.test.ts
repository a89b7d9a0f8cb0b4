/**
 * INT stamping at dequeue (docs/wire.md §2.1 HPCC layout, §2.2 MPCC block; docs/switch.md "INT";
 * MPCC check AC8): per hop the egress line rate, dequeue time, bytes sent before this packet,
 * bytes left queued (all priorities) and the active-flow count; HPCC overwrites slot nhop % 5, MPCC stops after 5.
 */
import { describe, expect, it } from 'vitest';
import { Opcode } from '../../src/wire/opcodes.js';
import type { IntHop, IntStack } from '../../src/wire/packet.js';
import type { Switch } from '../../switch/api.js';
import { createSwitch } from '../../switch/switch.js';
import { ackPkt, baseConfig, dataPkt, G, hostIp, makeWorld, portCfg, type World } from './harness.js';

const stack = (layout: 'hpcc' | 'mpcc', nhop = 0, hops: IntHop[] = []): IntStack => ({ layout, nhop, hops });
const marker = (k: number): IntHop => ({
  lineRateBps: 25 * G,
  timeNs: k,
  txBytes: k,
  qlenBytes: k,
  activeFlows: k,
});

describe.each(['hpcc', 'mpcc'] as const)('INT stamping (%s layout)', (layout) => {
  it('stamps time, txBytes, qlen (all priorities), rate and active flows at dequeue', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig());
    // Four flows; a control frame on the same port counts in qlen and txBytes but is not a flow.
    for (let f = 0; f < 4; f++) sw.receive(0, dataPkt({ srcPort: 0xc000 + f, int: stack(layout) }));
    const ack = ackPkt({ srcPort: 0xd000, int: stack(layout) });
    sw.receive(0, ack);
    w.sched.run();
    const data = w.sent.filter((s) => s.pkt.srcPort !== 0xd000);
    const hops = data.map((s) => s.pkt.int!.hops[0]);
    for (const s of data) expect(s.pkt.int!.nhop).toBe(1);
    for (const s of data) expect(s.pkt.int!.hops).toHaveLength(1);
    // Flow 0 leaves at once; the ACK (66 B) jumps the data queue after it. The port's exact state: time 0,
    // 86, 166, 246 ns; sent 0, 1066, 2066, 3066 B; queued 0, 2000, 1000, 0 B. The stamp is what the wire
    // carries (docs/wire.md §2 INT stacks): HPCC floors sent bytes to 128-B units and the queue to 80-B
    // units; MPCC carries only the queue and the flow count.
    if (layout === 'hpcc') {
      expect(hops.map((h) => h.timeNs)).toEqual([0, 86, 166, 246]);
      expect(hops.map((h) => h.txBytes)).toEqual([0, 8 * 128, 16 * 128, 23 * 128]);
      expect(hops.map((h) => h.qlenBytes)).toEqual([0, 2000, 12 * 80, 0]);
      expect(hops.map((h) => h.lineRateBps)).toEqual([100 * G, 100 * G, 100 * G, 100 * G]);
    } else {
      expect(hops.map((h) => [h.timeNs, h.txBytes, h.lineRateBps])).toEqual(Array(4).fill([0, 0, 0]));
      expect(hops.map((h) => h.qlenBytes)).toEqual([0, 2000, 1000, 0]);
    }
    expect(hops.map((h) => h.activeFlows)).toEqual([1, 4, 4, 4]);
    // ACKs echo INT, they are never stamped.
    expect(ack.int!.nhop).toBe(0);
    expect(ack.int!.hops).toHaveLength(0);
  });

  it('appends up to five hops', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig());
    const p = dataPkt({ int: stack(layout, 4, [1, 2, 3, 4].map(marker)) });
    sw.receive(0, p);
    w.sched.run();
    expect(p.int!.nhop).toBe(5);
    expect(p.int!.hops.slice(0, 4)).toEqual([1, 2, 3, 4].map(marker));
    expect(p.int!.hops[4].lineRateBps).toBe(layout === 'hpcc' ? 100 * G : 0);
    expect(p.int!.hops[4].activeFlows).toBe(1);
  });
});

describe('INT switched off', () => {
  it('leaves the stack untouched', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig({ int: false }));
    const p = dataPkt({ int: stack('hpcc') });
    sw.receive(0, p);
    w.sched.run();
    expect(p.int).toEqual(stack('hpcc'));
  });
});

describe('INT beyond five hops', () => {
  it('hpcc overwrites slot nhop % 5 and keeps the others', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig());
    const p = dataPkt({ int: stack('hpcc', 5, [1, 2, 3, 4, 5].map(marker)) });
    const q = dataPkt({ int: stack('hpcc', 7, [1, 2, 3, 4, 5].map(marker)) });
    sw.receive(0, p);
    sw.receive(0, q);
    w.sched.run();
    expect(p.int!.nhop).toBe(6);
    expect(p.int!.hops[0].lineRateBps).toBe(100 * G);
    expect(p.int!.hops.slice(1)).toEqual([2, 3, 4, 5].map(marker));
    expect(q.int!.nhop).toBe(8);
    expect(q.int!.hops[2].timeNs).toBe(80);
    expect(q.int!.hops.filter((_, k) => k !== 2)).toEqual([1, 2, 4, 5].map(marker));
  });

  it('mpcc stops writing after five hops but still counts them (AC8 f)', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig());
    const p = dataPkt({ int: stack('mpcc', 5, [1, 2, 3, 4, 5].map(marker)) });
    sw.receive(0, p);
    w.sched.run();
    expect(p.int!.nhop).toBe(6);
    expect(p.int!.hops).toEqual([1, 2, 3, 4, 5].map(marker));
  });
});

/** A chain of switches s0 → s1 → … sharing one scheduler, with zero link delay. */
function chain(n: number): { w: World; sws: Switch[] } {
  const w = makeWorld();
  const sws: Switch[] = [];
  for (let k = 0; k < n; k++) sws.push(createSwitch(w.env, { ...baseConfig(), name: `s${k}`, id: k }));
  w.onSend = (port, pkt) => {
    // Frames leave switch k on port 1; the env is shared, so route by the INT hop count.
    const hop = pkt.int?.nhop ?? 0;
    if (port === 1 && hop < n) sws[hop].receive(0, pkt);
  };
  return { w, sws };
}

describe('INT along a path', () => {
  it('increments nhop once per switch and records every hop in order', () => {
    const { w, sws } = chain(3);
    const p = dataPkt({ int: stack('hpcc') });
    sws[0].receive(0, p);
    w.sched.run();
    expect(p.int!.nhop).toBe(3);
    expect(p.int!.hops.map((h) => h.timeNs)).toEqual([0, 80, 160]);
    expect(p.ttl).toBe(61);
  });

  it('mpcc on a 6-switch path sets nhop = 6 and leaves hop[0..4] from the first five', () => {
    const { w, sws } = chain(6);
    // The hops are alike (MPCC carries no time), so keep the records the first five wrote.
    let firstFive: IntHop[] = [];
    const forward = w.onSend;
    w.onSend = (port, pkt) => {
      if (pkt.int?.nhop === 5) firstFive = [...pkt.int.hops];
      forward?.(port, pkt);
    };
    const p = dataPkt({ int: stack('mpcc') });
    sws[0].receive(0, p);
    w.sched.run();
    expect(p.int!.nhop).toBe(6);
    expect(firstFive).toHaveLength(5);
    expect(p.int!.hops).toHaveLength(5);
    for (let i = 0; i < 5; i++) expect(p.int!.hops[i]).toBe(firstFive[i]);
  });
});

describe('active-flow counter (MPCC App. A.1, AC8)', () => {
  it('counts data flows within the window per egress port, and forgets a flow at t_last + window', () => {
    const w = makeWorld();
    const cfg = baseConfig({
      ports: [portCfg(100 * G, 0), portCfg(100 * G, 1), portCfg(100 * G, 2)],
      routes: new Map([
        [hostIp(0), [0]],
        [hostIp(1), [1]],
        [hostIp(2), [2]],
      ]),
      activeFlowWindowNs: 10_000,
    });
    const sw = createSwitch(w.env, cfg);
    const probes: [number, ReturnType<typeof dataPkt>][] = [];
    // Flow A: 3 packets at t = 0..2 µs. Flow B: one packet per µs until 20 µs.
    for (let t = 0; t <= 20_000; t += 1000) {
      w.sched.setTimer(t, () => {
        if (t <= 2000) sw.receive(0, dataPkt({ srcPort: 0xa000, sizeBytes: 100 }));
        // ACKs and other ports' traffic are not counted here (AC8 c).
        sw.receive(2, ackPkt({ srcPort: 0xe000, dstIp: hostIp(1), srcIp: hostIp(2) }));
        sw.receive(0, dataPkt({ srcPort: 0xf000, dstIp: hostIp(2), sizeBytes: 100 }));
        // The probe's HPCC stack carries the dequeue time as well as the count (MPCC's only the count).
        const b = dataPkt({ srcPort: 0xb000, sizeBytes: 100, int: stack('hpcc') });
        sw.receive(0, b);
        probes.push([t, b]);
      });
    }
    w.sched.run();
    // A's last packet entered at 2000; it counts until 12 000 inclusive and is gone after.
    expect(probes).toHaveLength(21);
    for (const [t, b] of probes) {
      expect(b.int!.nhop).toBe(1);
      // B is stamped within a few frame times of its arrival at t (behind A and the ACK).
      const stampNs = b.int!.hops[0].timeNs;
      expect(stampNs - t).toBeLessThan(20);
      expect(b.int!.hops[0].activeFlows).toBe(stampNs - 2000 <= 10_000 ? 2 : 1);
    }
    // Both sides of the boundary were sampled.
    expect(probes.filter(([, b]) => b.int!.hops[0].activeFlows === 2)).toHaveLength(12);
    for (const [t, b] of probes) {
      if (t === 11_000 || t === 13_000) expect(b.int!.hops[0].activeFlows).toBe(t === 11_000 ? 2 : 1);
    }
  });

  it('distinguishes flows by (srcIp, dstIp, destQp), one QP whatever its entropy (UDP source port)', () => {
    const w = makeWorld();
    const routes = new Map([
      [hostIp(1), [1]],
      [hostIp(2), [1]],
    ]);
    const sw = createSwitch(w.env, baseConfig({ routes }));
    const keys = [
      { srcPort: 1, destQp: 1 },
      { srcPort: 1, destQp: 2 },
      { srcPort: 1, destQp: 1, srcIp: hostIp(5) },
      { srcPort: 1, destQp: 1, dstIp: hostIp(2) },
      // The first QP again, sprayed: other source ports, the same flow.
      { srcPort: 2, destQp: 1 },
      { srcPort: 0xffff, destQp: 1 },
    ];
    for (const k of keys) sw.receive(0, dataPkt({ ...k, sizeBytes: 100 }));
    const probe = dataPkt({ srcPort: 3, destQp: 1, sizeBytes: 100, int: stack('hpcc') });
    sw.receive(0, probe);
    w.sched.run();
    expect(probe.int!.hops[0].activeFlows).toBe(4);
  });

  it('with a byte threshold counts a flow only past it: mice never, a returning flow afresh', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig({ activeFlowWindowNs: 10_000, activeFlowMinBytes: 250 }));
    const probes: [number, ReturnType<typeof dataPkt>][] = [];
    // M: 2 × 100 B (a mouse). X: 250 B exactly, never more than the threshold. Y: 3 × 100 B at
    // 3..5 µs, then one 100-B packet at 17 µs, after the window forgot it. L: 100 B per µs.
    for (let t = 0; t <= 20_000; t += 1000) {
      w.sched.setTimer(t, () => {
        if (t <= 1000) sw.receive(0, dataPkt({ srcPort: 0xa000, sizeBytes: 100 }));
        if (t === 2000) sw.receive(0, dataPkt({ srcPort: 0xc000, sizeBytes: 250 }));
        if ((t >= 3000 && t <= 5000) || t === 17_000)
          sw.receive(0, dataPkt({ srcPort: 0xd000, sizeBytes: 100 }));
        const l = dataPkt({ srcPort: 0xb000, sizeBytes: 100, int: stack('hpcc') });
        sw.receive(0, l);
        probes.push([t, l]);
      });
    }
    w.sched.run();
    expect(probes).toHaveLength(21);
    for (const [t, l] of probes) {
      const stampNs = l.int!.hops[0].timeNs;
      expect(stampNs - t).toBeLessThan(50);
      // L itself counts from its third packet (300 B > 250 B); Y from its third until 5 µs + window.
      const lCounts = t >= 2000 ? 1 : 0;
      const yCounts = t >= 5000 && stampNs - 5000 <= 10_000 ? 1 : 0;
      expect(l.int!.hops[0].activeFlows, `t = ${t}`).toBe(lCounts + yCounts);
    }
    expect(probes.map(([, l]) => l.int!.hops[0].activeFlows)).toEqual([
      0, 0, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1,
    ]);
  });

  it('with forget-at-end drops a flow when its message ends (BTH LAST or ONLY), else keeps it', () => {
    const counts = (forgetAtEnd: boolean) => {
      const w = makeWorld();
      const sw = createSwitch(
        w.env,
        baseConfig({ activeFlowWindowNs: 10_000, activeFlowForgetAtEnd: forgetAtEnd }),
      );
      const pkt = (srcPort: number, opcode: number, int = false) => {
        const p = dataPkt({ srcPort, sizeBytes: 100, ...(int ? { int: stack('mpcc') } : {}) });
        p.opcode = opcode;
        return p;
      };
      const probes: ReturnType<typeof dataPkt>[] = [];
      // F: WRITE First/Middle/Last at 0/1/2 µs. G: one WRITE Only at 0. H: WRITE First at 0, then
      // silent (its message has not ended). P: WRITE Middle every µs, the probe.
      for (let t = 0; t <= 5000; t += 1000) {
        w.sched.setTimer(t, () => {
          if (t <= 2000)
            sw.receive(0, pkt(0xf000, [Opcode.WriteFirst, Opcode.WriteMiddle, Opcode.WriteLast][t / 1000]));
          if (t === 0) sw.receive(0, pkt(0xa000, Opcode.WriteOnly));
          if (t === 0) sw.receive(0, pkt(0xb000, Opcode.WriteFirst));
          const probe = pkt(0xc000, Opcode.WriteMiddle, true);
          sw.receive(0, probe);
          probes.push(probe);
        });
      }
      w.sched.run();
      return probes.map((p) => p.int!.hops[0].activeFlows);
    };
    expect(counts(true)).toEqual([3, 3, 2, 2, 2, 2]);
    expect(counts(false)).toEqual([4, 4, 4, 4, 4, 4]);
  });

  it('with a byte threshold keeps the counted flows through table growth', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig({ activeFlowWindowNs: 1e9, activeFlowMinBytes: 150 }));
    // 300 flows of 2 × 100 B (counted) interleaved with 300 one-packet mice; the table grows past 64.
    for (let f = 0; f < 300; f++) {
      sw.receive(0, dataPkt({ srcPort: f, destQp: 2 * f, sizeBytes: 100 }));
      sw.receive(0, dataPkt({ srcPort: f, destQp: 2 * f + 1, sizeBytes: 100 }));
    }
    for (let f = 0; f < 300; f++) sw.receive(0, dataPkt({ srcPort: f, destQp: 2 * f, sizeBytes: 100 }));
    const probe = dataPkt({ srcPort: 0, destQp: 1000, sizeBytes: 100, int: stack('hpcc') });
    sw.receive(0, probe);
    w.sched.run();
    expect(probe.int!.hops[0].activeFlows).toBe(300);
  });

  it('scales to many concurrent flows (table growth keeps every flow)', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig({ activeFlowWindowNs: 1e9 }));
    for (let f = 0; f < 5000; f++)
      sw.receive(
        0,
        dataPkt({ srcIp: hostIp(f >> 8), srcPort: f & 0xffff, destQp: f & 0xff, sizeBytes: 100 }),
      );
    const probe = dataPkt({ srcIp: hostIp(0), srcPort: 0, destQp: 0, sizeBytes: 100, int: stack('hpcc') });
    sw.receive(0, probe);
    w.sched.run();
    expect(probe.int!.hops[0].activeFlows).toBe(5000);
  });

  it('stamps 0 when the counter is off', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig({ activeFlowWindowNs: 0 }));
    const p = dataPkt({ int: stack('mpcc') });
    sw.receive(0, p);
    w.sched.run();
    expect(p.int!.hops[0].activeFlows).toBe(0);
  });
});
