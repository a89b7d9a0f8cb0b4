/**
 * quantizeHpccHop / quantizeMpccHop are what virtual-time switches stamp: they must equal, for any
 * hop a switch could produce (and any other number), what a receiver decodes from the real wire.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decapsulate, encapsulate } from '../../src/wire/encap.js';
import { quantizeHpccHop, readHpccHop, writeHpccHop } from '../../src/wire/int-hpcc.js';
import { quantizeMpccHop } from '../../src/wire/int-mpcc.js';
import { FrameKind, type IntHop, type IntStack } from '../../src/wire/packet.js';
import { TrainReader, TrainWriter } from '../../src/wire/train.js';
import { arbPacket } from './arbitraries.js';

/** Any number: realistic counters, fractions, negatives, huge values, NaN, ±Infinity, −0. */
const anyNumber = fc.oneof(
  fc.nat({ max: 2 ** 40 }),
  fc.double({ min: 0, max: 2 ** 40, noNaN: true }),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 }),
  fc.double(),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 2 ** 53, 2 ** 60),
);

const anyRate = fc.oneof(
  fc.constantFrom(0, 25e9, 50e9, 100e9, 200e9, 400e9, 10e9, 40e9, 800e9, -1, Number.NaN),
  fc.double(),
);

const anyHop: fc.Arbitrary<IntHop> = fc.record({
  lineRateBps: anyRate,
  timeNs: anyNumber,
  txBytes: anyNumber,
  qlenBytes: anyNumber,
  activeFlows: anyNumber,
});

const anyMulti = fc.integer({ min: 1, max: 16 });

function hexOf(b: Uint8Array): string {
  return Buffer.from(b).toString('hex');
}

function stackOf(layout: 'hpcc' | 'mpcc'): fc.Arbitrary<IntStack> {
  return fc
    .integer({ min: 1, max: 12 })
    .chain((nhop) =>
      fc
        .array(anyHop, { minLength: Math.min(nhop, 5), maxLength: Math.min(nhop, 5) })
        .map((hops): IntStack => ({ layout, nhop, hops })),
    );
}

describe('quantizeHpccHop', () => {
  it('equals readHpccHop(writeHpccHop(hop)) on the hop word, for any hop and INT_MULTI', () => {
    fc.assert(
      fc.property(anyHop, anyMulti, (hop, multi) => {
        const word = new Uint8Array(8);
        writeHpccHop(word, 0, hop, multi);
        const q = quantizeHpccHop(hop, multi);
        expect({ ...q, activeFlows: 0 }).toEqual(readHpccHop(word, 0, multi));
      }),
      { numRuns: 5000 },
    );
  });

  it('is idempotent and encodes to the same bytes as the raw hop', () => {
    fc.assert(
      fc.property(anyHop, anyMulti, (hop, multi) => {
        const q = quantizeHpccHop(hop, multi);
        expect(quantizeHpccHop(q, multi)).toEqual(q);
        const a = new Uint8Array(8);
        const b = new Uint8Array(8);
        writeHpccHop(a, 0, hop, multi);
        writeHpccHop(b, 0, q, multi);
        expect(hexOf(b)).toBe(hexOf(a));
      }),
      { numRuns: 3000 },
    );
  });

  it('a Geneve round trip of an HPCC stack gives the quantised hops, active flows included', () => {
    fc.assert(
      fc.property(
        arbPacket({ telemetry: true, kinds: [FrameKind.Data], maxPayloadBytes: 64 }),
        stackOf('hpcc'),
        anyMulti,
        (pkt, st, multi) => {
          pkt.int = st;
          const back = decapsulate(encapsulate(pkt, { vni: 3, intMulti: multi }), { intMulti: multi });
          if ('code' in back) throw new Error(back.message);
          expect(back.int).toEqual({
            layout: 'hpcc',
            nhop: st.nhop,
            hops: st.hops.map((h) => quantizeHpccHop(h, multi)),
          });
        },
      ),
      { numRuns: 1500 },
    );
  });

  it("a train's round trip with INT_MULTI 4 (the real runtime's TrainWriter and TrainReader) gives the quantised hops", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            arbPacket({ telemetry: true, kinds: [FrameKind.Data], maxPayloadBytes: 64 }),
            stackOf('hpcc'),
          ),
          { minLength: 1, maxLength: 4 },
        ),
        (frames) => {
          const w = new TrainWriter({ maxDatagramBytes: 65_507, intMulti: 4 });
          w.begin(5, 0);
          for (const [pkt, st] of frames) {
            pkt.int = st;
            expect(w.append(pkt, 1000)).toBe(true);
          }
          const r = new TrainReader();
          expect(r.reset(w.finish(2000))).toBeNull();
          expect(r.count).toBe(frames.length);
          for (const [i, [, st]] of frames.entries()) {
            const back = decapsulate(r.packet(i), { intMulti: 4 });
            if ('code' in back) throw new Error(back.message);
            expect(back.int).toEqual({
              layout: 'hpcc',
              nhop: st.nhop,
              hops: st.hops.map((h) => quantizeHpccHop(h, 4)),
            });
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps what the wire keeps exactly: a 100G hop with whole units', () => {
    const hop = {
      lineRateBps: 100e9,
      timeNs: 5_000_123,
      txBytes: 128 * 77,
      qlenBytes: 80 * 3,
      activeFlows: 2,
    };
    expect(quantizeHpccHop(hop)).toEqual(hop);
    // and rounds the rest down: 1 ns past the 24-bit wrap, 127 B short of a unit, 79 B of queue
    expect(
      quantizeHpccHop({
        lineRateBps: 10e9,
        timeNs: 2 ** 24 + 1,
        txBytes: 255,
        qlenBytes: 79,
        activeFlows: 70_000,
      }),
    ).toEqual({ lineRateBps: 25e9, timeNs: 1, txBytes: 128, qlenBytes: 0, activeFlows: 0xffff });
  });
});

describe('quantizeMpccHop', () => {
  it('a Geneve round trip of an MPCC block gives the quantised hops', () => {
    fc.assert(
      fc.property(
        arbPacket({ telemetry: true, kinds: [FrameKind.Data], maxPayloadBytes: 64 }),
        stackOf('mpcc'),
        (pkt, st) => {
          pkt.int = st;
          const back = decapsulate(encapsulate(pkt, { vni: 3 }));
          if ('code' in back) throw new Error(back.message);
          expect(back.int).toEqual({ layout: 'mpcc', nhop: st.nhop, hops: st.hops.map(quantizeMpccHop) });
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(anyHop, (hop) => {
        const q = quantizeMpccHop(hop);
        expect(quantizeMpccHop(q)).toEqual(q);
      }),
    );
  });
});
