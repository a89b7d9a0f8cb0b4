/** Each header codec on its own: fast-check round trips, known values, and the helper functions. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ackSyndrome,
  aethClass,
  creditCodeOf,
  creditsOfCode,
  decodeAeth,
  encodeAeth,
  isNakOrRnr,
  isPsnSeqErr,
  nakSyndrome,
  rnrDelayNs,
  rnrNakSyndrome,
  rnrTimerCodeOf,
} from '../../src/wire/aeth.js';
import { type Bth, decodeBth, encodeBth, psnAdd, psnDiff } from '../../src/wire/bth.js';
import { fromHex, readF64, toHex, writeF64 } from '../../src/wire/bytes.js';
import { decodeCnmBody, encodeCnmBody, srccFlowId } from '../../src/wire/cnm.js';
import {
  cnpPsnOfPeriodNs,
  cnpResv7OfEcnCount,
  decodeCnpPeriodNs,
  encodeCnpBody,
} from '../../src/wire/cnp.js';
import { CRC32_INIT, crc32, crc32Update, crc32UpdateJs, crc32UpdateZeros } from '../../src/wire/crc32.js';
import { isDecodeError } from '../../src/wire/errors.js';
import {
  decodeEthernet,
  type EthernetHeader,
  encodeEthernet,
  macToString,
  parseMac,
} from '../../src/wire/ethernet.js';
import {
  decodeGeneveHeader,
  decodeGeneveOptions,
  encodeGeneveHeader,
  type GeneveHeader,
} from '../../src/wire/geneve.js';
import { decodeImmDt, encodeImmDt } from '../../src/wire/immdt.js';
import {
  decodeHpccInt,
  emptyHpccStack,
  encodeHpccInt,
  hpccTimeDeltaNs,
  hpccTxBytesDelta,
  pushHpccHop,
} from '../../src/wire/int-hpcc.js';
import { decodeMpccInt, emptyMpccStack, encodeMpccInt, pushMpccHop } from '../../src/wire/int-mpcc.js';
import {
  decodeIpv4,
  encodeIpv4,
  type Ipv4Header,
  ipToString,
  ipv4Checksum,
  ipv4ChecksumOk,
  parseIp,
} from '../../src/wire/ipv4.js';
import { frameKindOfOpcode } from '../../src/wire/kind.js';
import { FrameKind } from '../../src/wire/packet.js';
import { parsePcap, pcapGlobalHeader, pcapRecord } from '../../src/wire/pcap.js';
import {
  decodePfcBody,
  encodePfcBody,
  pfcBodyFor,
  pfcNsToQuanta,
  pfcQuantaFor,
  pfcQuantaToNs,
  pfcQuantumNs,
} from '../../src/wire/pfc.js';
import { decodeReth, encodeReth } from '../../src/wire/reth.js';
import { decodeUdp, encodeUdp, type UdpHeader } from '../../src/wire/udp.js';
import { decodeVxlanHeader, encodeVxlanHeader } from '../../src/wire/vxlan.js';
import { arbCnm, arbIntStack, arbPfc, arbReth, u8, u16, u24, u32, u48 } from './arbitraries.js';

const RUNS = { numRuns: 500 };

/** Encodes at a random offset into a random-filled buffer, decodes from there: catches stray writes and reads. */
function roundTrip<T>(
  arb: fc.Arbitrary<T>,
  size: number,
  enc: (buf: Uint8Array, off: number, v: T) => unknown,
  dec: (buf: Uint8Array, off: number) => unknown,
): void {
  fc.assert(
    fc.property(
      arb,
      fc.integer({ min: 0, max: 16 }),
      fc.uint8Array({ minLength: 64, maxLength: 64 }),
      (v, off, noise) => {
        const buf = new Uint8Array(off + size + 8);
        buf.set(noise.subarray(0, buf.length));
        const before = buf.slice();
        enc(buf, off, v);
        // nothing outside [off, off + size) changes
        expect(buf.subarray(0, off)).toEqual(before.subarray(0, off));
        expect(buf.subarray(off + size)).toEqual(before.subarray(off + size));
        expect(dec(buf, off)).toEqual(v);
        // and a buffer one byte short is a typed error, not an exception
        const short = dec(buf.subarray(0, off + size - 1), off);
        expect(isDecodeError(short)).toBe(true);
      },
    ),
    RUNS,
  );
}

describe('header round trips (fast-check)', () => {
  it('Ethernet, untagged and 802.1Q', () => {
    const arb: fc.Arbitrary<EthernetHeader> = fc.record({
      dstMac: u48,
      srcMac: u48,
      etherType: u16.filter((t) => t !== 0x8100),
      vlan: fc.option(
        fc.record({
          pcp: fc.integer({ min: 0, max: 7 }),
          dei: fc.boolean(),
          vid: fc.integer({ min: 0, max: 4095 }),
        }),
      ),
    });
    fc.assert(
      fc.property(arb, (h) => {
        const buf = new Uint8Array(18);
        const n = encodeEthernet(buf, 0, h);
        expect(n).toBe(h.vlan === null ? 14 : 18);
        expect(decodeEthernet(buf.subarray(0, n), 0)).toEqual(h);
        expect(isDecodeError(decodeEthernet(buf.subarray(0, n - 1), 0))).toBe(true);
      }),
      RUNS,
    );
  });

  it('IPv4 (checksum always valid after encode)', () => {
    const arb: fc.Arbitrary<Ipv4Header> = fc.record({
      dscp: fc.integer({ min: 0, max: 63 }),
      ecn: fc.constantFrom(0, 1, 2, 3),
      totalLength: u16,
      ipId: u16,
      dontFragment: fc.boolean(),
      moreFragments: fc.boolean(),
      fragmentOffset: fc.integer({ min: 0, max: 0x1fff }),
      ttl: u8,
      protocol: u8,
      checksum: fc.constant(0),
      srcIp: u32,
      dstIp: u32,
    });
    fc.assert(
      fc.property(arb, (h) => {
        const buf = new Uint8Array(20);
        encodeIpv4(buf, 0, h);
        expect(ipv4ChecksumOk(buf, 0)).toBe(true);
        const d = decodeIpv4(buf, 0);
        if (isDecodeError(d)) throw new Error(d.message);
        expect({ ...d, checksum: 0 }).toEqual(h);
        expect(d.checksum).toBe(ipv4Checksum(buf, 0));
      }),
      RUNS,
    );
  });

  it('UDP', () => {
    roundTrip<UdpHeader>(
      fc.record({ srcPort: u16, dstPort: u16, length: u16, checksum: u16 }),
      8,
      encodeUdp,
      decodeUdp,
    );
  });

  it('BTH, every bit', () => {
    const arb: fc.Arbitrary<Bth> = fc.record({
      opcode: u8,
      solicitedEvent: fc.boolean(),
      migReq: fc.boolean(),
      pkey: u16,
      fecn: fc.boolean(),
      becn: fc.boolean(),
      destQp: u24,
      ackReq: fc.boolean(),
      bthResv7: fc.integer({ min: 0, max: 127 }),
      psn: u24,
      padCnt: fc.integer({ min: 0, max: 3 }),
      tver: fc.integer({ min: 0, max: 15 }),
      resv6: fc.integer({ min: 0, max: 63 }),
    });
    roundTrip(arb, 12, encodeBth, decodeBth);
  });

  it('RETH, AETH, ImmDt', () => {
    roundTrip(arbReth, 16, encodeReth, decodeReth);
    roundTrip(fc.record({ syndrome: u8, msn: u24 }), 4, encodeAeth, decodeAeth);
    roundTrip(u32, 4, encodeImmDt, decodeImmDt);
  });

  it('CNP body with the DCQCN+ period', () => {
    roundTrip(u32, 16, encodeCnpBody, decodeCnpPeriodNs);
  });

  it('PFC body', () => {
    roundTrip(arbPfc, 20, encodePfcBody, decodePfcBody);
  });

  it('CNM body', () => {
    roundTrip(arbCnm, 56, encodeCnmBody, decodeCnmBody);
  });

  it('HPCC and MPCC INT stacks (representable values)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), (multi) => {
        fc.assert(
          fc.property(arbIntStack(multi), (st) => {
            const buf = new Uint8Array(42);
            if (st.layout === 'hpcc') {
              expect(encodeHpccInt(buf, 0, st, multi)).toBe(42);
              const back = decodeHpccInt(buf, 0, multi);
              // activeFlows is not in the HPCC layout (it rides in its own Geneve option)
              expect(back).toEqual({ ...st, hops: st.hops.map((h) => ({ ...h, activeFlows: 0 })) });
            } else {
              expect(encodeMpccInt(buf, 0, st)).toBe(32);
              expect(decodeMpccInt(buf, 0)).toEqual(st);
            }
          }),
          { numRuns: 40 },
        );
      }),
      { numRuns: 10 },
    );
  });

  it('Geneve and VXLAN headers', () => {
    const arb: fc.Arbitrary<GeneveHeader> = fc.record({
      version: fc.integer({ min: 0, max: 3 }),
      optionsBytes: fc.integer({ min: 0, max: 63 }).map((w) => w * 4),
      oam: fc.boolean(),
      critical: fc.boolean(),
      protocol: u16,
      vni: u24,
    });
    roundTrip(arb, 8, encodeGeneveHeader, decodeGeneveHeader);
    roundTrip(fc.record({ vni: u24 }), 8, encodeVxlanHeader, decodeVxlanHeader);
  });

  it('pcap records', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(u48, fc.uint8Array({ minLength: 0, maxLength: 200 })), { maxLength: 10 }),
        fc.boolean(),
        (recs, ns) => {
          const parts = [
            pcapGlobalHeader({ nanosecond: ns }),
            ...recs.map(([t, d]) => pcapRecord(t, d, { nanosecond: ns })),
          ];
          const file = parsePcap(Buffer.concat(parts));
          if (isDecodeError(file)) throw new Error(file.message);
          expect(file.nanosecond).toBe(ns);
          expect(file.linkType).toBe(1);
          expect(file.records.map((r) => [r.timeNs, Buffer.from(r.data)])).toEqual(
            recs.map(([t, d]) => [ns ? t : Math.floor(t / 1000) * 1000, Buffer.from(d)]),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('f64 field values keep every bit (incl. -0, NaN, ±Infinity)', () => {
    fc.assert(
      fc.property(fc.double(), (v) => {
        const b = new Uint8Array(8);
        writeF64(b, 0, v);
        expect(Object.is(readF64(b, 0), v)).toBe(true);
      }),
      RUNS,
    );
  });
});

describe('known values', () => {
  it('CRC-32 check value and zlib equivalence', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
    // all lengths around the 8-byte slicing boundary agree with a bitwise reference
    const ref = (b: Uint8Array) => {
      let c = 0xffffffff;
      for (const x of b) {
        c ^= x;
        for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      }
      return ~c >>> 0;
    };
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 70 }), (b) => crc32(b) === ref(b)),
      RUNS,
    );
  });

  it('IPv4 checksum of the rc_send_only header is 0x2644', () => {
    const h = fromHex('456a003c000140004011 0000 0a0000010a000002')!;
    expect(ipv4Checksum(h, 0)).toBe(0x2644);
    expect(ipv4ChecksumOk(h, 0)).toBe(false);
  });

  it('addresses print and parse', () => {
    expect(macToString(0x02000a000001)).toBe('02:00:0a:00:00:01');
    expect(parseMac('02:00:0a:00:00:01')).toBe(0x02000a000001);
    expect(parseMac('02:00:0a:00:00')).toBeNull();
    expect(ipToString(0xc6120001)).toBe('198.18.0.1');
    expect(parseIp('198.18.0.1')).toBe(0xc6120001);
    expect(parseIp('256.0.0.1')).toBeNull();
  });

  it('SRCC flow id (CRC-16/ARC) matches its known vector', () => {
    expect(srccFlowId(0x0a000001, 0x0a000002, 49152, 4791)).toBe(0x58ba);
  });

  it('decoders reject bad versions and reserved values', () => {
    const ip = fromHex('650000140000000040110000 0a000001 0a000002')!;
    expect(decodeIpv4(ip)).toMatchObject({ code: 'bad-version' });
    ip[0] = 0x46;
    expect(decodeIpv4(ip)).toMatchObject({ code: 'unsupported' });
    const cnm = new Uint8Array(56);
    cnm[0] = 0x21;
    expect(decodeCnmBody(cnm)).toMatchObject({ code: 'bad-version' });
    cnm[0] = 0x12;
    expect(decodeCnmBody(cnm)).toMatchObject({ code: 'bad-field' });
    const pause = new Uint8Array(20);
    pause[1] = 0x01; // 802.3x PAUSE, not PFC
    expect(decodePfcBody(pause)).toMatchObject({ code: 'unknown-opcode' });
    expect(decodeVxlanHeader(new Uint8Array(8))).toMatchObject({ code: 'bad-field' });
    const gen = fromHex('01006558000064 00 fff0 01 05 00000000')!; // option longer than OptLen
    expect(decodeGeneveOptions(gen)).toMatchObject({ code: 'bad-option' });
  });
});

describe('AETH helpers', () => {
  it('classify the vector syndromes', () => {
    expect(aethClass(0x1f)).toBe('ack');
    expect(aethClass(0x2e)).toBe('rnr-nak');
    expect(aethClass(0x60)).toBe('nak');
    expect(aethClass(0x40)).toBe('reserved');
    expect(isPsnSeqErr(0x60)).toBe(true);
    expect(isNakOrRnr(0x2e) && isNakOrRnr(0x63) && !isNakOrRnr(0x1f)).toBe(true);
    expect(frameKindOfOpcode(0x11, 0x1f)).toBe(FrameKind.Ack);
    expect(frameKindOfOpcode(0x11, 0x2e)).toBe(FrameKind.Nak);
    expect(frameKindOfOpcode(0x11, 0x60)).toBe(FrameKind.Nak);
    expect(frameKindOfOpcode(0x11, 0x40)).toBeNull();
    expect(frameKindOfOpcode(0x81)).toBe(FrameKind.Cnp);
    expect(frameKindOfOpcode(0x2a)).toBe(FrameKind.Data);
    expect(frameKindOfOpcode(0x0c)).toBeNull();
  });

  it('build syndromes, credits and RNR timers as tshark decodes them', () => {
    expect(ackSyndrome()).toBe(0x1f);
    expect(rnrNakSyndrome(14)).toBe(0x2e);
    expect(nakSyndrome(0)).toBe(0x60);
    expect(rnrDelayNs(14)).toBe(1_280_000);
    expect(rnrDelayNs(0)).toBe(655_360_000);
    expect(rnrTimerCodeOf(1_280_000)).toBe(14);
    expect(rnrTimerCodeOf(1_000_000)).toBe(14);
    expect(rnrTimerCodeOf(600_000_000)).toBe(0);
    expect(creditsOfCode(31)).toBeNull();
    expect(creditsOfCode(30)).toBe(32768);
    expect(creditCodeOf(100)).toBe(14);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 30 }), (c) => creditCodeOf(creditsOfCode(c)!) === c),
      { numRuns: 31 },
    );
  });
});

describe('PSN, PFC, CNP, INT helpers', () => {
  it('PSN arithmetic wraps at 2^24', () => {
    expect(psnAdd(0xffffff, 1)).toBe(0);
    expect(psnAdd(0, -1)).toBe(0xffffff);
    expect(psnDiff(0, 0xffffff)).toBe(1);
    expect(psnDiff(0xffffff, 0)).toBe(-1);
    fc.assert(
      fc.property(
        u24,
        fc.integer({ min: -(2 ** 23), max: 2 ** 23 - 1 }),
        (a, d) => psnDiff(psnAdd(a, d), a) === d,
      ),
      RUNS,
    );
  });

  it('PFC quanta <-> ns at a line rate (5.12 ns per quantum at 100G)', () => {
    expect(pfcQuantumNs(100e9)).toBeCloseTo(5.12, 12);
    expect(pfcQuantaToNs(65535, 100e9)).toBe(335540); // 335539.2 rounded up
    expect(pfcQuantaToNs(0, 100e9)).toBe(0);
    expect(pfcQuantaToNs(1000, 25e9)).toBe(20480);
    expect(pfcNsToQuanta(20480, 25e9)).toBe(1000);
    expect(pfcNsToQuanta(1e9, 100e9)).toBe(65535);
    fc.assert(
      fc.property(u16, fc.constantFrom(25e9, 50e9, 100e9, 200e9, 400e9), (q, rate) => {
        // ns is rounded up, so converting back may need one more quantum, never fewer
        const ns = pfcQuantaToNs(q, rate);
        const back = pfcNsToQuanta(ns, rate);
        return (
          ns >= (q * 512e9) / rate &&
          ns - (q * 512e9) / rate < 1 &&
          (back === q || back === Math.min(q + 1, 65535))
        );
      }),
      RUNS,
    );
    const body = pfcBodyFor(3, 65535);
    expect(body).toEqual({ classEnable: 8, quanta: [0, 0, 0, 65535, 0, 0, 0, 0] });
    expect(pfcQuantaFor(body, 3)).toBe(65535);
    expect(pfcQuantaFor(body, 2)).toBeNull();
  });

  it('CNP extension helpers saturate', () => {
    expect(cnpResv7OfEcnCount(5)).toBe(5);
    expect(cnpResv7OfEcnCount(1000)).toBe(127);
    expect(cnpPsnOfPeriodNs(50_000)).toBe(50);
    expect(cnpPsnOfPeriodNs(2 ** 40)).toBe(0xffffff);
  });

  it('HPCC wrap-aware deltas and MPCC saturating pushes', () => {
    expect(hpccTimeDeltaNs(5, 2 ** 24 - 5)).toBe(10);
    expect(hpccTxBytesDelta(128, 2 ** 20 * 128 - 128)).toBe(256);
    const h = emptyHpccStack();
    for (let i = 0; i < 7; i++)
      pushHpccHop(h, { lineRateBps: 100e9, timeNs: i, txBytes: 0, qlenBytes: 0, activeFlows: 0 });
    expect(h.nhop).toBe(7);
    expect(h.hops.map((x) => x.timeNs)).toEqual([5, 6, 2, 3, 4]);
    const m = emptyMpccStack();
    for (let i = 0; i < 7; i++) pushMpccHop(m, 2 ** 40, 70000 + i);
    expect(m.nhop).toBe(7);
    expect(m.hops.length).toBe(5);
    expect(m.hops[0]).toMatchObject({ qlenBytes: 0xffffffff, activeFlows: 0xffff });
  });

  it('hex helpers', () => {
    expect(toHex(fromHex('0a ff')!)).toBe('0aff');
    expect(fromHex('abc')).toBeNull();
    expect(fromHex('zz')).toBeNull();
  });
});

describe('CRC-32 implementations agree', () => {
  it('native (when present) and JS tables give the same register for any split', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), fc.nat(), (b, cut) => {
        const k = b.length === 0 ? 0 : cut % b.length;
        const js = crc32UpdateJs(crc32UpdateJs(CRC32_INIT, b, 0, k), b, k, b.length);
        const mixed = crc32Update(crc32Update(CRC32_INIT, b, 0, k), b, k, b.length);
        return (js | 0) === (mixed | 0);
      }),
      RUNS,
    );
  });

  it('a run of zeros advanced without reading it equals feeding its bytes, from any register', () => {
    fc.assert(
      fc.property(fc.integer(), fc.nat({ max: 20_000 }), (reg, n) => {
        const fed = crc32UpdateJs(reg, new Uint8Array(n), 0, n);
        return (crc32UpdateZeros(reg, n) | 0) === (fed | 0);
      }),
      RUNS,
    );
    // a frame's worth after a prefix, and past 2^16 (more of the lazily built tables)
    const b = new Uint8Array(70_000);
    b.set([1, 2, 3, 250], 0);
    expect(crc32UpdateZeros(crc32UpdateJs(CRC32_INIT, b, 0, 4), b.length - 4) | 0).toBe(
      crc32UpdateJs(CRC32_INIT, b, 0, b.length) | 0,
    );
  });
});
