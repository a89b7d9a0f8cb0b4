/**
 * Trimming on lossy priorities (docs/switch.md "Lossy priorities" and "Trimming"; the UEC
 * reference simulator's compositequeue.cpp): a full trimming queue cuts the arriving frame or the
 * last queued one to a 64-byte header, headers leave first from a bounded header queue whose
 * overflow is counted, RED marks on dequeue by the data queue's depth with the trim thresholds,
 * and lossless priorities keep PFC on the same port.
 */
import { describe, expect, it } from 'vitest';
import { FrameKind, type Packet } from '../../src/wire/packet.js';
import { TRIMMED_FRAME_BYTES } from '../../src/wire/trim.js';
import type { SwitchConfig, TrimConfig } from '../../switch/api.js';
import { createSwitch } from '../../switch/switch.js';
import { ackPkt, baseConfig, dataPkt, G, hostIp, makeWorld, portCfg, type World } from './harness.js';

const NEVER = { kminBytes: 1e12, kmaxBytes: 2e12, pmax: 0 };

function trimConfig(o: Partial<TrimConfig> = {}): TrimConfig {
  return { queueBytes: 10_000, headerQueueBytes: 100 * TRIMMED_FRAME_BYTES, ecn: NEVER, ...o };
}

/** Port 0 (100G) in, port 1 (10G, facing host 1) out: a queue builds on port 1. */
function trimSwitch(over: Partial<SwitchConfig> = {}, seed = 1) {
  const w = makeWorld(seed);
  const cfg = baseConfig({
    ports: [portCfg(100 * G, 0), { ...portCfg(10 * G, 1), peerIsHost: true }],
    trim: trimConfig(),
    ...over,
  });
  return { w, sw: createSwitch(w.env, cfg) };
}

function burst(
  sw: ReturnType<typeof createSwitch>,
  n: number,
  o: Parameters<typeof dataPkt>[0] = {},
): Packet[] {
  const sent: Packet[] = [];
  for (let k = 0; k < n; k++) {
    const p = dataPkt({ psn: k, ...o });
    p.payloadLen = 1000 - 62;
    sent.push(p);
    sw.receive(0, p);
  }
  return sent;
}

const isHeader = (p: Packet) => p.trimHop > 0;
const out = (w: World, port = 1) => w.sent.filter((s) => s.port === port);

describe('trimming', () => {
  it('cuts frames to 64-byte headers once the queue is full, and loses none while headers fit', () => {
    const { w, sw } = trimSwitch();
    burst(sw, 40);
    let maxDataQueue = 0;
    w.onSend = () => {
      maxDataQueue = Math.max(maxDataQueue, sw.queueBytes(1));
    };
    w.sched.run();
    const sent = out(w);
    expect(sent).toHaveLength(40);
    const headers = sent.filter((s) => isHeader(s.pkt));
    const full = sent.filter((s) => !isHeader(s.pkt));
    // One frame on the wire at once, 10 queued (10 000 B cap): the other 29 are trimmed.
    expect(full).toHaveLength(11);
    expect(headers).toHaveLength(29);
    for (const h of headers) {
      expect(h.pkt.sizeBytes).toBe(TRIMMED_FRAME_BYTES);
      // What was lost stays readable: the headers, the original payload length.
      expect(h.pkt.payloadLen).toBe(938);
      expect(h.pkt.payload).toBeNull();
      expect(h.pkt.kind).toBe(FrameKind.Data);
      // TTL 64 → 63 at this, the first, switch; the egress faces the destination host.
      expect(h.pkt.trimHop).toBe(1);
      expect(h.pkt.trimLastHop).toBe(true);
    }
    for (const f of full) {
      expect(f.pkt.trimHop).toBe(0);
      expect(f.pkt.sizeBytes).toBe(1000);
    }
    expect(new Set(sent.map((s) => s.pkt.psn)).size).toBe(40);
    const c = sw.portCounters()[1];
    expect(c.trims).toBe(29);
    expect(c.headerDrops).toBe(0);
    expect(sw.switchCounters()).toMatchObject({ trims: 29, headerDrops: 0, bufferDrops: 0 });
    // Data queue at most its cap (+ the headers, counted in the port's queue).
    expect(c.maxQueueBytes).toBeLessThanOrEqual(10_000 + 29 * TRIMMED_FRAME_BYTES);
    expect(c.maxHeaderQueueBytes).toBeGreaterThan(0);
    expect(sw.queueBytes(1)).toBe(0);
  });

  it('trims the arriving frame or, half the time, the last queued one (the reference’s coin)', () => {
    let arriving = 0;
    let queued = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const { w, sw } = trimSwitch({}, seed);
      burst(sw, 40);
      w.sched.run();
      // Arrivals 11..39 each cause one trim, in that order, and headers leave in the order they
      // were trimmed: the i-th header is the arrival itself (PSN 11 + i) or the queue's tail (a
      // lower PSN, which the arrival replaced).
      const headers = out(w).filter((s) => isHeader(s.pkt));
      expect(headers).toHaveLength(29);
      headers.forEach((h, i) => {
        if (h.pkt.psn === 11 + i) arriving++;
        else {
          expect(h.pkt.psn).toBeLessThan(11 + i);
          queued++;
        }
      });
    }
    // 580 fair coin flips: each kind within 5 standard deviations (12) of 290.
    expect(Math.abs(queued - 290)).toBeLessThan(60);
    expect(queued + arriving).toBe(580);
  });

  it('serves headers with strict priority over data, after the frame on the wire', () => {
    const { w, sw } = trimSwitch();
    burst(sw, 15);
    w.sched.run();
    const kinds = out(w).map((s) => (isHeader(s.pkt) ? 'h' : 'd'));
    // The first frame went straight to the wire; the four headers overtake the ten queued frames.
    expect(kinds.join('')).toBe(`d${'h'.repeat(4)}${'d'.repeat(10)}`);
  });

  it('bounds the header queue and counts what it drops', () => {
    const { w, sw } = trimSwitch({ trim: trimConfig({ headerQueueBytes: 3 * TRIMMED_FRAME_BYTES }) });
    burst(sw, 40);
    w.sched.run();
    const sent = out(w);
    expect(sent.filter((s) => isHeader(s.pkt))).toHaveLength(3);
    const c = sw.portCounters()[1];
    expect(c.trims).toBe(29);
    expect(c.headerDrops).toBe(26);
    expect(c.maxHeaderQueueBytes).toBe(3 * TRIMMED_FRAME_BYTES);
    expect(sw.switchCounters().headerDrops).toBe(26);
    // Everything is accounted for: sent in full, as a header, or a counted header drop.
    expect(sent.length + c.headerDrops).toBe(40);
  });

  it('marks ECN at dequeue by the data queue’s depth with the trim thresholds (headers never)', () => {
    const { w, sw } = trimSwitch({
      trim: trimConfig({ ecn: { kminBytes: 4000, kmaxBytes: 4000, pmax: 1 } }),
    });
    burst(sw, 25);
    w.sched.run();
    const full = out(w).filter((s) => !isHeader(s.pkt));
    // Step marking: a frame leaving more than 4000 B of data behind it is marked. Frame 0 left
    // at once, frames 1..10 were queued: 9000, 8000, … 0 bytes behind them (headers not counted).
    expect(full.map((s) => s.pkt.ecn === 3)).toEqual([
      false,
      true,
      true,
      true,
      true,
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
    for (const h of out(w).filter((s) => isHeader(s.pkt))) expect(h.pkt.ecn).not.toBe(3);
  });

  it('trims the arrival when the shared buffer is full before the queue is', () => {
    const { w, sw } = trimSwitch({ bufferBytes: 5_000 + 4 * TRIMMED_FRAME_BYTES });
    burst(sw, 20);
    w.sched.run();
    const c = sw.portCounters()[1];
    // The frame on the wire left the buffer; five more fill it to 5 000 B, 4 headers fit beside.
    expect(out(w).filter((s) => !isHeader(s.pkt))).toHaveLength(6);
    expect(out(w).filter((s) => isHeader(s.pkt))).toHaveLength(4);
    expect(c.trims).toBe(14);
    // Nothing is a buffer drop: a frame is trimmed, and only its header may be lost (counted).
    expect(c.headerDrops).toBe(10);
    expect(sw.switchCounters().bufferDrops).toBe(0);
  });

  it('queues header-only frames (ACKs, headers trimmed upstream) on the header queue, untouched', () => {
    const { w, sw } = trimSwitch();
    burst(sw, 12);
    const upstream = dataPkt({ psn: 100, sizeBytes: TRIMMED_FRAME_BYTES, ttl: 62 });
    upstream.trimHop = 2;
    sw.receive(0, upstream);
    const ack = ackPkt({ psn: 200, prio: 3 });
    sw.receive(0, ack);
    w.sched.run();
    const order = out(w).map((s) => s.pkt.psn);
    // Both overtake the queued data, in arrival order after the trimmed frame 11.
    expect(order.slice(0, 4)).toEqual([0, 11, 100, 200]);
    expect(upstream.trimHop).toBe(2);
    expect(upstream.trimLastHop).toBe(false);
    expect(sw.portCounters()[1].trims).toBe(1);
  });

  it('says at which hop a frame was trimmed and whether that hop faced the destination', () => {
    const { w, sw } = trimSwitch({
      ports: [portCfg(100 * G, 0), portCfg(10 * G, 1)],
    });
    burst(sw, 15, { ttl: 61 });
    w.sched.run();
    const h = out(w).filter((s) => isHeader(s.pkt));
    expect(h.length).toBeGreaterThan(0);
    for (const s of h) {
      expect(s.pkt.trimHop).toBe(4);
      expect(s.pkt.trimLastHop).toBe(false);
    }
  });

  it('is off without a trim config: a lossy queue drops at the buffer, as before', () => {
    const { w, sw } = trimSwitch({ trim: null, bufferBytes: 5_000 });
    burst(sw, 20);
    w.sched.run();
    expect(out(w).every((s) => !isHeader(s.pkt))).toBe(true);
    expect(sw.switchCounters().bufferDrops).toBeGreaterThan(10);
    expect(sw.portCounters()[1].trims).toBe(0);
  });
});

describe('lossy and lossless priorities on one port', () => {
  it('trims the lossy priority and pauses, never drops, the lossless one', () => {
    const w = makeWorld();
    const sw = createSwitch(
      w.env,
      baseConfig({
        ports: [portCfg(100 * G, 0), portCfg(100 * G, 2), { ...portCfg(10 * G, 1), peerIsHost: true }],
        routes: new Map([
          [hostIp(0), [0]],
          [hostIp(1), [2]],
        ]),
        pfc: {
          enabled: true,
          priorities: [4],
          thresholdBytes: 8_000,
          dynamicAlpha: null,
          headroomBytes: 200_000,
          resumeOffsetBytes: 2_000,
        },
        trim: trimConfig(),
      }),
    );
    // 40 lossy frames (priority 3) on port 0 and 40 lossless ones (priority 4) on port 1, at once.
    for (let k = 0; k < 40; k++) {
      sw.receive(0, dataPkt({ psn: k, prio: 3 }));
      sw.receive(1, dataPkt({ psn: 1000 + k, prio: 4, srcPort: 0xd000 }));
    }
    w.sched.run();
    const toHost = out(w, 2);
    const lossless = toHost.filter((s) => s.pkt.prio === 4);
    const lossy = toHost.filter((s) => s.pkt.prio === 3);
    // Lossless: every frame in full, the ingress paused its peer, no drop.
    expect(lossless).toHaveLength(40);
    expect(lossless.every((s) => !isHeader(s.pkt))).toBe(true);
    const pfcOut = w.sent.filter((s) => s.pkt.kind === FrameKind.Pfc);
    expect(pfcOut.length).toBeGreaterThan(0);
    for (const s of pfcOut) {
      expect(s.port).toBe(1);
      expect(s.pkt.pfc!.classEnable & ~(1 << 4)).toBe(0);
    }
    expect(sw.portCounters()[1].pfcPauseTx).toBeGreaterThan(0);
    expect(sw.portCounters()[0].pfcPauseTx).toBe(0);
    // Lossy: trimmed beyond its 10 000-B queue, never paused, nothing lost while headers fit.
    expect(lossy).toHaveLength(40);
    expect(lossy.filter((s) => isHeader(s.pkt)).length).toBeGreaterThan(20);
    const sc = sw.switchCounters();
    expect(sc.losslessDrops).toBe(0);
    expect(sc.bufferDrops).toBe(0);
    expect(sc.trims).toBe(lossy.filter((s) => isHeader(s.pkt)).length);
  });
});
