/** resetPacket: a Packet made blank again equals a fresh one, field order included. */
import { describe, expect, it } from 'vitest';
import { Ecn, FrameKind } from '../../src/wire/packet.js';
import { createExt, createPacket, resetPacket } from '../../src/wire/packet-factory.js';

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
