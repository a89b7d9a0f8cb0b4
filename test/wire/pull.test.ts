/**
 * The UET pull frame and the pull target (docs/wire.md §1.6a and §3 option 0x17): byte layout,
 * round trips through the standard frame and the Geneve encapsulation, what decoders refuse, the
 * emulated sizes, and the serial arithmetic of the 32-bit credit counters.
 */
import { describe, expect, it } from 'vitest';
import { decapsulate, encapsulate } from '../../src/wire/encap.js';
import { decodeFrame, encodeFrame } from '../../src/wire/frame.js';
import { Opcode } from '../../src/wire/opcodes.js';
import { Ecn, FrameKind, type Packet } from '../../src/wire/packet.js';
import { createExt, createPacket } from '../../src/wire/packet-factory.js';
import { decodePullBody, unwrapQuanta } from '../../src/wire/pull.js';
import { emulatedSizeBytes } from '../../src/wire/size.js';
import { OptionType } from '../../src/wire/telemetry.js';

function pullFrame(quanta: number, slow: boolean): Packet {
  const p = createPacket();
  p.kind = FrameKind.Pull;
  p.opcode = Opcode.UetPull;
  p.dstMac = 0x02000a000002;
  p.srcMac = 0x02000a000001;
  p.srcIp = 0x0a000002;
  p.dstIp = 0x0a000001;
  p.dscp = 26;
  p.ecn = Ecn.Ect0;
  p.ttl = 64;
  p.srcPort = 0xc07f;
  p.destQp = 0x000123;
  p.prio = 3;
  p.ext = createExt();
  p.ext.pull = { quanta, slow };
  p.sizeBytes = emulatedSizeBytes(p);
  return p;
}

const BTH = 14 + 20 + 8;

describe('UET pull frame (opcode 0xC0)', () => {
  it('lays out its body after the BTH: credit u32, flags u8, 11 zero bytes; 78 bytes like a CNP', () => {
    const bytes = encodeFrame(pullFrame(0x01020304, true));
    expect(bytes.length).toBe(BTH + 12 + 16 + 4);
    expect(bytes[BTH]).toBe(0xc0);
    expect([...bytes.subarray(BTH + 12, BTH + 17)]).toEqual([1, 2, 3, 4, 1]);
    expect([...bytes.subarray(BTH + 17, BTH + 28)]).toEqual(new Array(11).fill(0));
    expect(emulatedSizeBytes(pullFrame(0, false))).toBe(78);
  });

  it('round-trips through the standard frame and the Geneve encapsulation', () => {
    for (const [q, slow] of [
      [0, false],
      [0xffffffff, true],
      [100_000_063, false],
    ] as const) {
      const sent = pullFrame(q, slow);
      const got = decodeFrame(encodeFrame(sent));
      if ('code' in got) throw new Error(got.message);
      expect(got.kind).toBe(FrameKind.Pull);
      expect(got.ext?.pull).toEqual({ quanta: q, slow });
      expect(got.destQp).toBe(0x000123);
      expect(got.sizeBytes).toBe(78);
      const viaGeneve = decapsulate(encapsulate(sent, { vni: 1 }));
      if ('code' in viaGeneve) throw new Error(viaGeneve.message);
      expect(viaGeneve.ext?.pull).toEqual({ quanta: q, slow });
    }
  });

  it('refuses reserved flags and bytes, a wrong length, and an encoder without a body', () => {
    const bytes = encodeFrame(pullFrame(7, false));
    const flags = Buffer.from(bytes);
    flags[BTH + 16] = 2;
    expect(decodePullBody(flags, BTH + 12)).toMatchObject({ code: 'bad-field' });
    const reserved = Buffer.from(bytes);
    reserved[BTH + 27] = 1;
    expect(decodePullBody(reserved, BTH + 12)).toMatchObject({ code: 'bad-field' });
    // The ICRC covers the body: the frame decoder reports the corruption before the body.
    expect(decodeFrame(reserved, { verifyIcrc: false })).toMatchObject({ code: 'bad-field' });
    const p = pullFrame(7, false);
    p.ext!.pull = null;
    expect(() => encodeFrame(p)).toThrow(/Pull needs ext.pull/);
    const q = pullFrame(2 ** 32, false);
    expect(() => encodeFrame(q)).toThrow(/not a u32/);
  });
});

describe('pull target (option 0x17)', () => {
  it('rides on a data frame and counts 4 bytes of its emulated size', () => {
    const d = createPacket();
    d.kind = FrameKind.Data;
    d.opcode = Opcode.SendMiddle;
    d.payloadLen = 4086;
    d.dscp = 26;
    d.prio = 3;
    expect(emulatedSizeBytes(d)).toBe(4150);
    d.ext = createExt();
    d.ext.pullTarget = 0xdeadbeef;
    expect(emulatedSizeBytes(d)).toBe(4154);
    const got = decapsulate(encapsulate(d, { vni: 1 }));
    if ('code' in got) throw new Error(got.message);
    expect(got.ext?.pullTarget).toBe(0xdeadbeef);
    expect(OptionType.PullTarget).toBe(0x17);
  });

  it('is refused on anything but a data frame', () => {
    const a = pullFrame(1, false);
    a.ext!.pullTarget = 5;
    expect(decapsulate(encapsulate(a, { vni: 1 }))).toMatchObject({ code: 'bad-option' });
  });
});

describe('serial arithmetic of the credit counters', () => {
  it('unwraps a 32-bit value to the one nearest the reference', () => {
    expect(unwrapQuanta(10, 0)).toBe(10);
    expect(unwrapQuanta(0xffff_fff0, 0)).toBe(-16);
    expect(unwrapQuanta(5, 2 ** 32 - 3)).toBe(2 ** 32 + 5);
    expect(unwrapQuanta((3 * 2 ** 32 + 77) % 2 ** 32, 3 * 2 ** 32 + 50)).toBe(3 * 2 ** 32 + 77);
    expect(unwrapQuanta(0x7fff_ffff, 0)).toBe(0x7fff_ffff);
  });
});
