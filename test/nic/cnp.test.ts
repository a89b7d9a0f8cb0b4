import { describe, expect, it } from 'vitest';
import { resolveCc } from '../../src/cc/registry.js';
import {
  bench,
  CONTROL_PRIO,
  IP_A,
  IP_B,
  MAC_A,
  MAC_B,
  type Side,
  serNs,
} from '../../src/runtime/virtual/nic-bench.js';
import { Opcode } from '../../src/wire/opcodes.js';
import { Ecn, FrameKind, type Packet } from '../../src/wire/packet.js';

const markAll = (pkt: Packet, from: Side) => {
  if (from === 'a' && pkt.kind === FrameKind.Data) pkt.ecn = Ecn.Ce;
};

function cnpSends(b: ReturnType<typeof bench>): number[] {
  return b.wire.filter((w) => w.pkt.kind === FrameKind.Cnp).map((w) => w.sentNs);
}

describe('NIC notification point (CNP generation)', () => {
  it('sends at most one CNP per QP per minimum interval, and builds it per docs/wire.md §1.6 CNP body', () => {
    const b = bench({ cnpMinIntervalNs: 50_000, mutate: markAll });
    const [qpn, qpnB] = b.connect(1);
    b.send(qpn, 1, 3_000_000); // ≈ 255 µs of CE-marked data at 100 Gbit/s
    b.sched.run(1e9);
    const t = cnpSends(b);
    const firstData = b.wire.find((w) => w.pkt.kind === FrameKind.Data)!.sentNs + 1000;
    const lastData = b.wire.filter((w) => w.pkt.kind === FrameKind.Data).at(-1)!.sentNs + 1000;
    // One CNP right at the first marked arrival, then one per 50 µs while marks keep coming.
    expect(t[0] - firstData).toBeLessThan(10);
    expect(t.length).toBe(Math.floor((lastData - firstData) / 50_000) + 1);
    for (let i = 1; i < t.length; i++) {
      expect(t[i] - t[i - 1]).toBeGreaterThanOrEqual(50_000);
      expect(t[i] - t[i - 1]).toBeLessThan(50_000 + 100);
    }
    const cnp = b.wire.find((w) => w.pkt.kind === FrameKind.Cnp)!.pkt;
    expect(cnp).toMatchObject({
      opcode: Opcode.Cnp,
      becn: true,
      destQp: qpn,
      psn: 0,
      ackReq: false,
      dscp: 48,
      ecn: Ecn.Ect0,
      ttl: 64,
      pkey: 0xffff,
      prio: CONTROL_PRIO,
      srcMac: MAC_B,
      dstMac: MAC_A,
      srcIp: IP_B,
      dstIp: IP_A,
      payloadLen: 0,
      sizeBytes: 78,
    });
    expect(b.b.counters().cnpTx).toBe(t.length);
    expect(b.a.counters().cnpRx).toBe(t.length);
    expect(qpnB).toBe(1001);
  });

  it('uses the algorithm’s CNP interval: DCQCN paper N = 50 µs', () => {
    const b = bench({ cnpMinIntervalNs: 1_000, mutate: markAll, cc: resolveCc('dcqcn', {}, 'paper') });
    const [qpn] = b.connect(1);
    b.send(qpn, 1, 1_000_000);
    b.sched.run(1e9);
    const t = cnpSends(b);
    expect(t.length).toBeGreaterThan(1);
    for (let i = 1; i < t.length; i++) expect(t[i] - t[i - 1]).toBeGreaterThanOrEqual(50_000);
  });

  it('hpcc-sim: one CNP per CE-marked packet', () => {
    const b = bench({
      cc: resolveCc('dcqcn'),
      mutate: (pkt, from) => {
        if (from === 'a' && pkt.kind === FrameKind.Data && pkt.psn % 10 === 0) pkt.ecn = Ecn.Ce;
      },
    });
    const [qpn] = b.connect(1);
    b.send(qpn, 1, 200_000);
    b.sched.run(1e9);
    const marked = b.wire.filter((w) => w.pkt.kind === FrameKind.Data && w.pkt.ecn === Ecn.Ce).length;
    expect(marked).toBeGreaterThan(10);
    expect(b.b.counters().cnpTx).toBe(marked);
  });

  it('deferred NP mode remembers a mark inside the interval and sends when it ends', () => {
    const b = bench({
      cc: resolveCc('dcqcn', { npMode: 'deferred' }, 'paper'),
      mutate: (pkt, from) => {
        if (from === 'a' && pkt.kind === FrameKind.Data && (pkt.psn === 0 || pkt.psn === 20))
          pkt.ecn = Ecn.Ce;
      },
    });
    const [qpn] = b.connect(1);
    b.send(qpn, 1, 100_000);
    b.sched.run(1e9);
    const t = cnpSends(b);
    expect(t.length).toBe(2);
    expect(t[1] - t[0]).toBeGreaterThanOrEqual(50_000);
    expect(t[1] - t[0]).toBeLessThan(50_000 + 10);

    const imm = bench({
      cc: resolveCc('dcqcn', {}, 'paper'),
      mutate: (pkt, from) => {
        if (from === 'a' && pkt.kind === FrameKind.Data && (pkt.psn === 0 || pkt.psn === 20))
          pkt.ecn = Ecn.Ce;
      },
    });
    imm.connect(1);
    imm.send(1, 1, 100_000);
    imm.sched.run(1e9);
    expect(cnpSends(imm).length).toBe(1);
  });

  it('ack-flag transport: ECN echo in ACKs (BECN), no CNP frames, the RP still reacts', () => {
    const b = bench({ cc: resolveCc('dcqcn', { cnpTransport: 'ack-flag' }), mutate: markAll });
    const [qpn] = b.connect(1);
    b.send(qpn, 1, 500_000);
    b.sched.run(1e9);
    expect(b.b.counters().cnpTx).toBe(0);
    const acks = b.wire.filter((w) => w.pkt.kind === FrameKind.Ack);
    expect(acks.every((w) => w.pkt.becn)).toBe(true);
    const firstEcho = acks[0].sentNs + 1000;
    // hpcc-sim: the first cut happens at the decrease check 4 µs + 1 ns after the first CNP.
    const cut = b.rates.a.find((r) => r.why === 'cnp:decrease')!;
    expect(cut.timeNs).toBe(firstEcho + 4001);
  });
});

describe('NIC congestion-control host', () => {
  it('applies a DCQCN cut to the QP’s pacing on the first CNP', () => {
    const rateBps = 100e9;
    let marked = false;
    const b = bench({
      rateBps,
      cc: resolveCc('dcqcn', {}, 'paper'),
      mutate: (pkt, from) => {
        if (!marked && from === 'a' && pkt.kind === FrameKind.Data && pkt.psn === 10) {
          pkt.ecn = Ecn.Ce;
          marked = true;
        }
      },
    });
    const [qpn] = b.connect(1);
    b.send(qpn, 1, 1_000_000);
    b.sched.run(1e9);
    const cnpArrival = b.wire.find((w) => w.pkt.kind === FrameKind.Cnp)!.sentNs + 1000;
    // Paper profile: alpha0 = 1, so the first CNP halves the rate (Eq. 2) and alpha stays 1 (Eq. 4).
    const cut = b.rates.a.find((r) => r.why === 'cnp')!;
    expect(cut.timeNs).toBe(cnpArrival);
    expect(cut.rateBps).toBe(50e9);
    const data = b.wire.filter((w) => w.from === 'a' && w.pkt.kind === FrameKind.Data);
    const after = data.filter((w) => w.sentNs > cnpArrival + 200).slice(0, 20);
    const gap = serNs(after[0].pkt.sizeBytes, 50e9);
    for (let i = 1; i < after.length; i++)
      expect(Math.abs(after[i].sentNs - after[i - 1].sentNs - gap)).toBeLessThan(1.01);
    // 55 µs later the rate timer starts fast recovery: Rc = (Rt + Rc) / 2 = 75 Gbit/s.
    const fr = b.rates.a.find((r) => r.why === 'timer:fr')!;
    expect(fr.timeNs).toBe(cnpArrival + 55_000);
    expect(fr.rateBps).toBe(75e9);
    expect(b.a.rateTrace().map((r) => r.why)).toEqual(b.rates.a.map((r) => r.why));
    expect(b.a.qpInspect(qpn).alpha).toBeCloseTo(
      1 * (255 / 256) ** Math.floor((1e9 - cnpArrival) / 55_000),
      12,
    );
  });
});
