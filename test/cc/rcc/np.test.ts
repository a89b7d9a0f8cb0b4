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
import { driveNp } from '../../../src/cc/testing/index.js';
import type { FlowInfo } from '../../../src/cc/types.js';
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

/** RCC's NP on the one harness (src/cc/testing): QPs 0x100… on one receiver NIC. */
function rig() {
  return driveNp(rccNp, params, { rng: createRng(1), flow: (qpn) => ({ ...flow, qpn }) });
}
type Rig = ReturnType<typeof rig>;

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

function ackWindow(d: Rig, qpn: number): number {
  const a = d.decorateAck(qpn);
  expect(a.ext!.tsEchoNs).toBeNull();
  return a.ext!.windowBytes!;
}

/** Data of `opcode` sent at `txTsNs` arriving on QP `qpn` now. */
function rx(d: Rig, qpn: number, opcode: number, txTsNs: number): void {
  d.data(qpn, (p) => Object.assign(p, data(opcode, txTsNs)));
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
    const d = rig();
    const [a, b, c] = [0x100, 0x101, 0x102];
    // BDP of payload: 100e9·4180/8e9·eff = 52 250·0.934579 = 48 831.8 B
    const bdp = 52_250 * EFF;
    d.at(3000);
    rx(d, a, Opcode.WriteFirst, 0);
    expect(d.nic().n).toBe(1);
    expect(ackWindow(d, a)).toBe(Math.round(bdp));
    d.at(3100);
    rx(d, b, Opcode.SendFirst, 100);
    expect(d.nic().n).toBe(2);
    expect(ackWindow(d, b)).toBe(Math.round(bdp / 2));
    d.at(3200);
    rx(d, c, Opcode.WriteOnly, 200);
    expect(d.nic().n).toBe(2);
    expect(ackWindow(d, c)).toBe(Math.round(bdp / 2));
    d.at(3300);
    rx(d, a, Opcode.WriteLast, 300);
    expect(d.nic().n).toBe(1);
    expect(d.inspect(a).rccMessages).toBe(1);
    d.at(3400);
    rx(d, b, Opcode.SendMiddle, 400);
    expect(ackWindow(d, b)).toBe(Math.round(bdp));
    expect(d.timerAt(b, IDLE_TIMER)).toBeDefined();
  });

  it('enters PID after n delayed samples while the last hop is not full, and logs the entry time', () => {
    const d = rig();
    const q = 0x100;
    // Base OWD 2171.2 ns, threshold ×1.2 = 2605.4. Samples 3000 ns apart (≈ 3 % of line rate).
    for (let k = 0; k < 3; k++) {
      d.at(10_000 + 3000 * k);
      rx(d, q, k === 0 ? Opcode.SendFirst : Opcode.SendMiddle, d.now() - 4000);
    }
    const s = d.inspect(q);
    expect(s.rccInPid).toBe(1);
    expect(s.rccPidEntryNs).toBe(16_000);
    expect(s.rccClass).toBe(2);
    expect(d.timerAt(q, PID_TIMER)).toBe(16_000 + 4180);
    expect(d.counts.get('rccPidEntries')).toBe(1);
    // The timer step with a fresh sample (arriving in the timer's nanosecond, before it):
    // E = 4000 − 2171.2·1.1 = 1611.7 ns → U > 0, window shrinks.
    let before = 0;
    d.step(() => {
      expect(d.now()).toBe(20_180);
      rx(d, q, Opcode.SendMiddle, d.now() - 4000);
      before = d.inspect(q).rccCwndBytes;
    });
    const after = d.inspect(q);
    expect(after.rccU).toBeCloseTo(1e4 * 1611.68e-9 + 1e5 * 1611.68e-9, 6);
    expect(after.rccPidSteps).toBe(1);
    d.at(20_200);
    rx(d, q, Opcode.SendMiddle, d.now() - 4000);
    expect(d.inspect(q).rccCwndBytes).toBeLessThan(before);
    // The message ends: the log keeps its class and entry time; the next message starts clean.
    d.at(21_000);
    rx(d, q, Opcode.SendLast, d.now() - 4000);
    const end = d.inspect(q);
    expect(end.rccInPid).toBe(0);
    expect(end.rccLastMsgClass).toBe(2);
    expect(end.rccLastMsgPidEntryNs).toBe(16_000);
    expect(end.rccPidMessages).toBe(1);
    expect(d.timerAt(q, PID_TIMER)).toBeUndefined();
  });

  it('a silent message leaves N after idle_timeout', () => {
    const d = rig();
    const q = 0x100;
    d.at(1000);
    rx(d, q, Opcode.SendFirst, 0);
    // 10 × T_fair = 41 800 ns after the last packet
    expect(d.timerAt(q, IDLE_TIMER)).toBe(1000 + 41_800);
    d.at(20_000);
    rx(d, q, Opcode.SendMiddle, 18_000);
    d.at(42_800); // the idle timer fires
    expect(d.nic().n).toBe(1); // re-armed: silent only since 20 000
    expect(d.timerAt(q, IDLE_TIMER)).toBe(20_000 + 41_800);
    d.at(61_800);
    expect(d.nic().n).toBe(0);
    expect(d.counts.get('rccIdleTimeouts')).toBe(1);
  });

  it('a flow behind a deep queue gets longer: the timeout counts the queueing its last packet met', () => {
    const d = rig();
    const q = 0x100;
    // OWD 52 171.2 ns = base 2171.2 + 50 µs of queue: 10 × (4180 + 50 000) = 541 800 ns
    d.at(60_000);
    rx(d, q, Opcode.SendFirst, d.now() - 52_171.2);
    // armed when the message began, before its first sample: 10 × T
    expect(d.timerAt(q, IDLE_TIMER)).toBe(60_000 + 41_800);
    d.at(101_800); // the idle timer fires
    expect(d.nic().n).toBe(1);
    expect(d.timerAt(q, IDLE_TIMER)).toBeCloseTo(60_000 + 541_800, 6);
  });
});
