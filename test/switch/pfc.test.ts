/**
 * PFC generation (XOFF at the threshold, refresh while congested, XON below threshold −
 * resumeOffset), reception (egress stops for exactly the pause time), and drops without PFC.
 *
 * The upstream sender is a model in the test: it offers a 1000-B frame every 80 ns (100G) on
 * port 0 and obeys the PFC frames the switch sends back on that port (zero link delay).
 */
import { describe, expect, it } from 'vitest';
import { FrameKind, type Packet } from '../../src/wire/packet.js';
import type { PfcConfig, Switch, SwitchConfig } from '../../switch/api.js';
import type { SwitchCpFactory, SwitchCpIo } from '../../switch/cp.js';
import { createSwitch } from '../../switch/switch.js';
import { ackPkt, baseConfig, dataPkt, G, makeWorld, pfcPkt, portCfg, type World } from './harness.js';

const PRIO = 3;
const QUANTUM_NS_100G = 5.12;

interface PfcEvent {
  tNs: number;
  kind: 'xoff' | 'xon';
  /** MMU bytes of ingress (0, PRIO) when the switch decided. */
  ingressBytes: number;
}

interface Rig {
  w: World;
  sw: Switch;
  events: PfcEvent[];
  pfcFrames: { tNs: number; pkt: Packet }[];
  /** Data frames the sender put on the wire while it believed it was paused. */
  sentWhilePaused: number;
  offered: number;
}

/**
 * Port 0: 100G from the sender; port 1: 10G towards the receiver. The sender offers `frames`
 * frames and honours PFC unless `obey` is false.
 */
function floodRig(
  pfc: Partial<PfcConfig>,
  frames: number,
  obey = true,
  over: Partial<SwitchConfig> = {},
): Rig {
  const w = makeWorld();
  const events: PfcEvent[] = [];
  let io: SwitchCpIo | null = null;
  let lastPause = 0;
  let lastResume = 0;
  let sw: Switch | null = null;
  // Records the MMU state at the moment a PFC decision was taken (the frame is built at once
  // because port 0 is otherwise idle, so the counters move inside the same call).
  const watch = () => {
    const c = sw!.portCounters()[0];
    if (c.pfcPauseTx > lastPause) {
      events.push({ tNs: w.sched.now(), kind: 'xoff', ingressBytes: io!.ingressBytes(0, PRIO) });
      lastPause = c.pfcPauseTx;
    }
    if (c.pfcResumeTx > lastResume) {
      events.push({ tNs: w.sched.now(), kind: 'xon', ingressBytes: io!.ingressBytes(0, PRIO) });
      lastResume = c.pfcResumeTx;
    }
  };
  const probe: SwitchCpFactory = (x) => {
    io = x;
    return { name: 'probe', onEnqueue: watch, onDequeue: watch };
  };
  sw = createSwitch(
    w.env,
    baseConfig({
      ports: [portCfg(100 * G, 0), portCfg(10 * G, 1)],
      pfc: {
        enabled: true,
        thresholdBytes: 20_000,
        dynamicAlpha: null,
        headroomBytes: 50_000,
        resumeOffsetBytes: 5_000,
        ...pfc,
      },
      cp: [probe],
      ...over,
    }),
  );
  const rig: Rig = { w, sw, events, pfcFrames: [], sentWhilePaused: 0, offered: 0 };
  let pausedUntil = 0;
  let timer = -1;
  const tick = () => {
    timer = -1;
    if (rig.offered >= frames) return;
    const now = w.sched.now();
    if (obey && now < pausedUntil) {
      timer = w.sched.setTimer(pausedUntil, tick);
      return;
    }
    if (now < pausedUntil) rig.sentWhilePaused++;
    rig.offered++;
    sw!.receive(0, dataPkt({ psn: rig.offered }));
    timer = w.sched.setTimer(now + 80, tick);
  };
  w.onSend = (port, pkt) => {
    if (port !== 0 || pkt.kind !== FrameKind.Pfc) return;
    rig.pfcFrames.push({ tNs: w.sched.now(), pkt });
    const q = pkt.pfc!.quanta[PRIO];
    pausedUntil = q > 0 ? w.sched.now() + Math.ceil(q * QUANTUM_NS_100G) : 0;
    if (obey && q === 0 && timer !== -1) {
      w.sched.cancelTimer(timer);
      timer = w.sched.setTimer(w.sched.now(), tick);
    }
  };
  tick();
  return rig;
}

describe('PFC generation', () => {
  it('sends XOFF when the ingress counter reaches the threshold and XON below threshold − offset', () => {
    const rig = floodRig({}, 400);
    rig.w.sched.run();
    const { events } = rig;
    expect(events.length).toBeGreaterThanOrEqual(6);
    // Strictly alternating, starting with XOFF, each at the exact byte level.
    events.forEach((e, k) => {
      expect(e.kind).toBe(k % 2 === 0 ? 'xoff' : 'xon');
      expect(e.ingressBytes).toBe(e.kind === 'xoff' ? 20_000 : 15_000);
    });
    expect(events[events.length - 1].kind).toBe('xon');
    const c = rig.sw.portCounters();
    expect(c[0].pfcPauseTx).toBe(events.filter((e) => e.kind === 'xoff').length);
    expect(c[0].pfcResumeTx).toBe(events.filter((e) => e.kind === 'xon').length);
    expect(rig.sw.switchCounters().bufferDrops).toBe(0);
    // Lossless: everything offered reaches the receiver, in order.
    const delivered = rig.w.sent.filter((s) => s.port === 1).map((s) => s.pkt.psn);
    expect(delivered).toEqual(Array.from({ length: 400 }, (_, k) => k + 1));
    expect(c[1].maxQueueBytes).toBeLessThanOrEqual(20_000);
  });

  it('builds a standard 802.1Qbb frame, sent ahead of everything on the ingress port', () => {
    const rig = floodRig({}, 30);
    rig.w.sched.run();
    const xoff = rig.pfcFrames[0];
    const xoffEvent = rig.events[0];
    // 64 B at 100G: 5.12 ns on the wire, so it is out one (rounded-up) ns-step later.
    expect(xoff.tNs).toBe(xoffEvent.tNs + 6);
    expect(xoff.pkt.kind).toBe(FrameKind.Pfc);
    expect(xoff.pkt.dstMac).toBe(0x0180c2000001);
    expect(xoff.pkt.srcMac).toBe(0x020000000000);
    expect(xoff.pkt.sizeBytes).toBe(64);
    expect(xoff.pkt.pfc).toEqual({ classEnable: 1 << PRIO, quanta: [0, 0, 0, 65535, 0, 0, 0, 0] });
    const xon = rig.pfcFrames[1];
    expect(xon.pkt.pfc).toEqual({ classEnable: 1 << PRIO, quanta: [0, 0, 0, 0, 0, 0, 0, 0] });
  });

  it('refreshes the pause before it expires while still congested', () => {
    // 200 quanta at 100G = 1024 ns of pause; the switch refreshes every 512 ns. Draining
    // 5 frames at 10G takes 4 µs, so each congestion episode needs several refreshes.
    const rig = floodRig({ pauseQuanta: 200 }, 200);
    rig.w.sched.run();
    expect(rig.sentWhilePaused).toBe(0);
    const frames = rig.pfcFrames;
    let episodes = 0;
    let refreshes = 0;
    for (let k = 0; k < frames.length; k++) {
      const q = frames[k].pkt.pfc!.quanta[PRIO];
      if (q === 0) continue;
      expect(q).toBe(200);
      const prev = frames[k - 1];
      if (k === 0 || prev.pkt.pfc!.quanta[PRIO] === 0) {
        episodes++;
      } else {
        refreshes++;
        // The upstream pause never lapsed: each refresh lands before the previous one expires.
        expect(frames[k].tNs - prev.tNs).toBeLessThan(1024);
        expect(frames[k].tNs - prev.tNs).toBeGreaterThanOrEqual(512);
      }
    }
    expect(episodes).toBeGreaterThanOrEqual(3);
    // ~4000 ns of drain per episode / 512 ns.
    expect(refreshes / episodes).toBeGreaterThanOrEqual(6);
    expect(rig.sw.switchCounters().bufferDrops).toBe(0);
    expect(rig.sw.portCounters()[0].pfcPauseTx).toBe(episodes + refreshes);
  });

  it('absorbs in-flight frames in headroom and counts lossless drops when headroom runs out', () => {
    const rig = floodRig({ headroomBytes: 10_000 }, 100, false);
    rig.w.sched.run();
    const sc = rig.sw.switchCounters();
    const c = rig.sw.portCounters();
    const delivered = rig.w.sent.filter((s) => s.port === 1).length;
    expect(sc.losslessDrops).toBeGreaterThan(0);
    expect(sc.bufferDrops).toBe(sc.losslessDrops);
    expect(c[1].drops).toBe(sc.bufferDrops);
    expect(c[0].ingressDrops).toBe(sc.bufferDrops);
    expect(delivered + sc.bufferDrops).toBe(100);
    // Shared part (≤ 20 KB) + headroom (≤ 10 KB).
    expect(c[1].maxQueueBytes).toBeLessThanOrEqual(30_000);
  });

  it('uses the dynamic threshold alpha × free shared buffer', () => {
    // B = 100 KB, 2 ports × 10 KB headroom → 80 KB shared pool. alpha = 1/8:
    // XOFF when s ≥ (80 000 − s)/8 → at 9 000 B; XON when s + 3 000 ≤ (80 000 − s)/8 → at 6 000 B.
    const rig = floodRig(
      { dynamicAlpha: 0.125, headroomBytes: 10_000, resumeOffsetBytes: 3_000 },
      200,
      true,
      { bufferBytes: 100_000 },
    );
    rig.w.sched.run();
    expect(rig.events.length).toBeGreaterThanOrEqual(4);
    for (const e of rig.events) expect(e.ingressBytes).toBe(e.kind === 'xoff' ? 9_000 : 6_000);
    expect(rig.sw.switchCounters().bufferDrops).toBe(0);
  });

  it('takes headroom and alpha per ingress port when given', () => {
    // Pool = 100 KB − 20 KB (port 0) − 0 (port 1) = 80 KB; alpha 1 on port 0:
    // XOFF when s ≥ 80 000 − s → 40 000 B; XON when s + 3 000 ≤ 80 000 − s → 38 000 B.
    const rig = floodRig(
      { dynamicAlpha: 0.125, headroomBytes: 999_999, resumeOffsetBytes: 3_000 },
      300,
      true,
      {
        bufferBytes: 100_000,
        ports: [
          { ...portCfg(100 * G, 0), pfcAlpha: 1, pfcHeadroomBytes: 20_000 },
          { ...portCfg(10 * G, 1), pfcHeadroomBytes: 0 },
        ],
      },
    );
    rig.w.sched.run();
    expect(rig.events.length).toBeGreaterThanOrEqual(4);
    for (const e of rig.events) expect(e.ingressBytes).toBe(e.kind === 'xoff' ? 40_000 : 38_000);
    expect(rig.sw.switchCounters().bufferDrops).toBe(0);
  });

  it('applies thresholds above the per-port reserve', () => {
    const rig = floodRig({ reserveBytes: 4_000 }, 100);
    rig.w.sched.run();
    for (const e of rig.events) expect(e.ingressBytes).toBe(e.kind === 'xoff' ? 24_000 : 19_000);
  });
});

describe('without PFC', () => {
  it('drops arrivals to a full buffer and counts them per egress and ingress port', () => {
    const w = makeWorld();
    const sw = createSwitch(
      w.env,
      baseConfig({ ports: [portCfg(100 * G, 0), portCfg(10 * G, 1)], bufferBytes: 10_000 }),
    );
    let offered = 0;
    const tick = () => {
      if (offered++ >= 100) return;
      sw.receive(0, dataPkt({ psn: offered }));
      w.sched.setTimer(w.sched.now() + 80, tick);
    };
    tick();
    w.sched.run();
    const c = sw.portCounters();
    const sc = sw.switchCounters();
    const delivered = w.sent.filter((s) => s.port === 1).length;
    expect(c[0].pfcPauseTx).toBe(0);
    expect(sc.bufferDrops).toBeGreaterThan(50);
    expect(sc.losslessDrops).toBe(0);
    expect(delivered + sc.bufferDrops).toBe(100);
    expect(c[1].drops).toBe(sc.bufferDrops);
    expect(c[0].ingressDrops).toBe(sc.bufferDrops);
    expect(c[1].maxQueueBytes).toBeLessThanOrEqual(10_000);
  });
});

describe('PFC reception', () => {
  const pauseFor = (quanta: number) => {
    const q = [0, 0, 0, 0, 0, 0, 0, 0];
    q[PRIO] = quanta;
    return pfcPkt(1 << PRIO, q);
  };

  it('stops the paused priority for quanta × 512 bit times; the frame in flight finishes', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig());
    for (let k = 0; k < 10; k++) sw.receive(0, dataPkt({ psn: k }));
    w.sched.run(200);
    sw.receive(1, pauseFor(1000)); // 5120 ns at 100G
    w.sched.run();
    const times = w.sent.filter((s) => s.port === 1).map((s) => s.tNs);
    expect(times.slice(0, 4)).toEqual([80, 160, 240, 5400]);
    expect(times[9]).toBe(5400 + 6 * 80);
    const c = sw.portCounters()[1];
    expect(c.pfcPauseRx).toBe(1);
    expect(c.pausedNs).toBe(5120);
  });

  it('extends the pause on a refresh and resumes at once on quanta 0', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig());
    for (let k = 0; k < 5; k++) sw.receive(0, dataPkt({ psn: k }));
    w.sched.run(100);
    sw.receive(1, pauseFor(1000));
    w.sched.run(3000);
    sw.receive(1, pauseFor(65535)); // refresh: now paused until 3000 + 335 540
    w.sched.run(100_000);
    expect(w.sent.filter((s) => s.port === 1).map((s) => s.tNs)).toEqual([80, 160]);
    sw.receive(1, pauseFor(0));
    w.sched.run();
    expect(w.sent.filter((s) => s.port === 1).map((s) => s.tNs)).toEqual([
      80, 160, 100_080, 100_160, 100_240,
    ]);
    const c = sw.portCounters()[1];
    expect(c.pfcPauseRx).toBe(2);
    expect(c.pfcResumeRx).toBe(1);
    expect(c.pausedNs).toBe(100_000 - 100);
  });

  it('pauses only the enabled classes and never the control class', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig());
    sw.receive(1, pfcPkt((1 << PRIO) | (1 << 7), [0, 0, 0, 1000, 0, 0, 0, 1000]));
    sw.receive(0, dataPkt({ psn: 1, prio: PRIO }));
    sw.receive(0, dataPkt({ psn: 2, prio: 2 }));
    sw.receive(0, ackPkt({ psn: 3 }));
    w.sched.run();
    const order = w.sent.filter((s) => s.port === 1).map((s) => [s.pkt.psn, s.tNs]);
    expect(order[0]).toEqual([2, 80]);
    expect(order[1][0]).toBe(3);
    expect(order[2]).toEqual([1, 5120 + 80]);
  });

  it('reports paused time still running', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig());
    sw.receive(1, pauseFor(65535));
    w.sched.run(1000);
    expect(sw.portCounters()[1].pausedNs).toBe(1000);
  });
});
