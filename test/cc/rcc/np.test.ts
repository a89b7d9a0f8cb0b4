import { describe, expect, it } from 'vitest';
import {
  configuredBaseOwdNs,
  IDLE_TIMER,
  PID_TIMER,
  payloadEfficiency,
  rccNp,
} from '../../../src/cc/rcc/np.js';
import type { RccParams } from '../../../src/cc/rcc/params.js';
import { resolveParams } from '../../../src/cc/registry.js';
import type { FlowInfo, NpIo } from '../../../src/cc/types.js';
import { createRng } from '../../../src/env/rng.js';
import { Opcode } from '../../../src/wire/opcodes.js';
import { FrameKind, type Packet } from '../../../src/wire/packet.js';
import { createExt, createPacket } from '../../../src/wire/packet-factory.js';

// 100 Gbit/s, 2 links of 1 µs: prop 2000 ns; a 1070 B frame takes 85.6 ns per link.
const flow: FlowInfo = {
  qpn: 0x100,
  remoteQpn: 0x200,
  lineRateBps: 100e9,
  mtuBytes: 1000,
  baseRttNs: 4180,
  bottleneckRateBps: 100e9,
  hops: 1,
  linkRatesBps: [100e9, 100e9],
  propDelayNs: 2000,
};
const params = resolveParams('rcc', {}) as RccParams;
const EFF = 1000 / 1070;

class FakeIo implements NpIo {
  t = 0;
  rng = createRng(1);
  timers = new Map<number, number>();
  counts = new Map<string, number>();
  now = () => this.t;
  sendCnp() {}
  requestAck() {}
  setTimer(slot: number, at: number) {
    this.timers.set(slot, at);
  }
  cancelTimer(slot: number) {
    this.timers.delete(slot);
  }
  count(name: string, d = 1) {
    this.counts.set(name, (this.counts.get(name) ?? 0) + d);
  }
}

function data(opcode: number, txTsNs: number, payload = 1000): Packet {
  const p = createPacket();
  p.kind = FrameKind.Data;
  p.opcode = opcode;
  p.payloadLen = payload;
  p.sizeBytes = payload + 70;
  p.ext = createExt();
  p.ext.txTsNs = txTsNs;
  return p;
}

function ackWindow(q: unknown, nic: unknown, io: FakeIo): number {
  const a = createPacket();
  a.kind = FrameKind.Ack;
  rccNp.decorateAck!(q as never, nic as never, a, params, io);
  expect(a.ext!.tsEchoNs).toBeNull();
  return a.ext!.windowBytes!;
}

describe('RCC receiver (NP)', () => {
  it('configured base OWD = propagation + the frame on every link', () => {
    // 2000 + 2 × 1070·8/100 = 2000 + 171.2
    expect(configuredBaseOwdNs(flow)).toBeCloseTo(2171.2, 9);
    // Without per-link data: from the RTT (equal rates): prop = (4180 − 2·1128·0.08)/2 = 1999.76
    const { linkRatesBps: _, propDelayNs: __, ...bare } = flow;
    expect(configuredBaseOwdNs(bare)).toBeCloseTo(1999.76 + 171.2, 6);
    expect(payloadEfficiency(1000)).toBeCloseTo(EFF, 12);
  });

  it('counts messages from FIRST/LAST opcodes; ONLY messages leave N alone; ACKs carry C·T·eff/N', () => {
    const io = new FakeIo();
    const nic = rccNp.initNic(params, io as never);
    const a = rccNp.initQp(flow, params, nic);
    const b = rccNp.initQp({ ...flow, qpn: 0x101 }, params, nic);
    const c = rccNp.initQp({ ...flow, qpn: 0x102 }, params, nic);
    // BDP of payload: 100e9·4180/8e9·eff = 52 250·0.934579 = 48 831.8 B
    const bdp = 52_250 * EFF;
    io.t = 3000;
    rccNp.onData(a, nic, data(Opcode.WriteFirst, 0), params, io);
    expect(nic.n).toBe(1);
    expect(ackWindow(a, nic, io)).toBe(Math.round(bdp));
    io.t = 3100;
    rccNp.onData(b, nic, data(Opcode.SendFirst, 100), params, io);
    expect(nic.n).toBe(2);
    expect(ackWindow(b, nic, io)).toBe(Math.round(bdp / 2));
    io.t = 3200;
    rccNp.onData(c, nic, data(Opcode.WriteOnly, 200), params, io);
    expect(nic.n).toBe(2);
    expect(ackWindow(c, nic, io)).toBe(Math.round(bdp / 2));
    io.t = 3300;
    rccNp.onData(a, nic, data(Opcode.WriteLast, 300), params, io);
    expect(nic.n).toBe(1);
    expect(rccNp.inspect!(a, nic, params, io.t).rccMessages).toBe(1);
    io.t = 3400;
    rccNp.onData(b, nic, data(Opcode.SendMiddle, 400), params, io);
    expect(ackWindow(b, nic, io)).toBe(Math.round(bdp));
    expect(io.timers.has(IDLE_TIMER)).toBe(true);
  });

  it('enters PID after n delayed samples while the last hop is not full, and logs the entry time', () => {
    const io = new FakeIo();
    const nic = rccNp.initNic(params, io as never);
    const q = rccNp.initQp(flow, params, nic);
    // Base OWD 2171.2 ns, threshold ×1.2 = 2605.4. Samples 3000 ns apart (≈ 3 % of line rate).
    for (let k = 0; k < 3; k++) {
      io.t = 10_000 + 3000 * k;
      rccNp.onData(q, nic, data(k === 0 ? Opcode.SendFirst : Opcode.SendMiddle, io.t - 4000), params, io);
    }
    const s = rccNp.inspect!(q, nic, params, io.t);
    expect(s.rccInPid).toBe(1);
    expect(s.rccPidEntryNs).toBe(16_000);
    expect(s.rccClass).toBe(2);
    expect(io.timers.get(PID_TIMER)).toBe(16_000 + 4180);
    expect(io.counts.get('rccPidEntries')).toBe(1);
    // The timer step with a fresh sample: E = 4000 − 2171.2·1.1 = 1611.7 ns → U > 0, window shrinks.
    io.t = 20_180;
    rccNp.onData(q, nic, data(Opcode.SendMiddle, io.t - 4000), params, io);
    const before = rccNp.inspect!(q, nic, params, io.t).rccCwndBytes;
    rccNp.onTimer!(q, nic, PID_TIMER, params, io);
    const after = rccNp.inspect!(q, nic, params, io.t);
    expect(after.rccU).toBeCloseTo(1e4 * 1611.68e-9 + 1e5 * 1611.68e-9, 6);
    expect(after.rccPidSteps).toBe(1);
    io.t = 20_200;
    rccNp.onData(q, nic, data(Opcode.SendMiddle, io.t - 4000), params, io);
    expect(rccNp.inspect!(q, nic, params, io.t).rccCwndBytes).toBeLessThan(before);
    // The message ends: the log keeps its class and entry time; the next message starts clean.
    io.t = 21_000;
    rccNp.onData(q, nic, data(Opcode.SendLast, io.t - 4000), params, io);
    const end = rccNp.inspect!(q, nic, params, io.t);
    expect(end.rccInPid).toBe(0);
    expect(end.rccLastMsgClass).toBe(2);
    expect(end.rccLastMsgPidEntryNs).toBe(16_000);
    expect(end.rccPidMessages).toBe(1);
    expect(io.timers.has(PID_TIMER)).toBe(false);
  });

  it('a silent message leaves N after idle_timeout', () => {
    const io = new FakeIo();
    const nic = rccNp.initNic(params, io as never);
    const q = rccNp.initQp(flow, params, nic);
    io.t = 1000;
    rccNp.onData(q, nic, data(Opcode.SendFirst, 0), params, io);
    // 10 × T_fair = 41 800 ns after the last packet
    expect(io.timers.get(IDLE_TIMER)).toBe(1000 + 41_800);
    io.t = 20_000;
    rccNp.onData(q, nic, data(Opcode.SendMiddle, 18_000), params, io);
    io.t = 42_800;
    rccNp.onTimer!(q, nic, IDLE_TIMER, params, io);
    expect(nic.n).toBe(1); // re-armed: silent only since 20 000
    expect(io.timers.get(IDLE_TIMER)).toBe(20_000 + 41_800);
    io.t = 61_800;
    rccNp.onTimer!(q, nic, IDLE_TIMER, params, io);
    expect(nic.n).toBe(0);
    expect(io.counts.get('rccIdleTimeouts')).toBe(1);
  });

  it('a flow behind a deep queue gets longer: the timeout counts the queueing its last packet met', () => {
    const io = new FakeIo();
    const nic = rccNp.initNic(params, io as never);
    const q = rccNp.initQp(flow, params, nic);
    // OWD 52 171.2 ns = base 2171.2 + 50 µs of queue: 10 × (4180 + 50 000) = 541 800 ns
    io.t = 60_000;
    rccNp.onData(q, nic, data(Opcode.SendFirst, io.t - 52_171.2), params, io);
    // armed when the message began, before its first sample: 10 × T
    expect(io.timers.get(IDLE_TIMER)).toBe(60_000 + 41_800);
    io.t = 101_800;
    rccNp.onTimer!(q, nic, IDLE_TIMER, params, io);
    expect(nic.n).toBe(1);
    expect(io.timers.get(IDLE_TIMER)).toBeCloseTo(60_000 + 541_800, 6);
  });
});
