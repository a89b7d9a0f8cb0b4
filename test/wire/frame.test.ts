/** Whole frames and the encapsulation: Packet → bytes → Packet is the identity, errors are typed. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../../src/wire/bytes.js';
import {
  decapsulate,
  decapsulateVxlan,
  encapsulate,
  encapsulatedBytes,
  encapsulateInto,
  encapsulateVxlan,
  overlayKindOf,
  readArrivalNs,
} from '../../src/wire/encap.js';
import { type DecodeError, isDecodeError, WireEncodeError } from '../../src/wire/errors.js';
import {
  decodeFrame,
  decodeIpv4Packet,
  encodedFrameBytes,
  encodeFrame,
  encodeFrameInto,
} from '../../src/wire/frame.js';
import { decodeGeneveOptions, geneveVni } from '../../src/wire/geneve.js';
import { writeIcrc } from '../../src/wire/icrc.js';
import { writeIpv4Checksum } from '../../src/wire/ipv4.js';
import { Opcode } from '../../src/wire/opcodes.js';
import { Ecn, FrameKind, type Packet } from '../../src/wire/packet.js';
import { createExt, createPacket } from '../../src/wire/packet-factory.js';
import { emulatedSizeBytes, standardFrameBytes } from '../../src/wire/size.js';
import { OptionType, ROCELAB_OPTION_CLASS } from '../../src/wire/telemetry.js';
import { FrameView } from '../../src/wire/view.js';
import { arbPacket } from './arbitraries.js';
import { hex, loadVectors } from './shared.js';

const roce = loadVectors('roce.json');
const sendOnlyHex: string = roce.vectors[0].frame_hex;

function must<T>(v: T): Exclude<T, DecodeError> {
  if (isDecodeError(v)) throw new Error(`${v.code}: ${v.message}`);
  return v as Exclude<T, DecodeError>;
}

/** A data packet as NIC firmware would build it. */
function dataPacket(payloadLen = 1000): Packet {
  const p = createPacket();
  p.kind = FrameKind.Data;
  p.opcode = Opcode.SendOnly;
  p.dstMac = 0x02000a000002;
  p.srcMac = 0x02000a000001;
  p.srcIp = 0x0a000001;
  p.dstIp = 0x0a000002;
  p.dscp = 26;
  p.ecn = Ecn.Ect0;
  p.srcPort = 55407;
  p.destQp = 0x22b3;
  p.psn = 77;
  p.payloadLen = payloadLen;
  p.prio = 3;
  return p;
}

describe('encodeFrame / decodeFrame', () => {
  it('round-trips arbitrary packets of every kind (fast-check)', () => {
    fc.assert(
      fc.property(arbPacket(), (pkt) => {
        const frame = encodeFrame(pkt);
        expect(frame.length).toBe(encodedFrameBytes(pkt));
        expect(frame.length).toBe(standardFrameBytes(pkt));
        const back = must(decodeFrame(frame));
        expect(back).toEqual(pkt);
        // and the bytes are canonical
        expect(toHex(encodeFrame(back))).toBe(toHex(frame));
      }),
      { numRuns: 2000 },
    );
  });

  it('decodes what it encodes into a pooled buffer at an offset', () => {
    fc.assert(
      fc.property(arbPacket(), fc.integer({ min: 0, max: 64 }), (pkt, off) => {
        const pool = Buffer.alloc(off + 2048, 0xa5);
        const n = encodeFrameInto(pkt, pool, off);
        expect(pool[off + n]).toBe(0xa5);
        expect(must(decodeFrame(pool.subarray(off, off + n)))).toEqual(pkt);
      }),
      { numRuns: 300 },
    );
  });

  it('a null payload is sent as zeros; payload modes view/copy/drop', () => {
    const p = dataPacket(5);
    const frame = encodeFrame(p);
    const view = must(decodeFrame(frame));
    expect(Array.from(view.payload!)).toEqual([0, 0, 0, 0, 0]);
    expect(view.payload!.buffer).toBe(frame.buffer);
    const copy = must(decodeFrame(frame, { payload: 'copy' }));
    expect(copy.payload!.buffer).not.toBe(frame.buffer);
    const drop = must(decodeFrame(frame, { payload: 'drop' }));
    expect(drop.payload).toBeNull();
    expect(drop.payloadLen).toBe(5);
  });

  it('sizes follow the emulated size rule (standard frame + FCS + telemetry)', () => {
    const p = must(decodeFrame(hex(sendOnlyHex)));
    expect(p.sizeBytes).toBe(74 + 4);
    expect(p.sizeBytes).toBe(emulatedSizeBytes(p));
    const d = dataPacket(1000);
    expect(encodeFrame(d).length).toBe(14 + 20 + 8 + 12 + 1000 + 4);
  });

  it('follows the opcode for extension headers, as hardware does', () => {
    // a WRITE First built without RETH still goes out as a valid frame with a zero RETH
    const p = dataPacket(16);
    p.opcode = Opcode.WriteFirst;
    const back = must(decodeFrame(encodeFrame(p)));
    expect(back.reth).toEqual({ vaHi: 0, vaLo: 0, rkey: 0, dmaLength: 0 });
    // a RETH on a SEND is not sent
    const s = dataPacket(16);
    s.reth = { vaHi: 1, vaLo: 2, rkey: 3, dmaLength: 4 };
    expect(must(decodeFrame(encodeFrame(s))).reth).toBeNull();
  });

  it('throws WireEncodeError for contradictory packets', () => {
    const bad: [string, (p: Packet) => void][] = [
      [
        'data with ACK opcode',
        (p) => {
          p.opcode = 0x11;
        },
      ],
      [
        'ack without AETH',
        (p) => {
          p.kind = FrameKind.Ack;
          p.opcode = 0x11;
        },
      ],
      [
        'ack with NAK syndrome',
        (p) => {
          p.kind = FrameKind.Ack;
          p.opcode = 0x11;
          p.aeth = { syndrome: 0x60, msn: 0 };
          p.payloadLen = 0;
        },
      ],
      [
        'payload length mismatch',
        (p) => {
          p.payload = new Uint8Array(3);
        },
      ],
      [
        'negative payloadLen',
        (p) => {
          p.payloadLen = -1;
        },
      ],
      [
        'huge payloadLen',
        (p) => {
          p.payloadLen = 1e9;
        },
      ],
      [
        'pfc without body',
        (p) => {
          p.kind = FrameKind.Pfc;
        },
      ],
      [
        'cnp with a bad period',
        (p) => {
          p.kind = FrameKind.Cnp;
          p.opcode = 0x81;
          p.payloadLen = 0;
          p.ext = { ...createExt(), cnpPeriodNs: -1 };
        },
      ],
    ];
    for (const [what, mutate] of bad) {
      const p = dataPacket(8);
      mutate(p);
      expect(() => encodeFrame(p), what).toThrow(WireEncodeError);
    }
    expect(() => encodeFrameInto(dataPacket(100), Buffer.alloc(50), 0)).toThrow(WireEncodeError);
  });

  it('an 802.1Q tag is accepted on decode and gives the priority', () => {
    const p = dataPacket(10);
    p.prio = 5;
    const tagged = encodeFrame(p, { vlanId: 42 });
    expect(tagged.length).toBe(encodeFrame(p).length + 4);
    expect(tagged.readUInt16BE(12)).toBe(0x8100);
    expect(tagged.readUInt16BE(14)).toBe((5 << 13) | 42);
    const back = must(decodeFrame(tagged));
    expect(back.prio).toBe(5);
    expect({ ...back, payload: null }).toEqual({
      ...must(decodeFrame(encodeFrame(p))),
      prio: 5,
      payload: null,
    });
  });

  it('minimum-frame Ethernet padding after a short RoCE packet is accepted', () => {
    const p = dataPacket(0); // 58-byte frame; a real NIC pads it to 60
    const f = encodeFrame(p);
    expect(f.length).toBe(58);
    const padded = Buffer.concat([f, Buffer.alloc(2)]);
    expect(must(decodeFrame(padded))).toEqual(must(decodeFrame(f)));
    expect(decodeFrame(Buffer.concat([f, Buffer.alloc(3)]))).toMatchObject({ code: 'bad-length' });
  });

  it('decodeIpv4Packet reads a bare IPv4/UDP/BTH packet', () => {
    const f = hex(sendOnlyHex);
    const p = must(decodeIpv4Packet(f.subarray(14)));
    expect(p.psn).toBe(0xa0b1);
    expect(p.dstMac).toBe(0);
  });
});

describe('typed decode errors', () => {
  const good = () => hex(sendOnlyHex);
  /** Fix the IPv4 checksum and the ICRC after a deliberate edit, so only the edit is wrong. */
  const reseal = (f: Buffer) => {
    writeIpv4Checksum(f, 14);
    writeIcrc(f, 14, f.length - 4);
    return f;
  };
  /** A frame maker: copy of `base`, edited, optionally resealed. */
  const edit =
    (fn: (f: Buffer) => void, seal = true, base: () => Buffer = good): (() => Buffer) =>
    () => {
      const f = base();
      fn(f);
      return seal ? reseal(f) : f;
    };
  const cases: [string, () => Uint8Array, string][] = [
    ['empty', () => new Uint8Array(0), 'truncated'],
    ['cut inside the BTH', () => good().subarray(0, 50), 'truncated'],
    ['one byte short', () => good().subarray(0, 73), 'truncated'],
    ['one byte extra', () => Buffer.concat([good(), Buffer.alloc(1)]), 'bad-length'],
    ['ICRC flipped', edit((f) => (f[72] ^= 1), false), 'bad-icrc'],
    ['payload bit flipped', edit((f) => (f[60] ^= 0x10), false), 'bad-icrc'],
    ['IPv4 checksum wrong', edit((f) => (f[24] ^= 1), false), 'bad-checksum'],
    ['UDP length wrong', edit((f) => f.writeUInt16BE(36, 38)), 'bad-length'],
    ['IPv4 total length too big', edit((f) => f.writeUInt16BE(200, 16)), 'truncated'],
    ['unknown opcode 0x0c', edit((f) => (f[42] = 0x0c)), 'unknown-opcode'],
    ['unknown opcode 0x64 (UD)', edit((f) => (f[42] = 0x64)), 'unknown-opcode'],
    ['ACK with payload', edit((f) => f.writeUInt16BE(0x1100, 42)), 'bad-length'],
    ['TVer 1', edit((f) => (f[43] |= 1)), 'bad-version'],
    [
      'PadCnt beyond an empty payload',
      edit(
        (f) => (f[43] = 0x20),
        true,
        () => encodeFrame(dataPacket(0)),
      ),
      'bad-length',
    ],
    ['IPv6 EtherType', edit((f) => f.writeUInt16BE(0x86dd, 12), false), 'unknown-ethertype'],
    ['TCP', edit((f) => (f[23] = 6)), 'unknown-protocol'],
    ['UDP port 4792', edit((f) => f.writeUInt16BE(4792, 36)), 'unknown-port'],
    ['IP fragment', edit((f) => f.writeUInt16BE(0x2000, 20)), 'unsupported'],
    ['IPv4 options', edit((f) => (f[14] = 0x46), false), 'unsupported'],
    ['IPv6 header', edit((f) => (f[14] = 0x60), false), 'bad-version'],
    ['oversized', () => Buffer.alloc(10000), 'oversized'],
    ['UDP checksum wrong', edit((f) => f.writeUInt16BE(0x1234, 40), false), 'bad-checksum'],
  ];
  for (const [what, make, code] of cases) {
    it(`${what} → ${code}`, () => {
      const r = decodeFrame(make());
      expect(isDecodeError(r)).toBe(true);
      expect(r).toMatchObject({ code });
      expect(typeof (r as { message: string }).message).toBe('string');
    });
  }

  it('ACK with the reserved syndrome class → bad-field', () => {
    const ack = hex(roce.vectors[3].frame_hex);
    ack[54] = 0x40;
    writeIcrc(ack, 14, ack.length - 4);
    expect(decodeFrame(ack)).toMatchObject({ code: 'bad-field' });
  });

  it('header-only decoding skips the ICRC', () => {
    const f = good();
    f[72] ^= 1;
    expect(isDecodeError(decodeFrame(f, { verifyIcrc: false }))).toBe(false);
  });
});

describe('Geneve encapsulation', () => {
  it('carries any packet with its telemetry losslessly (fast-check)', () => {
    fc.assert(
      fc.property(arbPacket({ telemetry: true }), fc.integer({ min: 0, max: 0xffffff }), (pkt, vni) => {
        const dgram = encapsulate(pkt, { vni });
        expect(dgram.length).toBe(encapsulatedBytes(pkt, { vni }));
        expect(geneveVni(dgram)).toBe(vni);
        expect(overlayKindOf(dgram)).toBe('geneve');
        expect(must(decapsulate(dgram))).toEqual(pkt);
      }),
      { numRuns: 2000 },
    );
  });

  it('writes into a pooled buffer at an offset', () => {
    fc.assert(
      fc.property(arbPacket({ telemetry: true }), fc.integer({ min: 0, max: 40 }), (pkt, off) => {
        const pool = Buffer.alloc(off + 2200, 0x5a);
        const n = encapsulateInto(pkt, pool, off, { vni: 7 });
        expect(pool[off + n]).toBe(0x5a);
        expect(must(decapsulate(pool.subarray(off, off + n)))).toEqual(pkt);
      }),
      { numRuns: 300 },
    );
  });

  it('a packet without telemetry has no options; each telemetry item has its documented type', () => {
    const p = dataPacket(8);
    const plain = encapsulate(p, { vni: 1 });
    expect(plain[0]).toBe(0);
    expect(toHex(plain.subarray(8))).toBe(toHex(encodeFrame(p)));

    const q = dataPacket(8);
    q.id = 99;
    q.int = {
      layout: 'hpcc',
      nhop: 1,
      hops: [{ lineRateBps: 100e9, timeNs: 5, txBytes: 128, qlenBytes: 80, activeFlows: 3 }],
    };
    q.ext = {
      ...createExt(),
      txTsNs: 1,
      tsEchoNs: 2,
      windowBytes: 3,
      ecnCount: 4,
      cnpPeriodNs: 5,
      fields: { arm: 2 },
    };
    const opts = must(decodeGeneveOptions(encapsulate(q, { vni: 1 })));
    expect(opts.map((o) => [o.optionClass, o.type, o.dataBytes])).toEqual([
      [ROCELAB_OPTION_CLASS, OptionType.HpccInt, 44],
      [ROCELAB_OPTION_CLASS, OptionType.HpccActiveFlows, 12],
      [ROCELAB_OPTION_CLASS, OptionType.TxTs, 8],
      [ROCELAB_OPTION_CLASS, OptionType.TsEcho, 8],
      [ROCELAB_OPTION_CLASS, OptionType.Window, 4],
      [ROCELAB_OPTION_CLASS, OptionType.EcnCount, 4],
      [ROCELAB_OPTION_CLASS, OptionType.CnpPeriod, 4],
      [ROCELAB_OPTION_CLASS, OptionType.Fields, 12],
      [ROCELAB_OPTION_CLASS, OptionType.Meta, 12],
    ]);
  });

  it("a CNP's period rides in its reserved bytes, not in an option", () => {
    const c = createPacket();
    c.kind = FrameKind.Cnp;
    c.opcode = Opcode.Cnp;
    c.becn = true;
    c.dscp = 48;
    c.prio = 6;
    c.bthResv7 = 9;
    c.ext = { ...createExt(), cnpPeriodNs: 123456, ecnCount: 300 };
    const d = encapsulate(c, { vni: 1 });
    const opts = must(decodeGeneveOptions(d));
    expect(opts.map((o) => o.type)).toEqual([OptionType.EcnCount]);
    const inner = d.subarray(8 + 8);
    expect(inner.readUInt32BE(54)).toBe(123456);
    const back = must(decapsulate(d));
    c.sizeBytes = emulatedSizeBytes(c);
    expect(back).toEqual(c);
  });

  it('field names may be any UTF-8 and fill several options', () => {
    const p = dataPacket(0);
    p.payload = new Uint8Array(0);
    const fields: Record<string, number> = { 'débit→': 1.5, ünï: -3 };
    for (let i = 0; i < 6; i++) fields[`field_number_${i}`] = i * 1e12;
    p.ext = { ...createExt(), fields };
    p.sizeBytes = emulatedSizeBytes(p);
    const d = encapsulate(p, { vni: 1 });
    expect(must(decodeGeneveOptions(d)).filter((o) => o.type === OptionType.Fields).length).toBeGreaterThan(
      1,
    );
    expect(must(decapsulate(d))).toEqual(p);
  });

  it('encodes every field name right however many names a run has used (names are cached, boundedly)', () => {
    // More distinct names than the encoder keeps, each name seen twice with different neighbours.
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 300; i += 3) {
        const p = dataPacket(0);
        p.payload = new Uint8Array(0);
        p.ext = {
          ...createExt(),
          fields: { [`n${i}`]: i, [`nom_${i + 1}_é`]: round, [`n${i + 2 + round}`]: 0.25 },
        };
        p.sizeBytes = emulatedSizeBytes(p);
        expect(must(decapsulate(encapsulate(p, { vni: 1 })))).toEqual(p);
      }
    }
  });

  it('refuses what Geneve cannot hold, with a clear error', () => {
    const p = dataPacket(0);
    const fields: Record<string, number> = {};
    for (let i = 0; i < 40; i++) fields[`f${i}`] = i;
    p.ext = { ...createExt(), fields };
    expect(() => encapsulate(p, { vni: 1 })).toThrow(/Geneve options/);
    p.ext = { ...createExt(), txTsNs: -5 };
    expect(() => encapsulate(p, { vni: 1 })).toThrow(WireEncodeError);
    p.ext = null;
    expect(() => encapsulate(p, { vni: 1 << 24 })).toThrow(/VNI/);
  });

  it('skips foreign options, rejects foreign critical ones and malformed ones', () => {
    const inner = hex(sendOnlyHex);
    const mk = (opt: string, optWords: number) =>
      Buffer.concat([
        fromHex(`${optWords.toString(16).padStart(2, '0')}00655800006400`)!,
        fromHex(opt)!,
        inner,
      ]);
    expect(must(decapsulate(mk('0101 05 01 deadbeef', 2))).psn).toBe(0xa0b1);
    expect(decapsulate(mk('0101 85 01 deadbeef', 2))).toMatchObject({ code: 'unsupported' });
    expect(decapsulate(mk('fff0 12 02 deadbeef', 2))).toMatchObject({ code: 'bad-option' });
    expect(decapsulate(mk('fff0 13 00', 1))).toMatchObject({ code: 'bad-option' });
    expect(decapsulate(mk('fff0 7f 01 deadbeef', 2))).not.toHaveProperty('code'); // unknown type of ours: skipped
    expect(decapsulate(mk('', 0).subarray(0, 7))).toMatchObject({ code: 'truncated' });
    const v1 = mk('', 0);
    v1[0] = 0x40;
    expect(decapsulate(v1)).toMatchObject({ code: 'bad-version' });
    const oam = mk('', 0);
    oam[1] = 0x80;
    expect(decapsulate(oam)).toMatchObject({ code: 'unsupported' });
    const ipv4 = mk('', 0);
    ipv4.writeUInt16BE(0x0800, 2);
    expect(decapsulate(ipv4)).toMatchObject({ code: 'unsupported' });
    // an error inside the inner frame reports its offset in the datagram
    const badInner = mk('', 0);
    badInner[8 + 72] ^= 1;
    expect(decapsulate(badInner)).toMatchObject({ code: 'bad-icrc', offset: 8 + 70 });
  });
});

describe('arrival stamp (option ArrivalTs, real runtime)', () => {
  it('travels with any packet, is read back exactly and leaves the decoded packet unchanged', () => {
    fc.assert(
      fc.property(
        arbPacket({ telemetry: true }),
        fc.double({ min: 0, max: 1e15, noNaN: true }),
        (pkt, arrivalNs) => {
          let dgram: Buffer;
          try {
            dgram = encapsulate(pkt, { vni: 3, arrivalNs });
          } catch (err) {
            // Only a packet whose own options already fill Geneve's 252 bytes has no room.
            expect(String(err)).toMatch(/Geneve options/);
            return;
          }
          expect(dgram.length).toBe(encapsulatedBytes(pkt, { vni: 3, arrivalNs }));
          expect(readArrivalNs(dgram)).toBe(arrivalNs);
          expect(must(decapsulate(dgram))).toEqual(pkt);
          // The receiver's single walk over the options finds the same stamp.
          const meta = { arrivalNs: null as number | null };
          expect(must(decapsulate(dgram, {}, meta))).toEqual(pkt);
          expect(meta.arrivalNs).toBe(arrivalNs);
          must(decapsulate(encapsulate(pkt, { vni: 3 }), {}, meta));
          expect(meta.arrivalNs).toBeNull();
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('is absent unless asked for, and never read from VXLAN or garbage', () => {
    const p = dataPacket(8);
    expect(readArrivalNs(encapsulate(p, { vni: 1 }))).toBeNull();
    expect(readArrivalNs(encapsulateVxlan(p, { vni: 1 }))).toBeNull();
    expect(readArrivalNs(new Uint8Array(3))).toBeNull();
    const opts = must(decodeGeneveOptions(encapsulate(p, { vni: 1, arrivalNs: 1234.5 })));
    expect(opts.map((o) => [o.optionClass, o.type, o.dataBytes])).toEqual([
      [ROCELAB_OPTION_CLASS, OptionType.ArrivalTs, 8],
    ]);
    expect(() => encapsulate(p, { vni: 1, arrivalNs: Number.NaN })).toThrow(WireEncodeError);
  });

  it('never throws on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (b) => {
        const v = readArrivalNs(b);
        expect(v === null || Number.isFinite(v)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('VXLAN encapsulation', () => {
  it('carries the standard frame; telemetry is dropped', () => {
    fc.assert(
      fc.property(arbPacket(), (pkt) => {
        const d = encapsulateVxlan(pkt, { vni: 100 });
        expect(overlayKindOf(d)).toBe('vxlan');
        expect(toHex(d.subarray(0, 8))).toBe('0800000000006400');
        expect(must(decapsulateVxlan(d))).toEqual(pkt);
      }),
      { numRuns: 300 },
    );
  });
});

describe('FrameView', () => {
  it('agrees with decodeFrame on every header field it exposes', () => {
    const view = new FrameView();
    fc.assert(
      fc.property(arbPacket(), (pkt) => {
        const f = encodeFrame(pkt);
        expect(view.reset(f)).toBe(true);
        expect(view.kind).toBe(pkt.kind);
        expect(view.dstMac).toBe(pkt.dstMac);
        if (view.bthOff >= 0) {
          expect([
            view.opcode,
            view.destQp,
            view.psn,
            view.ecn,
            view.dscp,
            view.srcIp,
            view.dstIp,
            view.srcPort,
          ]).toEqual([pkt.opcode, pkt.destQp, pkt.psn, pkt.ecn, pkt.dscp, pkt.srcIp, pkt.dstIp, pkt.srcPort]);
          expect([view.ackReq, view.becn, view.bthResv7, view.ttl]).toEqual([
            pkt.ackReq,
            pkt.becn,
            pkt.bthResv7,
            pkt.ttl,
          ]);
          expect(view.syndrome).toBe(pkt.aeth === null ? -1 : pkt.aeth.syndrome);
        }
      }),
      { numRuns: 500 },
    );
    expect(view.reset(new Uint8Array(5))).toBe(false);
  });
});
