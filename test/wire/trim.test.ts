/**
 * The trimmed frame on the real wire (docs/wire.md §3, option 0x30): the inner frame is the
 * header-only RoCEv2 frame with a valid ICRC, the option carries the hop, the last-hop flag and
 * the payload length that was cut; decapsulation gives back the Packet the switch made, and a
 * malformed option is a typed error.
 */
import { describe, expect, it } from 'vitest';
import { toHex } from '../../src/wire/bytes.js';
import { decapsulate, encapsulate } from '../../src/wire/encap.js';
import { isDecodeError, WireEncodeError } from '../../src/wire/errors.js';
import { decodeFrame, encodeFrame } from '../../src/wire/frame.js';
import { GENEVE_HEADER_BYTES } from '../../src/wire/geneve.js';
import { Opcode } from '../../src/wire/opcodes.js';
import { Ecn, FrameKind, type Packet } from '../../src/wire/packet.js';
import { createPacket } from '../../src/wire/packet-factory.js';
import { emulatedSizeBytes } from '../../src/wire/size.js';
import { ROCELAB_OPTION_CLASS } from '../../src/wire/telemetry.js';
import { TRIMMED_FRAME_BYTES, trimToHeader } from '../../src/wire/trim.js';

/** A 1000-byte WRITE Middle as a NIC sends it, then trimmed at the third switch (TTL 61). */
function trimmed(lastHop = true): Packet {
  const p = Object.assign(createPacket(), {
    kind: FrameKind.Data,
    opcode: Opcode.WriteMiddle,
    srcIp: 0xc6120001,
    dstIp: 0xc6120002,
    srcPort: 0xc123,
    destQp: 0x11,
    psn: 4242,
    dscp: 26,
    prio: 3,
    ecn: Ecn.Ect0,
    payloadLen: 1000,
    payload: new Uint8Array(1000).fill(7),
  });
  p.sizeBytes = emulatedSizeBytes(p);
  p.ttl = 61;
  trimToHeader(p, lastHop);
  return p;
}

describe('trimmed frame on the wire', () => {
  it('is the header-only frame plus option 0x30, and decapsulates to the Packet the switch made', () => {
    const p = trimmed();
    expect(p.sizeBytes).toBe(TRIMMED_FRAME_BYTES);
    expect(p.trimHop).toBe(3);
    const dgram = encapsulate(p, { vni: 7 });
    // Geneve header, then the one option: class 0xFFF0, type 0x30, 1 word: hop 3, flags 1, length 1000.
    const opt = dgram.subarray(GENEVE_HEADER_BYTES, GENEVE_HEADER_BYTES + 8);
    expect(toHex(opt)).toBe(`${ROCELAB_OPTION_CLASS.toString(16)}300103${'01'}03e8`);
    // The inner frame: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4, no payload, valid ICRC.
    const inner = dgram.subarray(GENEVE_HEADER_BYTES + 8);
    expect(inner.length).toBe(58);
    const bare = decodeFrame(inner, { verifyIcrc: true });
    if (isDecodeError(bare)) throw new Error(bare.message);
    // Without the option (a pcap, VXLAN) it is a header-only frame: what was cut is unknown.
    expect(bare.payloadLen).toBe(0);
    expect(bare.trimHop).toBe(0);
    const back = decapsulate(dgram);
    if (isDecodeError(back)) throw new Error(back.message);
    expect(back.trimHop).toBe(3);
    expect(back.trimLastHop).toBe(true);
    expect(back.payloadLen).toBe(1000);
    expect(back.payload).toBeNull();
    expect(back.sizeBytes).toBe(TRIMMED_FRAME_BYTES);
    expect(back.psn).toBe(4242);
    expect(back.destQp).toBe(0x11);
    expect(back.ecn).toBe(Ecn.Ect0);
    const lastHopOff = decapsulate(encapsulate(trimmed(false), { vni: 7 }));
    if (isDecodeError(lastHopOff)) throw new Error(lastHopOff.message);
    expect(lastHopOff.trimLastHop).toBe(false);
  });

  it('is forwarded in place at the next hop, byte for byte what the full encoder writes', () => {
    const rx = decodeFrame(encodeFrame(trimmed()), { keepWire: true });
    if (isDecodeError(rx)) throw new Error(rx.message);
    // The next switch decodes the option as well (decapsulate); here its effect, by hand.
    rx.trimHop = 3;
    rx.payloadLen = 1000;
    rx.payload = null;
    rx.ttl = 60;
    rx.ecn = Ecn.Ce;
    const inPlace = encodeFrame(rx);
    const wire = rx.wire;
    rx.wire = null;
    expect(toHex(inPlace)).toBe(toHex(encodeFrame(rx)));
    expect(wire).not.toBeNull();
    expect(isDecodeError(decodeFrame(inPlace, { verifyIcrc: true }))).toBe(false);
  });

  it('refuses to encode a trimmed frame that contradicts itself', () => {
    const ack = trimmed();
    ack.kind = FrameKind.Ack;
    ack.opcode = Opcode.Acknowledge;
    ack.aeth = { syndrome: 0x1f, msn: 0 };
    ack.payloadLen = 0;
    expect(() => encapsulate(ack, { vni: 1 })).toThrow(WireEncodeError);
    const withPayload = trimmed();
    withPayload.payload = new Uint8Array(1000);
    expect(() => encapsulate(withPayload, { vni: 1 })).toThrow(/carries no payload/);
    const far = trimmed();
    far.trimHop = 256;
    expect(() => encapsulate(far, { vni: 1 })).toThrow(/trimHop 256/);
  });

  it('reads a malformed option 0x30 as a typed error', () => {
    const good = encapsulate(trimmed(), { vni: 7 });
    const at = GENEVE_HEADER_BYTES + 4;
    const mutate = (f: (b: Buffer) => void) => {
      const b = Buffer.from(good);
      f(b);
      return decapsulate(b);
    };
    const hop0 = mutate((b) => {
      b[at] = 0;
    });
    expect(isDecodeError(hop0) && hop0.code).toBe('bad-option');
    const flags = mutate((b) => {
      b[at + 1] = 2;
    });
    expect(isDecodeError(flags) && flags.code).toBe('bad-option');
    // The option on a frame that still carries its payload.
    const full = trimmed();
    full.trimHop = 0;
    full.payloadLen = 8;
    full.payload = new Uint8Array(8);
    const fullDgram = encapsulate(full, { vni: 7 });
    const withOpt = Buffer.concat([
      Buffer.from([fullDgram[0] + 2, ...fullDgram.subarray(1, GENEVE_HEADER_BYTES)]),
      good.subarray(GENEVE_HEADER_BYTES, GENEVE_HEADER_BYTES + 8),
      fullDgram.subarray(GENEVE_HEADER_BYTES),
    ]);
    const r = decapsulate(withOpt);
    expect(isDecodeError(r) && r.code).toBe('bad-option');
  });
});
