/**
 * Dolce-RC+ (paper §VI-A; docs/algorithms/dolce-rc.md "Dolce-RC+"): AC6(a)'s reward, the arm rates, the
 * sender's per-message stamps and reward bookkeeping, and the receiver's per-message echo.
 */
import { describe, expect, it } from 'vitest';
import { dolceRcPlusNp } from '../../../src/cc/dolce-rc-plus/np.js';
import type { DolceRcPlusParams } from '../../../src/cc/dolce-rc-plus/params.js';
import { armRatesBps, idealMctNs, messageReward } from '../../../src/cc/dolce-rc-plus/reward.js';
import { type DolceRcPlusState, dolceRcPlusRp } from '../../../src/cc/dolce-rc-plus/rp.js';
import { resolveParams } from '../../../src/cc/registry.js';
import { driveNp } from '../../../src/cc/testing/index.js';
import { Opcode } from '../../../src/wire/opcodes.js';
import { Ecn, FrameKind, type Packet } from '../../../src/wire/packet.js';
import { createExt, createPacket } from '../../../src/wire/packet-factory.js';
import { flowInfo, G, rpRig, US } from '../dolce-rc/rig.js';

const params = (o: Record<string, unknown> = {}) => resolveParams('dolce-rc-plus', o) as DolceRcPlusParams;

describe('Dolce-RC+ reward (AC6 a) and arms', () => {
  it('8 KB at 200 Gbit/s, baseRTT 6 µs, MCT 10 µs, ECN 0.25, arm 3: X = 0.632768 × 0.75³ = 0.266949', () => {
    // ideal = 8192 · 8 / 200e9 s + 6 µs = 327.68 + 6000 ns
    const ideal = idealMctNs(8192, 200 * G, 6000);
    expect(ideal).toBeCloseTo(6327.68, 9);
    expect(Math.abs(messageReward(ideal, 10_000, 2, 8, 3) - 0.266949)).toBeLessThanOrEqual(1e-6);
  });

  it('arm 0 ignores ECN, the MCT factor is capped at 1, X stays in [0, 1]', () => {
    expect(messageReward(1000, 2000, 8, 8, 0)).toBe(0.5);
    expect(messageReward(1000, 2000, 8, 8, 1)).toBe(0);
    expect(messageReward(1000, 900, 0, 8, 7)).toBe(1);
    expect(messageReward(1000, 0, 0, 0, 2)).toBe(1);
  });

  it('r_i = C / 2^(K−1−i): C/128 … C for K = 8', () => {
    expect(armRatesBps(8, 200 * G)).toEqual([1.5625, 3.125, 6.25, 12.5, 25, 50, 100, 200].map((x) => x * G));
  });
});

function dataPkt(psn: number, opcode: number): (pkt: Packet) => void {
  return (pkt) => {
    pkt.kind = FrameKind.Data;
    pkt.psn = psn;
    pkt.opcode = opcode;
  };
}

describe('Dolce-RC+ sender', () => {
  it('paces each message at its arm, stamps every packet, rewards the echoing ACK once', () => {
    const p = params();
    const r = rpRig(dolceRcPlusRp, p, flowInfo(200 * G, 6000));
    const s = r.s as DolceRcPlusState;
    expect(r.rate()).toBe(1.5625 * G); // arm 0 first (forced slot t = 0)
    const send = (psn: number, opcode: number) => {
      const pkt = createPacket();
      dataPkt(psn, opcode)(pkt);
      dolceRcPlusRp.decorateData!(s, pkt, p, r.io);
      return pkt.ext?.fields;
    };
    r.at(1 * US);
    const f0 = send(0, Opcode.SendFirst);
    const f1 = send(1, Opcode.SendLast);
    expect(f0).toEqual({ mabIter: 0, arm: 0, firstTxNs: 1 * US, msgId: 0 });
    expect(f1).toEqual(f0);
    r.at(2 * US);
    // pipelined: the next message starts before the first is ACKed, still with arm 0
    expect(send(2, Opcode.SendOnly)).toEqual({ mabIter: 0, arm: 0, firstTxNs: 2 * US, msgId: 1 });
    // a resent packet of message 0 keeps message 0's stamp
    expect(send(1, Opcode.SendLast)).toEqual(f0);
    // ACK of message 0 at 21 µs: MCT 20 µs, ideal 2000·8/200e9 + 6 µs = 6.08 µs, no marks
    r.at(21 * US);
    const ack = (fields: Record<string, number>) =>
      r.ev({
        type: 'ack',
        pkt: (() => {
          const a = createPacket();
          a.kind = FrameKind.Ack;
          a.psn = 1;
          a.ext = createExt();
          a.ext.fields = fields;
          return a;
        })(),
        ackedBytes: 2000,
        rttNs: null,
        ecnEcho: false,
      });
    const echo = { mabIter: 0, arm: 0, firstTxNs: 1 * US, msgId: 0, msgBytes: 2000, ceCount: 0, pktCount: 2 };
    ack(echo);
    expect(s.mab.t).toBe(1);
    expect(s.lastMctNs).toBe(20 * US);
    expect(s.lastReward).toBeCloseTo(6080 / 20_000, 12);
    expect(s.curArm).toBe(1); // forced slot t = 1
    ack(echo); // duplicate: ignored
    expect(s.mab.t).toBe(1);
    r.at(22 * US);
    send(3, Opcode.SendOnly);
    expect(r.rate()).toBe(3.125 * G);
    expect(r.log.at(-1)!.why).toBe('msg:arm1');
  });

  it('strictMessages holds the next message until the ACK (1-byte window)', () => {
    const p = params({ strictMessages: true });
    const r = rpRig(dolceRcPlusRp, p, flowInfo(200 * G));
    r.tx(1062, dataPkt(0, Opcode.SendFirst));
    expect(r.window()).toBeNull();
    r.tx(1062, dataPkt(1, Opcode.SendLast));
    expect(r.window()).toBe(1);
    const a = createPacket();
    a.kind = FrameKind.Ack;
    a.ext = createExt();
    a.ext.fields = { mabIter: 0, arm: 0, firstTxNs: 0, msgId: 0, msgBytes: 2000, ceCount: 0, pktCount: 2 };
    r.ev({ type: 'ack', pkt: a, ackedBytes: 2000, rttNs: null, ecnEcho: false });
    expect(r.window()).toBeNull();
  });
});

describe('Dolce-RC+ receiver', () => {
  it('counts packets, bytes and CE per message and echoes them on the last packet’s ACK only', () => {
    const p = params();
    const d = driveNp(dolceRcPlusNp, p, { flow: () => flowInfo(200 * G) });
    const stamp = { mabIter: 4, arm: 6, firstTxNs: 123, msgId: 9 };
    const rx = (psn: number, opcode: number, ce: boolean, payload: number) =>
      d.data(1, (pkt) => {
        dataPkt(psn, opcode)(pkt);
        pkt.ecn = ce ? Ecn.Ce : Ecn.Ect0;
        pkt.payloadLen = payload;
        pkt.ext = createExt();
        pkt.ext.fields = { ...stamp };
      });
    const ackFor = (psn: number) =>
      d.decorateAck(1, (a) => {
        a.psn = psn;
      }).ext?.fields ?? null;
    rx(10, Opcode.WriteFirst, false, 1000);
    expect(ackFor(10)).toBeNull();
    rx(11, Opcode.WriteMiddle, true, 1000);
    rx(12, Opcode.WriteLast, true, 192);
    expect(ackFor(11)).toBeNull(); // not the last packet's ACK
    expect(ackFor(12)).toEqual({ ...stamp, msgBytes: 2192, ceCount: 2, pktCount: 3 });
    expect(ackFor(12)).toBeNull(); // echoed once
  });
});
