/**
 * RealNodeEnv's receive delay lines (docs/realtime.md "Propagation delay and arrival stamps"),
 * and the INT_MULTI it codes HPCC INT with, driven with a fake socket and a clock that moves only
 * when the test says so.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { nullLogger } from '../../src/env/env.js';
import { createRng } from '../../src/env/rng.js';
import { EventTimers } from '../../src/runtime/real/event-timers.js';
import { registerLocalReceiver } from '../../src/runtime/real/in-process-links.js';
import { RealNodeEnv } from '../../src/runtime/real/node-env.js';
import { RealClock } from '../../src/time/real-clock.js';
import type { Topology } from '../../src/topology/model.js';
import { decapsulate, encapsulate, readArrivalNs } from '../../src/wire/encap.js';
import { quantizeHpccHop } from '../../src/wire/int-hpcc.js';
import { Opcode } from '../../src/wire/opcodes.js';
import { FrameKind, type IntHop, type Packet } from '../../src/wire/packet.js';
import { createPacket } from '../../src/wire/packet-factory.js';
import { emulatedSizeBytes } from '../../src/wire/size.js';
import { encodeControl, readLinkSeq, TrainReader } from '../../src/wire/train.js';
import { fakeSocket, twoPortSwitch } from './real-node-rig.js';

const PEERS = ['127.0.0.2', '127.0.0.3'];

/** A switch-like node with two ports (peers a and b, 1 µs links) and a fake UDP socket. */
function rig(
  opts: {
    intMulti?: number;
    intRatesBps?: readonly number[];
    windowNs?: number;
    lateBinNs?: number;
    inProcessLinks?: boolean;
    recycleReceived?: boolean;
  } = {},
) {
  const { windowNs, ...envOpts } = opts;
  let realNs = 1e9;
  const clock = new RealClock({ timeScale: 1, epochRealNs: 1e9, source: () => realNs });
  const timers = new EventTimers(clock, { windowNs });
  const sent: { buf: Buffer; port: number; host: string }[] = [];
  const socket = fakeSocket((buf, port, host) => sent.push({ buf, port, host }));
  const me = twoPortSwitch();
  const env = new RealNodeEnv({
    node: me,
    topo: {} as Topology,
    addresses: { s1: '127.0.0.1:6081', a: `${PEERS[0]}:6081`, b: `${PEERS[1]}:6081` },
    socket,
    timers,
    overlay: 'geneve',
    rng: createRng(1),
    log: nullLogger,
    preciseNow: () => clock.now(),
    ...envOpts,
  });
  const got: string[] = [];
  const received: Packet[] = [];
  env.attach({
    receive(port: number, pkt: Packet) {
      got.push(`p${port}:psn${pkt.psn}@${timers.now()}`);
      received.push(pkt);
    },
  } as never);
  const deliver = (peer: number, psn: number, arrivalNs: number) =>
    socket.emit('message', encapsulate(dataPkt(psn), { vni: 0, arrivalNs }), {
      address: PEERS[peer],
      port: 6081,
    });
  return {
    env,
    socket,
    timers,
    sent,
    got,
    received,
    deliver,
    advance(ns: number) {
      realNs += ns;
    },
  };
}

function dataPkt(psn: number): Packet {
  const p = createPacket();
  p.kind = FrameKind.Data;
  p.opcode = Opcode.SendOnly;
  p.destQp = 17;
  p.psn = psn;
  p.payloadLen = 64;
  p.sizeBytes = emulatedSizeBytes(p);
  return p;
}

const rigs: ReturnType<typeof rig>[] = [];
afterEach(() => {
  for (const r of rigs.splice(0)) {
    r.env.close();
    r.timers.close();
  }
});

describe('recycleReceived (a host whose NIC nothing traces)', () => {
  it('hands a delivered frame to the free list once firmware returned, and only with the option', () => {
    for (const recycleReceived of [false, true]) {
      const r = rig({ recycleReceived });
      rigs.push(r);
      r.advance(1000);
      r.deliver(0, 7, 500); // stamped in the past: delivered at once
      // Firmware saw the frame whole; afterwards the next frame anyone makes is that Packet,
      // blank again, only when the env recycled it.
      expect(r.got).toEqual(['p0:psn7@500']);
      const pkt = r.received[0];
      const next = createPacket();
      expect(next === pkt).toBe(recycleReceived);
      if (recycleReceived) expect(next.psn).toBe(0);
    }
  });
});

describe('arrival stamps: receive delay lines', () => {
  it('holds early frames until their stamps and delivers them in stamp order across ports', () => {
    const r = rig();
    rigs.push(r);
    r.deliver(0, 1, 300);
    r.deliver(1, 2, 200);
    r.deliver(0, 3, 400);
    expect(r.got).toEqual([]);
    r.advance(1000);
    r.timers.runDue();
    expect(r.got).toEqual(['p1:psn2@200', 'p0:psn1@300', 'p0:psn3@400']);
  });

  it('a late frame never loses a held frame of another port that falls due before it', () => {
    const r = rig();
    rigs.push(r);
    r.deliver(0, 1, 100); // early: held on port 0
    r.advance(500); // the host stalls past its stamp
    r.deliver(1, 2, 200); // late: delivered at once, after port 0's frame at 100
    expect(r.got).toEqual(['p0:psn1@100', 'p1:psn2@200']);
  });

  it('counts the frames firmware saw after their stamp, and by how much, and no others', () => {
    const r = rig();
    rigs.push(r);
    r.deliver(0, 1, 100);
    r.deliver(0, 2, 200);
    r.advance(1000);
    r.timers.runDue(); // both on time, from the delay line
    r.deliver(1, 3, 150); // its datagram came after an event at 200 had been handled: 50 ns late
    r.deliver(1, 4, 900); // late by the real clock, but nothing later had happened: exact
    expect(r.got).toEqual(['p0:psn1@100', 'p0:psn2@200', 'p1:psn3@200', 'p1:psn4@900']);
    expect(r.env.counters).toMatchObject({ stampedFrames: 4, lateFrames: 1, maxLateNs: 50 });
    // By the time it was due: 150 ns, the first 10 µs bin.
    expect(r.env.counters.lateByBin[0]).toBe(1);
    expect(r.env.counters.lateByBin.reduce((a, b) => a + b, 0)).toBe(1);
  });

  it('bins late frames by when they were due; the last bin also takes those after it', () => {
    const r = rig({ lateBinNs: 100 });
    rigs.push(r);
    r.deliver(0, 1, 50_000);
    r.advance(60_000);
    r.timers.runDue();
    r.deliver(1, 2, 250); // due at 250: bin 2
    r.deliver(1, 3, 40_000); // due after the last bin's start (9 900): the last bin
    expect(r.env.counters.lateFrames).toBe(2);
    const bins = r.env.counters.lateByBin;
    expect(bins[2]).toBe(1);
    expect(bins[bins.length - 1]).toBe(1);
    expect(bins.reduce((a, b) => a + b, 0)).toBe(2);
  });

  it('in time windows, a frame whose stamp the clock passed but no event did waits for the batch, in stamp order', () => {
    const r = rig({ windowNs: 1000 });
    rigs.push(r);
    r.advance(1500); // the clock is past both stamps; the last edge (1000) has not been run
    r.deliver(0, 1, 1200);
    r.deliver(1, 2, 1100); // arrived second, stamped first
    expect(r.got).toEqual([]); // not at once, as without windows: the batch at 2000 runs them
    r.advance(500);
    r.timers.runDue();
    expect(r.got).toEqual(['p1:psn2@1100', 'p0:psn1@1200']);
    expect(r.env.counters).toMatchObject({ stampedFrames: 2, lateFrames: 0 });
  });

  it('in time windows, a frame stamped before an event already run is late, and counted', () => {
    const r = rig({ windowNs: 1000 });
    rigs.push(r);
    r.deliver(0, 1, 900);
    r.advance(1000);
    r.timers.runDue(); // the batch at 1000 delivers it at 900
    r.deliver(1, 2, 800); // 100 ns after an event it should have preceded
    expect(r.got).toEqual(['p0:psn1@900', 'p1:psn2@900']);
    expect(r.env.counters).toMatchObject({ stampedFrames: 2, lateFrames: 1, maxLateNs: 100 });
  });

  it('stamps what it sends with now + the link delay; the frames a link sends in one turn leave in one train', async () => {
    const r = rig();
    rigs.push(r);
    r.advance(50);
    r.env.send(1, dataPkt(9));
    r.env.send(1, dataPkt(10));
    // Held for the end of the event-loop turn, then one datagram for both frames.
    expect(r.sent).toHaveLength(0);
    await new Promise((res) => setImmediate(res));
    expect(r.sent).toHaveLength(1);
    expect(r.sent[0].host).toBe(PEERS[1]);
    expect(readArrivalNs(r.sent[0].buf)).toBe(50 + 1000);
    const reader = new TrainReader();
    expect(reader.reset(r.sent[0].buf)).toBeNull();
    expect(reader.count).toBe(2);
    expect(reader.linkSeq).toBe(0);
  });

  it('in-process links: a datagram to a node of this process skips the socket and comes on its next turn, a copy, from our address', async () => {
    const got: { msg: Buffer; from: { address: string; port: number } }[] = [];
    const undo = registerLocalReceiver(PEERS[1], 6081, {
      receiveLocal: (msg, from) => got.push({ msg, from }),
      receiveDatagram: () => {
        throw new Error('not from a bundle');
      },
    });
    try {
      const r = rig({ inProcessLinks: true });
      rigs.push(r);
      r.env.send(1, dataPkt(9));
      r.env.send(0, dataPkt(10)); // peer a is not in this process: the socket
      await new Promise((res) => setImmediate(res));
      expect(r.sent.map((x) => x.host)).toEqual([PEERS[0]]);
      expect(got).toHaveLength(1);
      expect(got[0].from).toEqual({ address: '127.0.0.1', port: 6081 });
      const reader = new TrainReader();
      expect(reader.reset(got[0].msg)).toBeNull();
      expect(reader.count).toBe(1);
      expect(r.env.counters.txDatagrams).toBe(2);
      // The send completed at once: nothing for drain() to wait on.
      await r.env.drain(50);
    } finally {
      undo();
    }
  });

  it('in-process links: what a node of this process hands over is read like a datagram from the socket', async () => {
    const r = rig({ inProcessLinks: true });
    rigs.push(r);
    const buf = encapsulate(dataPkt(3), { vni: 0, arrivalNs: 100 });
    r.env.receiveLocal(buf, { address: PEERS[0], port: 6081 });
    expect(r.env.counters.rxDatagrams).toBe(0); // not before our next turn
    await new Promise((res) => setImmediate(res));
    expect(r.env.counters.rxDatagrams).toBe(1);
    r.advance(1000);
    r.timers.runDue();
    expect(r.got).toEqual(['p0:psn3@100']);
  });
});

describe("HPCC INT in the run's INT_MULTI (RunSetup.intMulti)", () => {
  // Past the 2^27-byte wrap of INT_MULTI 1, so decoding in the wrong units cannot pass by chance.
  const hop: IntHop = {
    lineRateBps: 100e9,
    timeNs: 5000,
    txBytes: 3 * 2 ** 28 + 512 * 7,
    qlenBytes: 320 * 9,
    activeFlows: 0,
  };
  const withInt = (psn: number) => {
    const p = dataPkt(psn);
    p.int = { layout: 'hpcc', nhop: 1, hops: [{ ...hop }] };
    return p;
  };
  const want = { layout: 'hpcc', nhop: 1, hops: [quantizeHpccHop(hop, 4)] };

  it('decodes received stacks and encodes sent ones with intMulti 4', async () => {
    const r = rig({ intMulti: 4 });
    rigs.push(r);
    r.socket.emit('message', encapsulate(withInt(1), { vni: 0, arrivalNs: 300, intMulti: 4 }), {
      address: PEERS[0],
      port: 6081,
    });
    r.advance(1000);
    r.timers.runDue();
    expect(r.received.map((p) => p.int)).toEqual([want]);

    r.env.send(1, withInt(2));
    await new Promise((res) => setImmediate(res));
    const reader = new TrainReader();
    expect(reader.reset(r.sent[0].buf)).toBeNull();
    const back = decapsulate(reader.packet(0), { intMulti: 4 });
    if ('code' in back) throw new Error(back.message);
    expect(back.int).toEqual(want);
  });
});

describe("HPCC INT with the run's line-rate table (RunSetup.intRatesBps)", () => {
  // 40 Gbit/s has no code in the ns-3 table; with the run's table it travels as itself.
  const table = [10e9, 40e9, 800e9];
  const withInt = (psn: number) => {
    const p = dataPkt(psn);
    p.int = {
      layout: 'hpcc',
      nhop: 2,
      hops: [
        { lineRateBps: 40e9, timeNs: 7000, txBytes: 128 * 5, qlenBytes: 80 * 2, activeFlows: 0 },
        { lineRateBps: 800e9, timeNs: 9000, txBytes: 128 * 9, qlenBytes: 0, activeFlows: 0 },
      ],
    };
    return p;
  };

  it('decodes received stacks and encodes sent ones with the table, rates exact', async () => {
    const r = rig({ intRatesBps: table });
    rigs.push(r);
    const opts = { intRatesBps: table };
    r.socket.emit('message', encapsulate(withInt(1), { vni: 0, arrivalNs: 300, ...opts }), {
      address: PEERS[0],
      port: 6081,
    });
    r.advance(1000);
    r.timers.runDue();
    expect(r.received.map((p) => p.int)).toEqual([withInt(0).int]);

    r.env.send(1, withInt(2));
    await new Promise((res) => setImmediate(res));
    const reader = new TrainReader();
    expect(reader.reset(r.sent[0].buf)).toBeNull();
    const back = decapsulate(reader.packet(0), opts);
    if ('code' in back) throw new Error(back.message);
    expect(back.int).toEqual(withInt(0).int);
    // Read with the ns-3 table the same codes (1, 2) say 50 and 100 Gbit/s: both ends need the run's table.
    const ns3 = decapsulate(reader.packet(0));
    if ('code' in ns3) throw new Error(ns3.message);
    expect(ns3.int?.hops.map((h) => h.lineRateBps)).toEqual([50e9, 100e9]);
  });
});

describe('overlay retransmission: only the gap, and no resend storm', () => {
  const emitFrom = (r: ReturnType<typeof rig>, peer: number, buf: Buffer) =>
    r.socket.emit('message', buf, { address: PEERS[peer], port: 6081 });
  const seqd = (psn: number, linkSeq: number) =>
    encapsulate(dataPkt(psn), { vni: 0, arrivalNs: 10, linkSeq });
  const nackOf = (buf: Buffer) => {
    const reader = new TrainReader();
    return reader.reset(buf) === null && reader.nackSeq !== null ? [reader.nackSeq, reader.nackCount] : null;
  };

  it('a receiver holds what follows a gap and asks for the gap alone, again until it is filled', async () => {
    const r = rig();
    rigs.push(r);
    for (const seq of [0, 1, 5, 6]) emitFrom(r, 0, seqd(seq, seq));
    const nacks = r.sent.map((s) => nackOf(s.buf)).filter((n) => n !== null);
    // Sequences 2, 3 and 4 are missing; 5 and 6 wait for them.
    expect(nacks).toEqual([[2, 3]]);
    expect(r.env.counters.outOfOrderDatagrams).toBe(2);
    // Nothing more comes after the gap (the end of a burst): the NACK is repeated all the same.
    await new Promise((res) => setTimeout(res, 30));
    expect(r.sent.map((s) => nackOf(s.buf)).filter((n) => n !== null).length).toBeGreaterThan(1);
    for (const seq of [2, 3, 4]) emitFrom(r, 0, seqd(seq, seq));
    r.advance(1000);
    r.timers.runDue();
    expect(r.got.map((g) => g.split('@')[0])).toEqual([0, 1, 2, 3, 4, 5, 6].map((p) => `p0:psn${p}`));
  });

  it('a wallclock receiver acknowledges what arrived, and its sender stops keeping it', async () => {
    const r = rig();
    rigs.push(r);
    for (const seq of [0, 1, 2]) emitFrom(r, 0, seqd(seq, seq));
    await new Promise((res) => setTimeout(res, 60));
    const ackOf = (buf: Buffer) => {
      const reader = new TrainReader();
      return reader.reset(buf) === null ? reader.ackSeq : null;
    };
    const acks = r.sent.map((x) => ackOf(x.buf)).filter((a) => a !== null);
    // One ack of the next expected sequence, then none while nothing new arrives.
    expect(acks).toEqual([3]);
  });

  it('a sender resends the gap a NACK names, and holds a repeat of the same NACK', async () => {
    const r = rig();
    rigs.push(r);
    for (let psn = 0; psn < 10; psn++) {
      r.env.send(1, dataPkt(psn));
      await new Promise((res) => setImmediate(res)); // one datagram per turn: sequences 0..9
    }
    expect(r.sent.map((s) => readLinkSeq(s.buf))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    r.sent.length = 0;
    const nack = encodeControl({ vni: 0, promiseNs: Number.NEGATIVE_INFINITY, nackSeq: 3, nackCount: 2 });
    emitFrom(r, 1, nack);
    expect(r.sent.map((s) => readLinkSeq(s.buf))).toEqual([3, 4]);
    // The receiver is behind and asks again before the resend reached it: not answered again.
    emitFrom(r, 1, nack);
    expect(r.sent).toHaveLength(2);
    expect(r.env.counters).toMatchObject({ resentDatagrams: 2, heldNacks: 1 });
    // The 4-byte form asks for everything from the gap on.
    emitFrom(r, 1, encodeControl({ vni: 0, promiseNs: Number.NEGATIVE_INFINITY, nackSeq: 7 }));
    expect(r.sent.slice(2).map((s) => readLinkSeq(s.buf))).toEqual([7, 8, 9]);
  });
});
