import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CcHost, type CcHostPort } from '../../nic/cc-host.js';
import { Qp } from '../../nic/qp.js';
import { resolveCc } from '../../src/cc/registry.js';
import { resolveAlgorithm } from '../../src/cc/resolve.js';
import type { CcAlgorithm, NpAlgorithm, RpEvent } from '../../src/cc/types.js';
import { type FirmwareEnv, nullLogger } from '../../src/env/env.js';
import { createRng } from '../../src/env/rng.js';
import { EngineScheduler } from '../../src/runtime/virtual/engine-scheduler.js';
import { bench, IP_B, serNs } from '../../src/runtime/virtual/nic-bench.js';
import { Ecn, FrameKind } from '../../src/wire/packet.js';
import { createExt, createPacket } from '../../src/wire/packet-factory.js';

type Seen = { type: RpEvent['type']; t: number; detail: Record<string, unknown> };
const seen = new Map<number, Seen[]>();

interface ProbeNic {
  qps: number[];
  ticks: number;
}

// A recording RP with INT + timestamps, and an NP that replaces the default one: it sends a CNP
// carrying a DCQCN+-style period on every 4th packet, stamps a window on ACKs and runs a
// NIC-wide timer.
const np: NpAlgorithm<Record<string, never>, ProbeNic, { qpn: number; n: number }> = {
  initNic: (_p, io) => {
    io.setTimer(0, io.now() + 10_000);
    return { qps: [], ticks: 0 };
  },
  initQp: (flow, _p, nic) => {
    nic.qps.push(flow.qpn);
    return { qpn: flow.qpn, n: 0 };
  },
  onData(qp, _nic, _pkt, _p, io) {
    qp.n++;
    if (qp.n % 4 === 0) io.sendCnp({ cnpPeriodNs: 12_345 });
  },
  decorateAck(qp, _nic, ack) {
    ack.ext = ack.ext ?? createExt();
    ack.ext.windowBytes = 1000 * qp.n;
  },
  onNicTimer(nic, slot, _p, io) {
    nic.ticks++;
    if (nic.ticks < 3) io.setTimer(slot, io.now() + 10_000);
    io.count('probeTicks');
  },
};

// Not registered: the NIC is handed the algorithm object.
const probeAlg = {
  name: 'test-probe',
  summary: 'test: records RP events, custom NP',
  params: z.object({}),
  rp: {
    features: { int: 'hpcc', txTimestamp: true },
    init(flow, _p, io) {
      seen.set(flow.qpn, []);
      io.setTimer(3, io.now() + 1_000);
      return { qpn: flow.qpn };
    },
    onEvent(s: { qpn: number }, ev, _p, io) {
      const d: Record<string, unknown> = {};
      if (ev.type === 'ack')
        Object.assign(d, {
          rttNs: ev.rttNs,
          acked: ev.ackedBytes,
          int: ev.pkt.int,
          win: ev.pkt.ext?.windowBytes,
        });
      if (ev.type === 'tx') Object.assign(d, { bytes: ev.bytes, retransmit: ev.retransmit });
      if (ev.type === 'cnp') d.period = ev.pkt.ext?.cnpPeriodNs;
      if (ev.type === 'timer') d.slot = ev.slot;
      if (ev.type === 'messageComplete') Object.assign(d, { id: ev.id, bytes: ev.bytes });
      if (ev.type === 'nack') d.subtype = ev.subtype;
      seen.get(s.qpn)!.push({ type: ev.type, t: io.now(), detail: d });
      if (ev.type === 'cnp') io.setRate(io.rateBps() / 2, 'probe-cnp');
    },
    inspect: () => ({ probe: 1 }),
  },
  np,
} as CcAlgorithm<Record<string, never>>;
const probeCc = () => resolveAlgorithm(probeAlg);

describe('NIC CC host', () => {
  it('delivers RP events (tx, ack with RTT and INT echo, cnp with payload, timer, completion) and runs the algorithm’s NP', () => {
    const b = bench({ cc: probeCc(), delayNs: 1000 });
    const [qpn, qpnB] = b.connect(1);
    b.send(qpn, 7, 8000);
    b.sched.run(1e9);
    const ev = seen.get(qpn)!;
    const types = ev.map((e) => e.type);
    expect(types.filter((t) => t === 'tx').length).toBe(8);
    expect(types.filter((t) => t === 'ack').length).toBe(8);
    expect(types.filter((t) => t === 'cnp').length).toBe(2);
    expect(ev.find((e) => e.type === 'timer')).toMatchObject({ t: 1000, detail: { slot: 3 } });
    expect(ev.at(-1)).toMatchObject({ type: 'messageComplete', detail: { id: 7, bytes: 8000 } });
    // RTT of the first packet: its serialisation (with INT and timestamp), 2 × 1 µs, the ACK's.
    const data = b.wire.find((w) => w.from === 'a' && w.pkt.kind === FrameKind.Data)!.pkt;
    const ack = b.wire.find((w) => w.from === 'b' && w.pkt.kind === FrameKind.Ack)!.pkt;
    const firstAck = ev.find((e) => e.type === 'ack')!;
    const rtt = Math.ceil(serNs(data.sizeBytes, 100e9)) + 2000 + Math.ceil(serNs(ack.sizeBytes, 100e9));
    expect(Math.abs((firstAck.detail.rttNs as number) - rtt)).toBeLessThanOrEqual(1);
    expect(firstAck.detail.int).toEqual({ layout: 'hpcc', nhop: 0, hops: [] });
    expect(firstAck.detail.win).toBe(1000);
    expect(data.int).toEqual({ layout: 'hpcc', nhop: 0, hops: [] });
    expect(data.sizeBytes).toBe(62 + 1000 + 42 + 8);
    // The NP's CNPs carry the period and make the RP halve the rate twice.
    expect(ev.filter((e) => e.type === 'cnp').map((e) => e.detail.period)).toEqual([12_345, 12_345]);
    expect(b.a.qpRateBps(qpn)).toBe(25e9);
    expect(b.a.rateTrace().map((r) => r.why)).toEqual(['probe-cnp', 'probe-cnp']);
    expect(b.a.qpInspect(qpn)).toMatchObject({ rateBps: 25e9, probe: 1, inflightBytes: 0 });
    // NIC-wide NP timers run on both NICs (every QP of the algorithm shares one NIC state).
    expect(b.b.ccCounters().probeTicks).toBe(3);
    expect(b.b.counters().cnpTx).toBe(2);
    expect(qpnB).toBe(1001);
  });

  it('delivers nack and timeout events, and CNMs by flow destination and QPN', () => {
    const seenPsn = new Map<number, number>();
    const b = bench({
      cc: probeCc(),
      rtoNs: 20_000,
      drop: (pkt, from) => {
        if (from !== 'a' || pkt.kind !== FrameKind.Data) return false;
        const n = (seenPsn.get(pkt.psn) ?? 0) + 1;
        seenPsn.set(pkt.psn, n);
        // PSN 2 the first time (→ NAK, go-back-N), PSN 9 (the last) when resent (→ timeout).
        return (pkt.psn === 2 && n === 1) || (pkt.psn === 9 && n === 2);
      },
    });
    const [qpn, qpnB] = b.connect(2);
    b.send(qpn, 1, 10_000);
    const cnm = createPacket();
    cnm.kind = FrameKind.Cnm;
    cnm.cnm = {
      flags: 1,
      flowId: 0,
      targetRateKbps: 1,
      cpId: 0,
      nHops: 1,
      hopsTraversed: 0,
      mActive: 0,
      MActive: 0,
      cpEgressPort: 0,
      qLenBytes: 0,
      qCthRaw: 0,
      flowSrcIp: 0,
      flowDstIp: IP_B,
      flowSrcPort: 0,
      flowDstPort: 4791,
      destQpn: qpnB,
      triggerPsn: 0,
      cpTimestampNs: 0,
    };
    b.inject('a', 500, cnm);
    b.sched.run(1e9);
    const types = seen.get(qpn)!.map((e) => e.type);
    expect(types).toContain('nack');
    expect(types).toContain('timeout');
    expect(types).toContain('cnm');
    expect(seen.get(qpn)!.find((e) => e.type === 'nack')!.detail.subtype).toBe('oos');
    expect(seen.get(qpn)!.some((e) => e.type === 'tx' && e.detail.retransmit === true)).toBe(true);
    expect(b.done.a.map((c) => c.id)).toEqual([1]);
  });

  /** One 8000-byte message under the probe CC (two rate changes), its NIC keeping `capacity` of them. */
  function tracedRun(capacity: number) {
    const b = bench({ cc: probeCc(), rateTraceCapacity: capacity });
    const [qpn] = b.connect(3);
    b.send(qpn, 1, 8000);
    b.sched.run(1e9);
    return b;
  }

  it('keeps a bounded rate trace, oldest dropped first', () => {
    const b = tracedRun(1);
    expect(b.rates.a.length).toBe(2);
    expect(b.a.rateTrace()).toEqual([b.rates.a[1]]);
  });

  it('keeps no rate trace when none is asked for, and still reports every change to its observer', () => {
    const b = tracedRun(0);
    expect(b.rates.a.length).toBe(2);
    expect(b.a.rateTrace()).toEqual([]);
  });
});

describe('CcHost on its own (a fake transport port)', () => {
  function host(cnpMinIntervalNs?: number) {
    const sched = new EngineScheduler();
    const env: FirmwareEnv = {
      now: () => sched.now(),
      setTimer: (at, fn) => sched.setTimer(at, fn),
      cancelTimer: (id) => sched.cancelTimer(id),
      send: () => {
        throw new Error('the CC host never sends frames itself');
      },
      rng: createRng(1),
      log: nullLogger,
      nextPacketId: () => 0,
    };
    const calls: string[] = [];
    const qps = new Map<number, Qp>();
    let paused = false;
    const port: CcHostPort = {
      inflightBytes: (qp) => qp.nxtByte - qp.unaByte,
      setRate: (qp, r, why) => {
        qp.rateBps = r;
        calls.push(`rate ${qp.qpn} ${r} ${why}`);
      },
      setWindow: (qp, w, why) => {
        qp.windowBytes = w;
        calls.push(`window ${qp.qpn} ${w} ${why}`);
      },
      sendCnp: (qp) => calls.push(`cnp ${qp.qpn}`),
      dataPaused: () => paused,
      qp: (qpn) => qps.get(qpn),
      kick: () => calls.push('kick'),
    };
    const h = new CcHost(env, port, cnpMinIntervalNs);
    const flow = (qpn: number) => ({
      qpn,
      remoteQpn: qpn + 1000,
      lineRateBps: 100e9,
      mtuBytes: 1000,
      baseRttNs: 4000,
      bottleneckRateBps: 100e9,
      hops: 1,
    });
    const addQp = (qpn: number, spec = probeCc()) => {
      const cc = h.binding(spec);
      const qp = new Qp(
        qpn,
        qpn + 1000,
        1,
        0,
        { baseRttNs: 4000, bottleneckRateBps: 100e9, hops: 1 },
        {
          srcMac: 0,
          dstMac: 0,
          srcIp: 0,
          dstIp: 0,
          srcPort: 0,
          destQp: 0,
        },
        qpn,
        100e9,
      );
      qps.set(qpn, qp);
      h.attach(qp, cc, flow(qpn));
      return qp;
    };
    return { sched, h, calls, addQp, setPaused: (v: boolean) => void (paused = v) };
  }

  it('binds once per spec, shares NIC-wide NP state between equal parameters, and runs RP timers', () => {
    const t = host();
    const spec = probeCc();
    expect(t.h.binding(spec)).toBe(t.h.binding(spec));
    const q1 = t.addQp(11, spec);
    const q2 = t.addQp(12, probeCc());
    expect(q1.cc).not.toBe(q2.cc);
    expect(q1.cc.npNic).toBe(q2.cc.npNic);
    expect((q1.cc.npNic.state as ProbeNic).qps).toEqual([11, 12]);
    // init armed RP timer slot 3 at 1 µs on each QP; firing it delivers a timer event and kicks.
    t.sched.run(5_000);
    expect(seen.get(11)!.filter((e) => e.type === 'timer')).toEqual([
      { type: 'timer', t: 1000, detail: { slot: 3 } },
    ]);
    expect(t.calls.filter((c) => c === 'kick').length).toBeGreaterThanOrEqual(2);
    expect(t.h.inspect(q1, 0)).toEqual({ probe: 1 });
  });

  it('routes RP io to the port (rate, pause state) and NP CNPs to the QP that asked', () => {
    const t = host();
    const q = t.addQp(21);
    const pkt = createPacket();
    pkt.kind = FrameKind.Cnp;
    t.h.rpEvent(q, { type: 'cnp', pkt });
    expect(t.calls).toContain('rate 21 50000000000 probe-cnp');
    t.setPaused(true);
    expect(q.rpIo.paused()).toBe(true);
    for (let i = 0; i < 4; i++) t.h.npData(q, createPacket());
    expect(t.calls.filter((c) => c === 'cnp 21')).toHaveLength(1);
  });

  it('uses the default ECN NP (one CNP per interval per QP) for an algorithm without an NP', () => {
    const t = host(10_000);
    const q = t.addQp(31, resolveCc('none'));
    const ce = createPacket();
    ce.ecn = Ecn.Ce;
    t.h.npData(q, ce);
    t.h.npData(q, ce);
    expect(t.calls.filter((c) => c === 'cnp 31')).toHaveLength(1);
    t.sched.run(10_000);
    t.h.npData(q, ce);
    expect(t.calls.filter((c) => c === 'cnp 31')).toHaveLength(2);
    expect(t.h.inspect(q, t.sched.now())).toBeUndefined();
  });

  it('sums io.count over all QPs and NIC-wide hooks', () => {
    const t = host();
    t.addQp(41);
    t.addQp(42);
    t.sched.run(100_000);
    expect(t.h.counters()).toEqual({ probeTicks: 3 });
  });
});
