import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FrameKind, type Packet } from '../../src/wire/packet.js';
import { createPacket } from '../../src/wire/packet-factory.js';
import { createSwitch } from '../../switch/switch.js';
import { ackPkt, baseConfig, dataPkt, G, hostIp, makeWorld, pfcPkt, portCfg, serNs } from './harness.js';

describe('line rate', () => {
  it('sends back-to-back frames exactly size·8/rate apart', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig());
    for (let k = 0; k < 10; k++) sw.receive(0, dataPkt({ psn: k }));
    w.sched.run();
    expect(w.sent.map((s) => s.tNs)).toEqual([80, 160, 240, 320, 400, 480, 560, 640, 720, 800]);
    expect(w.sent.map((s) => s.pkt.psn)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('keeps the exact rate when a frame time is not a whole number of ns', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig());
    const n = 1000;
    for (let k = 0; k < n; k++) sw.receive(0, dataPkt({ sizeBytes: 1090 }));
    w.sched.run();
    const frameNs = serNs(1090, 100 * G); // 87.2 ns
    w.sent.forEach((s, k) => {
      const exact = (k + 1) * frameNs;
      expect(s.tNs).toBeGreaterThanOrEqual(exact - 1e-6);
      expect(s.tNs - exact).toBeLessThan(1);
    });
    expect(w.sent[n - 1].tNs).toBe(87_200);
  });

  it('serialises at each egress port rate independently', () => {
    const w = makeWorld();
    const cfg = baseConfig({ ports: [portCfg(100 * G, 0), portCfg(25 * G, 1)] });
    const sw = createSwitch(w.env, cfg);
    for (let k = 0; k < 4; k++) sw.receive(0, dataPkt());
    sw.receive(1, dataPkt({ dstIp: hostIp(0), srcIp: hostIp(1) }));
    w.sched.run();
    expect(w.sent.filter((s) => s.port === 1).map((s) => s.tNs)).toEqual([320, 640, 960, 1280]);
    expect(w.sent.filter((s) => s.port === 0).map((s) => s.tNs)).toEqual([80]);
  });

  it('leaves idle ports idle and restarts on the next arrival', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig());
    sw.receive(0, dataPkt());
    w.sched.run(1000);
    sw.receive(0, dataPkt());
    w.sched.run();
    expect(w.sent.map((s) => s.tNs)).toEqual([80, 1080]);
  });
});

describe('line rate with late timers (real time)', () => {
  /** A world whose timers all fire `lateNs` after their due time, as a busy host's do. */
  function lateWorld(lateNs: number) {
    const w = makeWorld();
    const setTimer = w.env.setTimer;
    w.env.setTimer = (at, fn) => setTimer(at + lateNs, fn);
    return w;
  }

  it('catches up: a backlog still leaves at line rate although every end-of-frame timer is late', () => {
    const w = lateWorld(30);
    const sw = createSwitch(w.env, baseConfig());
    const n = 1000;
    for (let k = 0; k < n; k++) sw.receive(0, dataPkt({ psn: k }));
    w.sched.run();
    // Each frame goes on the wire when its (late) timer fires, but the next one starts at the
    // exact end of the previous: n frames take n·80 ns plus one lateness, not n·(80 + 30).
    expect(w.sent).toHaveLength(n);
    expect(w.sent[n - 1].tNs).toBe(n * 80 + 30);
  });

  it('does not start a frame before it arrived: one arriving after the late end starts on arrival', () => {
    const w = lateWorld(30);
    const sw = createSwitch(w.env, baseConfig());
    sw.receive(0, dataPkt({ psn: 0 }));
    // The first frame ends at 80 but its timer fires at 110; this one arrives in between.
    w.sched.setTimer(95, () => sw.receive(0, dataPkt({ psn: 1 })));
    w.sched.run();
    expect(w.sent.map((s) => s.tNs)).toEqual([110, 95 + 80 + 30]);
  });
});

describe('L3 forwarding', () => {
  it('decrements TTL and rewrites both MACs to the egress port and its peer', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig());
    const p = dataPkt({ ttl: 64 });
    p.srcMac = 0x111111111111;
    p.dstMac = 0x222222222222;
    sw.receive(0, p);
    w.sched.run();
    expect(w.sent).toHaveLength(1);
    const out = w.sent[0].pkt;
    expect(out.ttl).toBe(63);
    expect(out.srcMac).toBe(0x020000000001);
    expect(out.dstMac).toBe(0x040000000001);
    expect(out.srcIp).toBe(hostIp(0));
    expect(out.dstIp).toBe(hostIp(1));
  });

  it('drops frames whose TTL reaches 0 and counts them', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig());
    sw.receive(0, dataPkt({ ttl: 1 }));
    sw.receive(0, dataPkt({ ttl: 0 }));
    sw.receive(0, dataPkt({ ttl: 2 }));
    w.sched.run();
    expect(w.sent).toHaveLength(1);
    expect(w.sent[0].pkt.ttl).toBe(1);
    expect(sw.switchCounters().ttlExpired).toBe(2);
    expect(sw.portCounters()[0].ingressDrops).toBe(2);
  });

  it('consumes PFC frames (link-local, never forwarded)', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig());
    sw.receive(0, pfcPkt(1 << 3, [0, 0, 0, 100, 0, 0, 0, 0]));
    w.sched.run();
    expect(w.sent).toHaveLength(0);
    expect(sw.portCounters()[0].pfcPauseRx).toBe(1);
  });

  it('counts unroutable frames and drops them', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig());
    sw.receive(0, dataPkt({ dstIp: hostIp(99) }));
    w.sched.run();
    expect(w.sent).toHaveLength(0);
    expect(sw.switchCounters().unroutable).toBe(1);
    expect(sw.portCounters()[0].ingressDrops).toBe(1);
  });

  it('treats empty route lists and entries that name no port as unroutable', () => {
    const w = makeWorld();
    const cfg = baseConfig({
      ports: [0, 1].map((i) => portCfg(100 * G, i)),
      routes: new Map([
        [hostIp(1), [1]],
        [hostIp(2), []],
        [hostIp(3), [1.5]],
        [hostIp(4), [-1]],
        [hostIp(5), [2]],
        [hostIp(6), [2 ** 32]],
      ]),
    });
    const sw = createSwitch(w.env, cfg);
    for (let h = 1; h <= 6; h++) sw.receive(0, dataPkt({ dstIp: hostIp(h) }));
    w.sched.run();
    expect(w.sent.map((s) => [s.port, s.pkt.dstIp])).toEqual([[1, hostIp(1)]]);
    expect(sw.switchCounters().unroutable).toBe(5);
  });

  it('counts malformed frames and never throws', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig());
    const bad: unknown[] = [
      null,
      undefined,
      42,
      'frame',
      {},
      { ...dataPkt(), prio: 9 },
      { ...dataPkt(), prio: -1 },
      { ...dataPkt(), sizeBytes: Number.NaN },
      { ...dataPkt(), sizeBytes: 0 },
      { ...dataPkt(), sizeBytes: '1000' },
      { ...dataPkt(), ttl: 1.5 },
      { ...dataPkt(), kind: 99 },
      { ...dataPkt(), kind: FrameKind.Sync },
      { ...dataPkt(), int: { layout: 'hpcc', nhop: 0 } },
      { ...dataPkt(), int: { layout: 'weird', nhop: 0, hops: [] } },
      { ...createPacket(), kind: FrameKind.Cnm, sizeBytes: 74 },
      { ...pfcPkt(8, [0, 0, 0, 1]) },
      { ...pfcPkt(8, [0, 0, 0, -5, 0, 0, 0, 0]) },
      { ...pfcPkt(8, [0, 0, 0, 70000, 0, 0, 0, 0]) },
      { ...createPacket(), kind: FrameKind.Pfc, sizeBytes: 64 },
    ];
    for (const b of bad) expect(() => sw.receive(0, b as Packet)).not.toThrow();
    expect(() => sw.receive(7, dataPkt())).not.toThrow();
    expect(() => sw.receive(-1, dataPkt())).not.toThrow();
    expect(() => sw.receive(Number.NaN, dataPkt())).not.toThrow();
    w.sched.run();
    expect(w.sent).toHaveLength(0);
    expect(sw.switchCounters().malformed).toBe(bad.length + 3);
    expect(sw.portCounters()[0].ingressDrops).toBe(bad.length);
  });

  it('survives arbitrary garbage (property)', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig());
    const field = fc.oneof(
      fc.integer(),
      fc.double(),
      fc.string(),
      fc.constant(null),
      fc.boolean(),
      fc.array(fc.integer()),
    );
    const garbage = fc.record(
      {
        kind: fc.oneof(fc.integer({ min: -1, max: 8 }), field),
        prio: fc.oneof(fc.integer({ min: -1, max: 9 }), field),
        sizeBytes: fc.oneof(fc.integer({ min: -10, max: 70000 }), field),
        ttl: fc.oneof(fc.integer({ min: -1, max: 300 }), field),
        dstIp: fc.oneof(fc.constantFrom(hostIp(0), hostIp(1)), field),
        srcIp: field,
        srcPort: field,
        ecn: fc.oneof(fc.integer({ min: 0, max: 3 }), field),
        int: fc.oneof(
          fc.constant(null),
          field,
          fc.record({ layout: fc.constantFrom('hpcc', 'mpcc'), nhop: field, hops: field }),
        ),
        pfc: fc.oneof(fc.constant(null), field, fc.record({ classEnable: field, quanta: field })),
        cnm: fc.oneof(fc.constant(null), field),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.integer({ min: -2, max: 3 }), garbage, (port, g) => {
        sw.receive(port, { ...createPacket(), ...g } as Packet);
        w.sched.run(w.sched.now() + 1_000_000);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('ECMP', () => {
  function ecmpSwitch(seed: number) {
    const w = makeWorld();
    const cfg = baseConfig({
      ports: [0, 1, 2, 3, 4].map((i) => portCfg(100 * G, i)),
      routes: new Map([
        [hostIp(0), [0]],
        [hostIp(1), [1, 2, 3, 4]],
      ]),
      ecmpSeed: seed,
    });
    return { w, sw: createSwitch(w.env, cfg) };
  }

  it('spreads distinct flows over the equal-cost ports and keeps each flow on one port', () => {
    const { w, sw } = ecmpSwitch(7);
    const flows = 400;
    for (let k = 0; k < 5; k++) {
      for (let f = 0; f < flows; f++) sw.receive(0, dataPkt({ srcPort: 0xc000 + f, psn: k, sizeBytes: 100 }));
    }
    w.sched.run();
    const portOf = new Map<number, Set<number>>();
    for (const s of w.sent) {
      const set = portOf.get(s.pkt.srcPort) ?? new Set();
      set.add(s.port);
      portOf.set(s.pkt.srcPort, set);
    }
    expect(portOf.size).toBe(flows);
    for (const set of portOf.values()) expect(set.size).toBe(1);
    const perPort = [0, 0, 0, 0, 0];
    for (const set of portOf.values()) perPort[[...set][0]]++;
    expect(perPort[0]).toBe(0);
    // Binomial(400, 1/4): sd ≈ 8.7 flows; 4 sd either side.
    for (const port of [1, 2, 3, 4]) expect(Math.abs(perPort[port] - flows / 4)).toBeLessThan(35);
  });

  it('is deterministic per seed and changes with the seed', () => {
    const pick = (seed: number) => {
      const { w, sw } = ecmpSwitch(seed);
      for (let f = 0; f < 64; f++) sw.receive(0, dataPkt({ srcPort: 0xc000 + f, sizeBytes: 100 }));
      w.sched.run();
      return w.sent.map((s) => `${s.pkt.srcPort}:${s.port}`).sort();
    };
    expect(pick(1)).toEqual(pick(1));
    expect(pick(1)).not.toEqual(pick(2));
  });

  it('hashes on the source and destination addresses too', () => {
    const { w, sw } = ecmpSwitch(3);
    for (let h = 0; h < 200; h++) sw.receive(0, dataPkt({ srcIp: hostIp(10 + h), sizeBytes: 100 }));
    w.sched.run();
    const used = new Set(w.sent.map((s) => s.port));
    expect(used).toEqual(new Set([1, 2, 3, 4]));
  });
});

describe('egress scheduling', () => {
  it('serves the control class with strict priority, after the frame in flight', () => {
    const w = makeWorld();
    const cfg = baseConfig({ ports: [portCfg(100 * G, 0), portCfg(10 * G, 1)] });
    const sw = createSwitch(w.env, cfg);
    for (let k = 0; k < 5; k++) sw.receive(0, dataPkt({ psn: k }));
    w.sched.run(100);
    // An ACK at the control priority, a CNP at a data priority (CNPs are control by kind),
    // a data frame at the control priority, and an ACK at the data priority (rides with data).
    sw.receive(0, ackPkt({ psn: 100 }));
    const cnp = dataPkt({ psn: 200, sizeBytes: 82, prio: 3 });
    cnp.kind = FrameKind.Cnp;
    sw.receive(0, cnp);
    sw.receive(0, dataPkt({ psn: 300, prio: 7 }));
    sw.receive(0, ackPkt({ psn: 400, prio: 3 }));
    w.sched.run();
    expect(w.sent.map((s) => s.pkt.psn)).toEqual([0, 100, 200, 300, 1, 2, 3, 4, 400]);
  });

  it('forces the configured controlKinds into the control class', () => {
    const w = makeWorld();
    const cfg = baseConfig({
      ports: [portCfg(100 * G, 0), portCfg(10 * G, 1)],
      controlKinds: [FrameKind.Ack, FrameKind.Nak, FrameKind.Cnp, FrameKind.Cnm],
    });
    const sw = createSwitch(w.env, cfg);
    for (let k = 0; k < 3; k++) sw.receive(0, dataPkt({ psn: k }));
    sw.receive(0, ackPkt({ psn: 100, prio: 3 }));
    w.sched.run();
    expect(w.sent.map((s) => s.pkt.psn)).toEqual([0, 100, 1, 2]);
  });

  it('shares the port byte-fairly among backlogged data priorities (DRR)', () => {
    const w = makeWorld();
    const cfg = baseConfig({
      ports: [portCfg(100 * G, 0), portCfg(10 * G, 1), portCfg(100 * G, 2)],
      drrQuantumBytes: 1500,
    });
    const sw = createSwitch(w.env, cfg);
    // prio 1: 500-B frames, prio 2: 1500-B frames, prio 4: 1000-B frames, all backlogged.
    for (let k = 0; k < 3000; k++) sw.receive(0, dataPkt({ prio: 1, sizeBytes: 500 }));
    for (let k = 0; k < 1000; k++) sw.receive(2, dataPkt({ prio: 2, sizeBytes: 1500 }));
    for (let k = 0; k < 1500; k++) sw.receive(0, dataPkt({ prio: 4, sizeBytes: 1000 }));
    const horizonNs = 800_000; // 1 MB at 10G, well before any queue empties
    w.sched.run(horizonNs);
    const bytes = [0, 0, 0, 0, 0, 0, 0, 0];
    for (const s of w.sent) bytes[s.pkt.prio] += s.pkt.sizeBytes;
    const total = bytes[1] + bytes[2] + bytes[4];
    expect(total).toBeGreaterThan(990_000);
    // Within one quantum of each other at any time.
    for (const p of [1, 2, 4]) expect(Math.abs(bytes[p] - total / 3)).toBeLessThanOrEqual(1500);
  });

  it('integrates the queue length over time for the mean', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig());
    for (let k = 0; k < 3; k++) sw.receive(0, dataPkt());
    w.sched.run(1000);
    const c = sw.portCounters()[1];
    // 2000 B for 80 ns, 1000 B for 80 ns, then empty.
    expect(c.queueByteNs).toBe(240_000);
    expect(c.maxQueueBytes).toBe(2000);
    expect(c.txBytes).toBe(3000);
    expect(c.txPackets).toBe(3);
    expect(c.queueBytes).toBe(0);
    expect(sw.queueBytes(1)).toBe(0);
  });
});
