/**
 * Frame trains, promises and link sequence numbers (docs/wire.md §6.1 Frame trains to §6.3 Link sequence).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../../src/wire/bytes.js';
import {
  createDecapsulatedMeta,
  decapsulate,
  decapsulateAt,
  encapsulate,
  encapsulatedBytes,
  packetOptionsBytes,
  readArrivalNs,
} from '../../src/wire/encap.js';
import { type DecodeError, isDecodeError, WireEncodeError } from '../../src/wire/errors.js';
import { decodeGeneveHeader, decodeGeneveOptions, GENEVE_MAX_OPTIONS_BYTES } from '../../src/wire/geneve.js';
import { Opcode } from '../../src/wire/opcodes.js';
import { Ecn, FrameKind, type Packet } from '../../src/wire/packet.js';
import { createExt, createPacket } from '../../src/wire/packet-factory.js';
import { emulatedSizeBytes } from '../../src/wire/size.js';
import { OptionType, ROCELAB_OPTION_CLASS } from '../../src/wire/telemetry.js';
import {
  controlPacketBytes,
  encodeControl,
  forEachTrainPacket,
  isControlPacket,
  linkSeqDiff,
  readLinkSeq,
  readPromise,
  TrainReader,
  TrainWriter,
} from '../../src/wire/train.js';
import { arbPromiseNs, arbStampNs, arbTrainFrame, type TrainFrame, u32 } from './arbitraries.js';

function must<T>(v: T): Exclude<T, DecodeError> {
  if (isDecodeError(v)) throw new Error(`${v.code}: ${v.message}`);
  return v as Exclude<T, DecodeError>;
}

function dataPacket(psn: number, payloadLen = 100): Packet {
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
  p.psn = psn;
  p.payloadLen = payloadLen;
  p.prio = 3;
  p.sizeBytes = emulatedSizeBytes(p);
  return p;
}

/** Frames whose telemetry leaves room for every runtime option (stamp, seq, promise, train length). */
function fitsRuntimeOptions(f: TrainFrame): boolean {
  try {
    const n = packetOptionsBytes(f.pkt, { vni: 0, arrivalNs: 0, linkSeq: 0, promiseNs: 0 });
    return n + 8 <= GENEVE_MAX_OPTIONS_BYTES;
  } catch {
    return false;
  }
}

interface Sent {
  buf: Buffer;
  frames: TrainFrame[];
  linkSeq: number;
  finalPromise: number | undefined;
}

/** What a sending link does: greedy packing, a new datagram when the next frame does not fit. */
function pack(
  frames: TrainFrame[],
  w: TrainWriter,
  vni: number,
  seq0: number,
  finalPromise: number | undefined,
): Sent[] {
  const out: Sent[] = [];
  let seq = seq0;
  let cur: TrainFrame[] = [];
  w.begin(vni, seq);
  for (const f of frames) {
    if (!w.append(f.pkt, f.arrivalNs, f.promiseNs)) {
      out.push({ buf: w.finish(), frames: cur, linkSeq: seq, finalPromise: undefined });
      seq = (seq + 1) >>> 0;
      cur = [];
      w.begin(vni, seq);
      expect(w.append(f.pkt, f.arrivalNs, f.promiseNs)).toBe(true);
    }
    cur.push(f);
  }
  out.push({ buf: w.finish(finalPromise), frames: cur, linkSeq: seq, finalPromise });
  return out;
}

describe('TrainWriter / TrainReader', () => {
  it('carries any sequence of frames losslessly, in order, in datagrams no larger than asked (fast-check)', () => {
    const reader = new TrainReader();
    const meta = createDecapsulatedMeta();
    const meta2 = createDecapsulatedMeta();
    fc.assert(
      fc.property(
        fc.array(arbTrainFrame(), { minLength: 1, maxLength: 24 }),
        fc.oneof(fc.constantFrom(1600, 9000, 65507), fc.integer({ min: 1600, max: 4000 })),
        fc.integer({ min: 0, max: 0xffffff }),
        u32,
        fc.option(arbPromiseNs, { nil: undefined }),
        (all, max, vni, seq0, finalPromise) => {
          const frames = all.filter(fitsRuntimeOptions);
          if (frames.length === 0) return;
          const sent = pack(frames, new TrainWriter({ maxDatagramBytes: max }), vni, seq0, finalPromise);
          const received: Packet[] = [];
          for (const [k, s] of sent.entries()) {
            expect(s.buf.length).toBeLessThanOrEqual(max);
            expect(reader.reset(s.buf, max)).toBeNull();
            expect(reader.control).toBe(false);
            expect(reader.count).toBe(s.frames.length);
            expect(reader.linkSeq).toBe((seq0 + k) >>> 0);
            expect(readLinkSeq(s.buf)).toBe(reader.linkSeq);
            const promises: number[] = [];
            let end = 0;
            for (let i = 0; i < reader.count; i++) {
              expect(reader.offset(i)).toBe(end);
              end += reader.length(i);
              const f = s.frames[i];
              const last = i === reader.count - 1;
              const got = must(decapsulate(reader.packet(i), {}, meta));
              received.push(got);
              // In place (a receiving node's way) it decodes the same.
              const at = reader.offset(i);
              expect(decapsulateAt(reader.datagram, at, at + reader.length(i), {}, meta2)).toEqual(got);
              expect(meta2).toEqual(meta);
              expect(meta.arrivalNs).toBe(f.arrivalNs ?? null);
              expect(meta.linkSeq).toBe(i === 0 ? s.linkSeq : null);
              const promise = last && s.finalPromise !== undefined ? s.finalPromise : f.promiseNs;
              expect(meta.promiseNs).toBe(promise ?? null);
              expect(readPromise(s.buf, reader.offset(i))).toBe(promise ?? null);
              if (promise !== undefined) promises.push(promise);
              // every packet but the last says how long its inner frame is
              const types = must(decodeGeneveOptions(reader.packet(i))).map((o) => o.type);
              expect(types.includes(OptionType.TrainLen)).toBe(!last);
            }
            expect(end).toBe(s.buf.length);
            expect(reader.promiseNs).toBe(promises.length === 0 ? null : Math.max(...promises));
          }
          expect(received).toEqual(frames.map((f) => f.pkt));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('decapsulateAt of a damaged packet in a train fails exactly as decapsulate of its view', () => {
    const reader = new TrainReader();
    fc.assert(
      fc.property(
        fc.array(arbTrainFrame(), { minLength: 2, maxLength: 6 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (all, where, flip) => {
          const frames = all.filter(fitsRuntimeOptions);
          if (frames.length < 2) return;
          const sent = pack(frames, new TrainWriter({ maxDatagramBytes: 65507 }), 3, 0, undefined);
          const buf = Buffer.from(sent[0].buf);
          expect(reader.reset(buf)).toBeNull();
          const k = where % reader.count;
          const at = reader.offset(k);
          const len = reader.length(k);
          // Damage one byte of packet k after the train was validated (its own checks follow).
          buf[at + ((where >>> 3) % len)] ^= flip;
          const view = decapsulate(buf.subarray(at, at + len), { verifyIcrc: true });
          const inPlace = decapsulateAt(buf, at, at + len, { verifyIcrc: true });
          expect(inPlace).toEqual(view);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a one-frame datagram is byte for byte what encapsulate writes (the unchanged format)', () => {
    fc.assert(
      fc.property(arbTrainFrame(), fc.option(u32, { nil: undefined }), (f, linkSeq) => {
        if (!fitsRuntimeOptions(f)) return;
        const w = new TrainWriter({ maxDatagramBytes: 65507 });
        w.begin(9, linkSeq);
        expect(w.append(f.pkt, f.arrivalNs)).toBe(true);
        const opts = { vni: 9, arrivalNs: f.arrivalNs, linkSeq };
        const one = encapsulate(f.pkt, opts);
        expect(w.bytes).toBe(encapsulatedBytes(f.pkt, opts));
        expect(toHex(w.finish())).toBe(toHex(one));
        if (linkSeq === undefined) {
          const plain = encapsulate(
            f.pkt,
            f.arrivalNs === undefined ? { vni: 9 } : { vni: 9, arrivalNs: f.arrivalNs },
          );
          expect(toHex(one)).toBe(toHex(plain));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('packs greedily: exactly as many frames as fit, a promise always has room', () => {
    const frame = (psn: number) => dataPacket(psn, 200);
    const one = encapsulatedBytes(frame(0), { vni: 1, arrivalNs: 0 });
    // k frames need k·one + (k−1)·8 train lengths + 8 link sequence + 12 reserved for a promise
    const k = 5;
    const max = k * one + (k - 1) * 8 + 8 + 12;
    for (const slack of [0, -1]) {
      const w = new TrainWriter({ maxDatagramBytes: max + slack });
      w.begin(1, 0);
      let n = 0;
      while (w.append(frame(n), 1000 + n)) n++;
      expect(n).toBe(slack === 0 ? k : k - 1);
      const d = w.finish(5e9);
      expect(d.length).toBe(max + (slack === 0 ? 0 : -(one + 8)));
      const r = new TrainReader();
      expect(r.reset(d)).toBeNull();
      expect(r.count).toBe(n);
      expect(r.promiseNs).toBe(5e9);
    }
    const w = new TrainWriter({ maxDatagramBytes: 200 });
    w.begin(1);
    expect(() => w.append(dataPacket(0, 1000))).toThrow(/maxDatagramBytes/);
    expect(() => new TrainWriter({ maxDatagramBytes: 70_000 })).toThrow(WireEncodeError);
    expect(() => new TrainWriter().append(dataPacket(0))).toThrow(/begin/);
  });

  it('a packet the encoder refuses leaves the datagram as it was', () => {
    const w = new TrainWriter();
    w.begin(1, 5);
    w.append(dataPacket(1), 10);
    const before = w.bytes;
    const bad = dataPacket(2);
    bad.opcode = Opcode.Acknowledge; // a Data packet with an ACK opcode
    expect(() => w.append(bad, 11)).toThrow(WireEncodeError);
    expect(w.bytes).toBe(before);
    expect(w.frames).toBe(1);
    expect(w.append(dataPacket(3), 12)).toBe(true);
    const r = new TrainReader();
    const d = w.finish();
    expect(r.reset(d)).toBeNull();
    expect([0, 1].map((i) => must(decapsulate(r.packet(i))).psn)).toEqual([1, 3]);
  });

  it('a frame appended with a promise takes the later promise of finish, not a second option', () => {
    const w = new TrainWriter();
    w.begin(3, 7);
    w.append(dataPacket(1), 10, 20);
    w.append(dataPacket(2), 11, 21);
    const d = w.finish(30);
    const r = new TrainReader();
    expect(r.reset(d)).toBeNull();
    expect(readPromise(d, r.offset(0))).toBe(20);
    expect(readPromise(d, r.offset(1))).toBe(30);
    expect(must(decodeGeneveOptions(r.packet(1))).filter((o) => o.type === OptionType.Promise)).toHaveLength(
      1,
    );
    expect(r.promiseNs).toBe(30);
    expect(readArrivalNs(r.packet(1))).toBe(11);
  });
});

describe('control packets (promise alone)', () => {
  it('carry the promise and link sequence with the O bit set and no frame', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0xffffff }),
        arbPromiseNs,
        fc.option(u32, { nil: undefined }),
        (vni, promiseNs, linkSeq) => {
          const c = encodeControl({ vni, promiseNs, linkSeq });
          expect(c.length).toBe(controlPacketBytes({ vni, promiseNs, linkSeq }));
          const h = must(decodeGeneveHeader(c));
          expect(h).toMatchObject({ version: 0, oam: true, critical: false, protocol: 0x6558, vni });
          expect(isControlPacket(c)).toBe(true);
          expect(readPromise(c)).toBe(promiseNs);
          expect(readLinkSeq(c)).toBe(linkSeq ?? null);
          const r = new TrainReader();
          expect(r.reset(c)).toBeNull();
          expect(r).toMatchObject({ control: true, count: 1, promiseNs, linkSeq: linkSeq ?? null });
          // decapsulate takes frames only
          expect(decapsulate(c)).toMatchObject({ code: 'unsupported' });
          // an empty writer finishes into the same control packet
          const w = new TrainWriter();
          w.begin(vni, linkSeq);
          expect(toHex(w.finish(promiseNs))).toBe(toHex(c));
        },
      ),
      { numRuns: 300 },
    );
    expect(isControlPacket(encapsulate(dataPacket(1), { vni: 1 }))).toBe(false);
    expect(() => encodeControl({ vni: 1, promiseNs: Number.NaN })).toThrow(WireEncodeError);
    expect(() => encodeControl({ vni: 1, promiseNs: 1, linkSeq: -1 })).toThrow(WireEncodeError);
    const w = new TrainWriter();
    w.begin(1);
    expect(() => w.finish()).toThrow(/no frame and no promise/);
  });

  it('ride on a data frame too, through encapsulate', () => {
    fc.assert(
      fc.property(arbTrainFrame(), arbStampNs, u32, (f, promiseNs, linkSeq) => {
        if (!fitsRuntimeOptions(f)) return;
        const d = encapsulate(f.pkt, { vni: 2, promiseNs, linkSeq });
        const meta = createDecapsulatedMeta();
        expect(must(decapsulate(d, {}, meta))).toEqual(f.pkt);
        expect(meta).toEqual({ arrivalNs: null, promiseNs, linkSeq, endBoundNs: null, heardNs: null });
        expect(readPromise(d)).toBe(promiseNs);
        expect(readLinkSeq(d)).toBe(linkSeq);
      }),
      { numRuns: 300 },
    );
  });
});

describe("lockstep's trailer: end bound, heard promise and ack", () => {
  it('ride on a control packet and on the last frame of a train, and read back', () => {
    fc.assert(
      fc.property(
        arbPromiseNs,
        arbPromiseNs,
        fc.option(arbPromiseNs, { nil: undefined }),
        fc.option(u32, { nil: undefined }),
        (promiseNs, endBoundNs, heardNs, ackSeq) => {
          const trailer = { endBoundNs, heardNs, ackSeq };
          const c = encodeControl({ vni: 3, promiseNs, linkSeq: 9, ...trailer });
          expect(c.length).toBe(controlPacketBytes({ vni: 3, promiseNs, linkSeq: 9, ...trailer }));
          const r = new TrainReader();
          expect(r.reset(c)).toBeNull();
          expect(r).toMatchObject({
            control: true,
            promiseNs,
            endBoundNs,
            heardNs: heardNs ?? null,
            ackSeq: ackSeq ?? null,
          });
          const w = new TrainWriter({ maxDatagramBytes: 1472, reserveEndBound: true });
          w.begin(3, 9);
          while (w.append(dataPacket(w.frames, 300), 100)) {}
          const d = w.finish(promiseNs, trailer);
          // the reserve holds the whole trailer: a full train never outgrows the path's MTU
          expect(d.length).toBeLessThanOrEqual(1472);
          expect(r.reset(d)).toBeNull();
          expect(r).toMatchObject({ control: false, promiseNs, endBoundNs, ackSeq: ackSeq ?? null });
        },
      ),
      { numRuns: 200 },
    );
    expect(() => encodeControl({ vni: 1, promiseNs: 1, ackSeq: 2 ** 32 })).toThrow(/ackSeq/);
  });

  it('a trailer without a promise is refused, never dropped unsaid', () => {
    const w = new TrainWriter({ maxDatagramBytes: 1472, reserveEndBound: true });
    w.begin(3, 9);
    w.append(dataPacket(0, 300), 100);
    expect(() => w.finish(undefined, { ackSeq: 5 })).toThrow(/trailer goes with a promise/);
    // an empty trailer is no trailer
    expect(w.finish(undefined, {}).length).toBeGreaterThan(300);
  });
});

describe('overlay NACK: the gap a receiver misses', () => {
  it('carries the first missing sequence and, in its 8-byte form, how many are missing', () => {
    fc.assert(
      fc.property(
        u32,
        fc.option(fc.integer({ min: 1, max: 2 ** 32 - 1 }), { nil: undefined }),
        (from, count) => {
          const opts = { vni: 2, promiseNs: Number.NEGATIVE_INFINITY, nackSeq: from, nackCount: count };
          const c = encodeControl(opts);
          expect(c.length).toBe(controlPacketBytes(opts));
          const r = new TrainReader();
          expect(r.reset(c)).toBeNull();
          expect(r.nackSeq).toBe(from);
          // The 4-byte form names no count: everything from the first missing sequence on.
          expect(r.nackCount).toBe(count ?? Number.POSITIVE_INFINITY);
          // A reader reused for a datagram without a NACK forgets the last one.
          expect(r.reset(encodeControl({ vni: 2, promiseNs: 1 }))).toBeNull();
          expect([r.nackSeq, r.nackCount]).toEqual([null, Number.POSITIVE_INFINITY]);
        },
      ),
      { numRuns: 200 },
    );
    expect(() => encodeControl({ vni: 1, promiseNs: 1, nackSeq: 5, nackCount: 0 })).toThrow(/nackCount/);
  });
});

describe('malformed datagrams are typed errors', () => {
  const opt = (type: number, data: string) =>
    `fff0${type.toString(16).padStart(2, '0')}${(data.length / 8).toString(16).padStart(2, '0')}${data}`;
  /** A Geneve packet from option hex and inner hex; `oam` sets the O bit. */
  const pkt = (opts: string, inner: string, oam = false) =>
    `${(opts.length / 8).toString(16).padStart(2, '0')}${oam ? '80' : '00'}6558000001 00`.replace(' ', '') +
    opts +
    inner;
  const frame = toHex(encapsulate(dataPacket(1, 4), { vni: 1 }).subarray(8));
  const frameBytes = frame.length / 2;
  const u32hex = (v: number) => v.toString(16).padStart(8, '0');
  const f64hex = (v: number) => {
    const b = Buffer.alloc(8);
    b.writeDoubleBE(v);
    return b.toString('hex');
  };
  const train = (len: number) => pkt(opt(0x22, u32hex(len)), frame) + pkt('', frame);

  const cases: [string, string, string][] = [
    ['empty datagram', '', 'truncated'],
    ['train length overruns the datagram', train(2 * frameBytes + 100), 'bad-length'],
    ['train length lands inside the next packet', train(frameBytes + 4), 'unsupported'],
    ['train length 0', pkt(opt(0x22, u32hex(0)), '') + pkt('', frame), 'bad-length'],
    ['train length on the last packet', pkt(opt(0x22, u32hex(frameBytes)), frame), 'bad-length'],
    [
      'train length of 8 bytes',
      pkt(opt(0x22, `${u32hex(frameBytes)}00000000`), frame) + pkt('', frame),
      'bad-option',
    ],
    [
      'two train lengths',
      pkt(opt(0x22, u32hex(frameBytes)) + opt(0x22, u32hex(frameBytes)), frame) + pkt('', frame),
      'bad-option',
    ],
    ['second packet cut short', `${pkt(opt(0x22, u32hex(frameBytes)), frame)}000065`, 'truncated'],
    [
      'second packet is Geneve version 1',
      pkt(opt(0x22, u32hex(frameBytes)), frame) + `4${pkt('', frame).slice(1)}`,
      'bad-version',
    ],
    ['second packet without a frame', pkt(opt(0x22, u32hex(frameBytes)), frame) + pkt('', ''), 'bad-length'],
    [
      'link sequence on the second packet',
      pkt(opt(0x22, u32hex(frameBytes)), frame) + pkt(opt(0x24, u32hex(1)), frame),
      'bad-option',
    ],
    ['link sequence of 8 bytes', pkt(opt(0x24, `${u32hex(1)}00000000`), frame), 'bad-option'],
    ['nack count 0', pkt(opt(0x27, `${u32hex(7)}00000000`) + opt(0x23, f64hex(5)), '', true), 'bad-option'],
    [
      'nack of 12 bytes',
      pkt(opt(0x27, `${u32hex(7)}${u32hex(1)}${u32hex(1)}`) + opt(0x23, f64hex(5)), '', true),
      'bad-option',
    ],
    ['promise NaN', pkt(opt(0x23, '7ff8000000000000'), frame), 'bad-option'],
    ['promise of 4 bytes', pkt(opt(0x23, u32hex(1)), frame), 'bad-option'],
    ['control packet with a frame', pkt(opt(0x23, f64hex(5)), frame, true), 'bad-length'],
    ['control packet without a promise', pkt(opt(0x24, u32hex(5)), '', true), 'bad-option'],
    [
      'control packet inside a train',
      pkt(opt(0x22, u32hex(frameBytes)), frame) + pkt(opt(0x23, f64hex(5)), '', true),
      'bad-length',
    ],
    [
      'option runs past OptLen',
      `02006558000001 00`.replace(' ', '') + 'fff0230200000000' + frame,
      'bad-option',
    ],
    ['foreign critical option', pkt('01018500', frame), 'unsupported'],
    ['not Ethernet', pkt('', frame).replace('6558', '0800'), 'unsupported'],
  ];
  for (const [what, h, code] of cases) {
    it(`${what} → ${code}`, () => {
      const buf = fromHex(h)!;
      expect(buf).not.toBeNull();
      expect(new TrainReader().reset(buf)).toMatchObject({ code });
      expect(forEachTrainPacket(buf, () => {})).toMatchObject({ code });
    });
  }

  it('a well-formed train of two reads back, and decapsulate refuses it whole', () => {
    const buf = fromHex(train(frameBytes))!;
    const seen: [number, number][] = [];
    expect(forEachTrainPacket(buf, (o, l) => seen.push([o, l]))).toBeNull();
    expect(seen).toEqual([
      [0, 16 + frameBytes],
      [16 + frameBytes, 8 + frameBytes],
    ]);
    expect(decapsulate(buf)).toMatchObject({ code: 'bad-length' });
    expect(must(decapsulate(buf.subarray(0, 16 + frameBytes))).psn).toBe(1);
  });

  it('oversized datagrams are refused before any walk', () => {
    const w = new TrainWriter({ maxDatagramBytes: 9000 });
    w.begin(1);
    for (let i = 0; i < 5; i++) w.append(dataPacket(i, 1000));
    const d = w.finish();
    expect(new TrainReader().reset(d, 2000)).toMatchObject({ code: 'oversized' });
  });

  it('never throws on random or mutated bytes', () => {
    const w = new TrainWriter({ maxDatagramBytes: 9000 });
    w.begin(4, 11);
    for (let i = 0; i < 4; i++) w.append(dataPacket(i, 30 * i), i * 100);
    const good = w.finish(1e6);
    const r = new TrainReader();
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }),
          fc
            .tuple(
              fc.integer({ min: 0, max: good.length - 1 }),
              fc.integer({ min: 0, max: 255 }),
              fc.nat(good.length),
            )
            .map(([at, v, cut]) => {
              const b = Buffer.from(good);
              b[at] = v;
              return b.subarray(0, cut);
            }),
        ),
        (b) => {
          const err = r.reset(b);
          if (err === null) {
            let end = 0;
            for (let i = 0; i < r.count; i++) {
              expect(r.offset(i)).toBe(end);
              expect(r.length(i)).toBeGreaterThan(8);
              end += r.length(i);
              decapsulate(r.packet(i));
            }
            expect(end).toBe(b.length);
          } else {
            expect(typeof err.code).toBe('string');
            expect(r.count).toBe(0);
          }
          readPromise(b);
          readLinkSeq(b);
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('decapsulate and the new options', () => {
  it('validates a train length against its slice, and promise and link sequence lengths', () => {
    const p = dataPacket(3, 8);
    const plain = encapsulate(p, { vni: 1 });
    const inner = plain.subarray(8);
    const mk = (opts: string) =>
      Buffer.concat([
        fromHex(`${(opts.length / 8).toString(16).padStart(2, '0')}00655800000100`)!,
        fromHex(opts)!,
        inner,
      ]);
    const n = inner.length.toString(16).padStart(8, '0');
    expect(must(decapsulate(mk(`fff02201${n}`))).psn).toBe(3);
    expect(decapsulate(mk('fff0220100000001'))).toMatchObject({ code: 'bad-length' });
    expect(decapsulate(mk('fff02202000000010000000'.padEnd(24, '0')))).toMatchObject({ code: 'bad-option' });
    expect(decapsulate(mk('fff0240100000009'))).not.toHaveProperty('code');
    expect(decapsulate(mk('fff02400'))).toMatchObject({ code: 'bad-option' });
    expect(decapsulate(mk('fff02301deadbeef'))).toMatchObject({ code: 'bad-option' });
    expect(decapsulate(mk('fff023027ff8000000000001'))).toMatchObject({ code: 'bad-option' });
    const opts = must(
      decodeGeneveOptions(encapsulate(p, { vni: 1, arrivalNs: 5, linkSeq: 6, promiseNs: 7 })),
    );
    expect(opts.map((o) => [o.optionClass, o.type, o.dataBytes])).toEqual([
      [ROCELAB_OPTION_CLASS, OptionType.ArrivalTs, 8],
      [ROCELAB_OPTION_CLASS, OptionType.LinkSeq, 4],
      [ROCELAB_OPTION_CLASS, OptionType.Promise, 8],
    ]);
    expect(() => encapsulate(p, { vni: 1, linkSeq: 2 ** 32 })).toThrow(WireEncodeError);
    expect(() => encapsulate(p, { vni: 1, promiseNs: Number.NaN })).toThrow(WireEncodeError);
  });
});

describe('link sequence arithmetic and option limits', () => {
  it('linkSeqDiff counts gaps and late datagrams across the u32 wrap', () => {
    expect(linkSeqDiff(5, 5)).toBe(0);
    expect(linkSeqDiff(8, 5)).toBe(3);
    expect(linkSeqDiff(4, 5)).toBe(-1);
    expect(linkSeqDiff(1, 0xffff_ffff)).toBe(2);
    expect(linkSeqDiff(0xffff_fffe, 1)).toBe(-3);
    fc.assert(
      fc.property(u32, fc.integer({ min: -1000, max: 1000 }), (expected, d) => {
        expect(linkSeqDiff((expected + d) >>> 0, expected)).toBe(d);
      }),
    );
  });

  it('a last packet whose options are full cannot take a promise: finish says so, and works without one', () => {
    const p = dataPacket(1, 8);
    const fields: Record<string, number> = {};
    p.ext = { ...createExt(), fields };
    const room = () => packetOptionsBytes(p, { vni: 1, arrivalNs: 0, linkSeq: 0 });
    // fill to within 8 bytes of the limit: neither a train length nor a promise fits any more
    for (let i = 0; room() <= GENEVE_MAX_OPTIONS_BYTES - 8; i++) fields[`f${i}`] = i;
    const w = new TrainWriter();
    w.begin(1, 0);
    expect(w.append(p, 5)).toBe(true);
    expect(w.append(dataPacket(2, 8), 6)).toBe(false); // no room for its train length either
    expect(() => w.finish(100)).toThrow(/no room for a promise/);
    const d = w.finish();
    const meta = createDecapsulatedMeta();
    expect(must(decapsulate(d, {}, meta)).ext?.fields).toEqual(fields);
    expect(meta).toMatchObject({ arrivalNs: 5, linkSeq: 0, promiseNs: null });
  });
});
