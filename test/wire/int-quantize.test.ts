/**
 * quantizeHpccHop / quantizeMpccHop are what virtual-time switches stamp: they must equal, for any
 * hop a switch could produce (and any other number) and any run's HPCC rate table, what a
 * receiver decodes from the real wire; a rate the table has no code for is refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decapsulate, encapsulate } from '../../src/wire/encap.js';
import { WireEncodeError } from '../../src/wire/errors.js';
import {
  encodeHpccInt,
  HPCC_INT_BYTES,
  HPCC_QLEN_MODULO,
  HPCC_QLEN_UNIT,
  HPCC_RATE_CODES,
  hpccRateCode,
  hpccRateOfCode,
  hpccRateTable,
  NS3_HPCC_RATES_BPS,
  quantizeHpccHop,
  readHpccHop,
  writeHpccHop,
} from '../../src/wire/int-hpcc.js';
import { quantizeMpccHop } from '../../src/wire/int-mpcc.js';
import { FrameKind, type IntHop, type IntStack, type Packet } from '../../src/wire/packet.js';
import { createPacket } from '../../src/wire/packet-factory.js';
import { emulatedSizeBytes } from '../../src/wire/size.js';
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

/** Rates a user may pick, ns-3's and others, and numbers no link has. */
const someRates = [10e9, 12.5e9, 25e9, 40e9, 50e9, 100e9, 200e9, 400e9, 800e9, 1.6e12, 1e6, 1];

/** A run's line-rate table: the ns-3 one, or 1..8 distinct positive rates (docs/wire.md "Rate codes"). */
const anyTable: fc.Arbitrary<readonly number[]> = fc.oneof(
  fc.constant(NS3_HPCC_RATES_BPS),
  fc.uniqueArray(fc.oneof(fc.constantFrom(...someRates), fc.integer({ min: 1, max: 2 ** 42 })), {
    minLength: 1,
    maxLength: HPCC_RATE_CODES,
  }),
);

/** A hop a switch of a run with `table` could stamp (any rate of the table, or 0 when a code is free). */
function hopIn(table: readonly number[]): fc.Arbitrary<IntHop> {
  return fc.record({
    lineRateBps: fc.constantFrom(...table, ...(table.length < HPCC_RATE_CODES ? [0] : [])),
    timeNs: anyNumber,
    txBytes: anyNumber,
    qlenBytes: anyNumber,
    activeFlows: anyNumber,
  });
}

const tableAndHop = anyTable.chain((t) => fc.tuple(fc.constant(t), hopIn(t)));

/** Any hop (its rate need not be in a table): for the MPCC block, which carries no rate. */
const anyHop: fc.Arbitrary<IntHop> = fc.record({
  lineRateBps: fc.oneof(fc.constantFrom(0, -1, Number.NaN, ...someRates), fc.double()),
  timeNs: anyNumber,
  txBytes: anyNumber,
  qlenBytes: anyNumber,
  activeFlows: anyNumber,
});

const anyMulti = fc.integer({ min: 1, max: 16 });

function hexOf(b: Uint8Array): string {
  return Buffer.from(b).toString('hex');
}

function stackOf(layout: 'hpcc' | 'mpcc', hop: fc.Arbitrary<IntHop> = anyHop): fc.Arbitrary<IntStack> {
  return fc
    .integer({ min: 1, max: 12 })
    .chain((nhop) =>
      fc
        .array(hop, { minLength: Math.min(nhop, 5), maxLength: Math.min(nhop, 5) })
        .map((hops): IntStack => ({ layout, nhop, hops })),
    );
}

/**
 * Ext fields are tested elsewhere; here they would leave an HPCC stack with both side options
 * (active flows, qlen high bits) past Geneve's 252 bytes of options.
 */
function dropFields(pkt: Packet): void {
  if (pkt.ext !== null) pkt.ext.fields = null;
}

const tableAndStack = anyTable.chain((t) => fc.tuple(fc.constant(t), stackOf('hpcc', hopIn(t))));

describe('quantizeHpccHop', () => {
  it('equals readHpccHop(writeHpccHop(hop)) on the hop word, for any rate table, hop and INT_MULTI', () => {
    fc.assert(
      fc.property(tableAndHop, anyMulti, ([table, hop], multi) => {
        const word = new Uint8Array(8);
        writeHpccHop(word, 0, hop, multi, table);
        const q = quantizeHpccHop(hop, multi, table);
        // The hop word holds qlen's low 17 bits of units; the rest rides in option 0x04.
        const unit = HPCC_QLEN_UNIT * multi;
        const low = ((q.qlenBytes / unit) % HPCC_QLEN_MODULO) * unit;
        expect({ ...q, activeFlows: 0, qlenBytes: low }).toEqual(readHpccHop(word, 0, multi, table));
        // The rate is carried exactly: a table's rates never snap to another.
        expect(q.lineRateBps).toBe(hop.lineRateBps);
      }),
      { numRuns: 5000 },
    );
  });

  it('is idempotent and encodes to the same bytes as the raw hop', () => {
    fc.assert(
      fc.property(tableAndHop, anyMulti, ([table, hop], multi) => {
        const q = quantizeHpccHop(hop, multi, table);
        expect(quantizeHpccHop(q, multi, table)).toEqual(q);
        const a = new Uint8Array(8);
        const b = new Uint8Array(8);
        writeHpccHop(a, 0, hop, multi, table);
        writeHpccHop(b, 0, q, multi, table);
        expect(hexOf(b)).toBe(hexOf(a));
      }),
      { numRuns: 3000 },
    );
  });

  it('a rate the table has no code for is refused (WireEncodeError), never snapped to another', () => {
    fc.assert(
      fc.property(anyTable, anyHop, anyMulti, (table, hop, multi) => {
        const coded =
          table.includes(hop.lineRateBps) || (hop.lineRateBps === 0 && table.length < HPCC_RATE_CODES);
        fc.pre(!coded);
        expect(() => quantizeHpccHop(hop, multi, table)).toThrow(WireEncodeError);
        expect(() => writeHpccHop(new Uint8Array(8), 0, hop, multi, table)).toThrow(WireEncodeError);
        const st: IntStack = { layout: 'hpcc', nhop: 1, hops: [hop] };
        expect(() => encodeHpccInt(new Uint8Array(HPCC_INT_BYTES), 0, st, multi, table)).toThrow(
          /has no HPCC INT rate code/,
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('a Geneve round trip of an HPCC stack gives the quantised hops, active flows included', () => {
    fc.assert(
      fc.property(
        arbPacket({ telemetry: true, kinds: [FrameKind.Data], maxPayloadBytes: 64 }),
        tableAndStack,
        anyMulti,
        (pkt, [table, st], multi) => {
          dropFields(pkt);
          pkt.int = st;
          const opts = { intMulti: multi, intRatesBps: table };
          const back = decapsulate(encapsulate(pkt, { vni: 3, ...opts }), opts);
          if ('code' in back) throw new Error(back.message);
          expect(back.int).toEqual({
            layout: 'hpcc',
            nhop: st.nhop,
            hops: st.hops.map((h) => quantizeHpccHop(h, multi, table)),
          });
        },
      ),
      { numRuns: 1500 },
    );
  });

  it("a train's round trip with INT_MULTI 4 and a run's table (the real runtime's TrainWriter and TrainReader) gives the quantised hops", () => {
    fc.assert(
      fc.property(
        anyTable.chain((t) =>
          fc.tuple(
            fc.constant(t),
            fc.array(
              fc.tuple(
                arbPacket({ telemetry: true, kinds: [FrameKind.Data], maxPayloadBytes: 64 }),
                stackOf('hpcc', hopIn(t)),
              ),
              { minLength: 1, maxLength: 4 },
            ),
          ),
        ),
        ([table, frames]) => {
          const w = new TrainWriter({ maxDatagramBytes: 65_507, intMulti: 4, intRatesBps: table });
          const datagrams: Buffer[] = [];
          w.begin(5, 0);
          for (const [pkt, st] of frames) {
            dropFields(pkt);
            pkt.int = st;
            // A packet whose options leave no room for the previous one's train length starts
            // the next datagram (a frame with many ext fields and both HPCC side options).
            if (!w.append(pkt, 1000)) {
              datagrams.push(w.finish());
              w.begin(5, datagrams.length);
              expect(w.append(pkt, 1000)).toBe(true);
            }
          }
          datagrams.push(w.finish());
          const packets: Uint8Array[] = [];
          for (const d of datagrams) {
            const r = new TrainReader();
            expect(r.reset(d)).toBeNull();
            for (let i = 0; i < r.count; i++) packets.push(r.packet(i));
          }
          expect(packets.length).toBe(frames.length);
          for (const [i, [, st]] of frames.entries()) {
            const back = decapsulate(packets[i], { intMulti: 4, intRatesBps: table });
            if ('code' in back) throw new Error(back.message);
            expect(back.int).toEqual({
              layout: 'hpcc',
              nhop: st.nhop,
              hops: st.hops.map((h) => quantizeHpccHop(h, 4, table)),
            });
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps what the wire keeps exactly: a 100G hop with whole units, a 40G hop with a 10/40/100G table', () => {
    const hop = {
      lineRateBps: 100e9,
      timeNs: 5_000_123,
      txBytes: 128 * 77,
      qlenBytes: 80 * 3,
      activeFlows: 2,
    };
    expect(quantizeHpccHop(hop)).toEqual(hop);
    // and rounds the rest down: 1 ns past the 24-bit wrap, 127 B short of a unit, 79 B of queue
    const table = hpccRateTable([100e9, 40e9, 10e9, 40e9]);
    expect(table).toEqual([10e9, 40e9, 100e9]);
    expect(
      quantizeHpccHop(
        { lineRateBps: 40e9, timeNs: 2 ** 24 + 1, txBytes: 255, qlenBytes: 79, activeFlows: 70_000 },
        1,
        table,
      ),
    ).toEqual({ lineRateBps: 40e9, timeNs: 1, txBytes: 128, qlenBytes: 0, activeFlows: 0xffff });
    // 40G with the ns-3 table: the simulator's code 0 would read as 25G; here it is refused.
    expect(() => quantizeHpccHop({ ...hop, lineRateBps: 40e9 })).toThrow(
      'line rate 40 Gbit/s has no HPCC INT rate code (table: 25 Gbit/s, 50 Gbit/s, 100 Gbit/s, 200 Gbit/s, 400 Gbit/s)',
    );
  });
});

describe('HPCC queue length past the 17-bit field', () => {
  it('is carried whole (option 0x04), not wrapped at 10.5 MB as the simulator does', () => {
    const pkt = createPacket();
    pkt.kind = FrameKind.Data;
    pkt.payloadLen = 1000;
    // 12 MB and 300 MB queues, and one below the field's range (no option for it alone).
    const qlens = [12e6, 300e6, 80 * 5];
    pkt.int = {
      layout: 'hpcc',
      nhop: 3,
      hops: qlens.map((q) => ({ lineRateBps: 100e9, timeNs: 1, txBytes: 0, qlenBytes: q, activeFlows: 0 })),
    };
    pkt.sizeBytes = emulatedSizeBytes(pkt);
    const wire = encapsulate(pkt, { vni: 1 });
    const back = decapsulate(wire);
    if ('code' in back) throw new Error(back.message);
    expect(back.int!.hops.map((h) => h.qlenBytes)).toEqual([12e6, 300e6, 400]);
    expect(back.int!.hops).toEqual(pkt.int.hops.map((h) => quantizeHpccHop(h)));
    // The option is transport overhead of the real runtime, like active flows: same emulated size.
    expect(back.sizeBytes).toBe(pkt.sizeBytes);
    expect(
      wire.length - encapsulate({ ...pkt, int: { ...pkt.int, hops: [pkt.int.hops[2]] } }, { vni: 1 }).length,
    ).toBe(16);
    // A queue that fits the field needs no option: the frame is the simulator's bytes.
    pkt.int.hops = [pkt.int.hops[2]];
    const plain = decapsulate(encapsulate(pkt, { vni: 1 }));
    if ('code' in plain) throw new Error(plain.message);
    expect(plain.int!.hops[0].qlenBytes).toBe(400);
  });
});

describe('hpccRateTable', () => {
  it("is ns-3's table when every rate is in it, else the distinct rates in ascending order", () => {
    expect(hpccRateTable([100e9, 400e9, 100e9])).toBe(NS3_HPCC_RATES_BPS);
    expect(hpccRateTable([25e9])).toEqual([25e9, 50e9, 100e9, 200e9, 400e9]);
    expect(hpccRateTable([800e9, 100e9, 10e9])).toEqual([10e9, 100e9, 800e9]);
  });

  it('refuses more distinct rates than the 3-bit code holds', () => {
    const nine = Array.from({ length: 9 }, (_, i) => (i + 1) * 10e9);
    expect(() => hpccRateTable(nine)).toThrow(
      "9 distinct line rates, but HPCC INT's 3-bit rate code holds 8",
    );
    expect(hpccRateTable(nine.slice(0, 8))).toHaveLength(8);
  });

  it('with eight rates, 0 bit/s has no code left and is refused; with fewer it takes the first free code', () => {
    const eight = Array.from({ length: 8 }, (_, i) => (i + 1) * 10e9);
    expect(() => hpccRateCode(0, eight)).toThrow(WireEncodeError);
    expect(hpccRateCode(0)).toBe(5);
    expect(hpccRateOfCode(5)).toBe(0);
    expect(hpccRateCode(0, [10e9, 40e9])).toBe(2);
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
