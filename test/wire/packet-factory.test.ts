/** resetPacket and the free list of src/wire/packet-factory.ts: a reused Packet equals a fresh one. */
import { describe, expect, it } from 'vitest';
import { Ecn, FrameKind } from '../../src/wire/packet.js';
import {
  createExt,
  createPacket,
  recycledFrameCount,
  recyclePacket,
  resetPacket,
} from '../../src/wire/packet-factory.js';

describe('resetPacket', () => {
  it('makes a used Packet equal to createPacket(), with the same keys in the same order', () => {
    const p = createPacket();
    p.kind = FrameKind.Cnp;
    p.sizeBytes = 1078;
    p.ttl = 3;
    p.ecn = Ecn.Ce;
    p.pkey = 7;
    p.ext = createExt();
    p.wire = new Uint8Array(60);
    p.payload = new Uint8Array(4);
    const reset = resetPacket(p);
    expect(reset).toBe(p);
    expect(p).toEqual(createPacket());
    expect(Object.keys(p)).toEqual(Object.keys(createPacket()));
  });
});

describe('packet free list', () => {
  it('a recycled frame comes back blank, field for field as a new one, in the same key order', () => {
    const fresh = createPacket();
    const used = createPacket();
    Object.assign(used, {
      kind: FrameKind.Ack,
      sizeBytes: 1062,
      prio: 3,
      ttl: 61,
      dstIp: 0x0a000002,
      srcIp: 0x0a000001,
      srcPort: 49152,
      int: { layout: 'hpcc', nhop: 1, hops: [] },
      ecn: Ecn.Ce,
      srcMac: 0x020000000001,
      dstMac: 0x020000000002,
      destQp: 17,
      opcode: 0x11,
      psn: 99,
      payloadLen: 1000,
      ackReq: true,
      aeth: { syndrome: 0x1f, msn: 4 },
      ext: createExt(),
      becn: true,
      id: 7,
      ipId: 8,
      dscp: 26,
      solicitedEvent: true,
      migReq: true,
      pkey: 1,
      fecn: true,
      bthResv7: 5,
      reth: { vaHi: 0, vaLo: 0, rkey: 1, dmaLength: 2 },
      immDt: 3,
      payload: new Uint8Array(4),
      cnm: null,
      pfc: { classEnable: 1, quanta: [1, 0, 0, 0, 0, 0, 0, 0] },
      wire: new Uint8Array(2),
    });
    const before = recycledFrameCount();
    recyclePacket(used);
    expect(recycledFrameCount()).toBe(before + 1);
    const again = createPacket();
    expect(again).toBe(used);
    expect(recycledFrameCount()).toBe(before);
    expect(again).toStrictEqual(fresh);
    expect(Object.keys(again)).toEqual(Object.keys(fresh));
  });

  it('an empty free list makes new frames', () => {
    while (recycledFrameCount() > 0) createPacket();
    const a = createPacket();
    const b = createPacket();
    expect(a).not.toBe(b);
  });
});
