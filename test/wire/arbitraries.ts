/**
 * fast-check arbitraries for canonical Packets: exactly the shape a decoder hands back, so
 * `decode(encode(p))` must equal `p`. `telemetry` adds what only the Geneve encapsulation carries
 * (id, any prio, INT, PacketExt); values stay inside each format's documented range.
 */
import fc from 'fast-check';
import { CONTROL_PRIO, defaultPrioOfDscp } from '../../src/wire/frame.js';
import { HPCC_BYTES_MODULO, HPCC_QLEN_MODULO } from '../../src/wire/int-hpcc.js';
import { opcodeHasImmDt, opcodeHasReth } from '../../src/wire/kind.js';
import {
  type CnmBody,
  type Ecn,
  FrameKind,
  type IntHop,
  type IntStack,
  type Packet,
  type PacketExt,
} from '../../src/wire/packet.js';
import { createExt, createPacket } from '../../src/wire/packet-factory.js';
import { emulatedSizeBytes } from '../../src/wire/size.js';

export const u8 = fc.integer({ min: 0, max: 0xff });
export const u16 = fc.integer({ min: 0, max: 0xffff });
export const u24 = fc.integer({ min: 0, max: 0xff_ffff });
export const u32 = fc.tuple(u16, u16).map(([hi, lo]) => hi * 0x1_0000 + lo);
export const i32 = u32.map((v) => v | 0);
export const u48 = fc.tuple(u16, u32).map(([hi, lo]) => hi * 0x1_0000_0000 + lo);
export const u53 = fc.maxSafeNat();

export const DATA_OPCODES = [
  0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25,
  0x26, 0x27, 0x28, 0x29, 0x2a, 0x2b,
];

export const arbReth = fc.record({ vaHi: u32, vaLo: u32, rkey: u32, dmaLength: u32 });

export const arbCnm: fc.Arbitrary<CnmBody> = fc.record({
  flags: u8,
  flowId: u16,
  targetRateKbps: u32,
  cpId: u32,
  nHops: u8,
  hopsTraversed: u8,
  mActive: u16,
  MActive: u8,
  cpEgressPort: u8,
  qLenBytes: u32,
  qCthRaw: i32,
  flowSrcIp: u32,
  flowDstIp: u32,
  flowSrcPort: u16,
  flowDstPort: u16,
  destQpn: u32,
  triggerPsn: u32,
  cpTimestampNs: u53,
});

export const arbPfc = fc.record({ classEnable: u16, quanta: fc.array(u16, { minLength: 8, maxLength: 8 }) });

// 0 = "no rate" (code 5), see hpccRateCode
const HPCC_RATES = [0, 25e9, 50e9, 100e9, 200e9, 400e9];

export function arbHpccHop(multi = 1): fc.Arbitrary<IntHop> {
  return fc.record({
    lineRateBps: fc.constantFrom(...HPCC_RATES),
    timeNs: u24,
    txBytes: fc.integer({ min: 0, max: HPCC_BYTES_MODULO - 1 }).map((u) => u * 128 * multi),
    qlenBytes: fc.integer({ min: 0, max: HPCC_QLEN_MODULO - 1 }).map((u) => u * 80 * multi),
    activeFlows: u16,
  });
}

export const arbMpccHop: fc.Arbitrary<IntHop> = fc.record({
  lineRateBps: fc.constant(0),
  timeNs: fc.constant(0),
  txBytes: fc.constant(0),
  qlenBytes: u32,
  activeFlows: u16,
});

export function arbIntStack(multi = 1): fc.Arbitrary<IntStack> {
  return fc.oneof(
    fc
      .integer({ min: 0, max: 12 })
      .chain((nhop) =>
        fc
          .array(arbHpccHop(multi), { minLength: Math.min(nhop, 5), maxLength: Math.min(nhop, 5) })
          .map((hops): IntStack => ({ layout: 'hpcc', nhop, hops })),
      ),
    fc
      .integer({ min: 0, max: 12 })
      .chain((nhop) =>
        fc
          .array(arbMpccHop, { minLength: Math.min(nhop, 5), maxLength: Math.min(nhop, 5) })
          .map((hops): IntStack => ({ layout: 'mpcc', nhop, hops })),
      ),
  );
}

const arbFieldName = fc
  .string({ minLength: 1, maxLength: 12, unit: 'grapheme-ascii' })
  .filter((s) => s !== '__proto__');
const arbFieldValue = fc.oneof(u32, fc.double(), fc.integer({ min: -1000, max: -1 }));

/** A PacketExt with at least one field set (an all-null ext decodes as null). */
export function arbExt(kind: FrameKind): fc.Arbitrary<PacketExt | null> {
  return fc
    .record({
      txTsNs: fc.option(u53),
      tsEchoNs: fc.option(u53),
      windowBytes: fc.option(u32),
      ecnCount: fc.option(u32),
      cnpPeriodNs: fc.option(u32),
      fields: fc.option(
        fc.dictionary(arbFieldName, arbFieldValue, { minKeys: 1, maxKeys: 4, noNullPrototype: true }),
      ),
      // SACK information rides on ACKs and NAKs only (the option budget of a Geneve packet is 252 bytes).
      sack: (kind === FrameKind.Ack || kind === FrameKind.Nak ? fc.option : () => fc.constant(null))(
        fc.record({
          refPsn: fc.integer({ min: 0, max: 0xffffff }),
          basePsn: fc.integer({ min: 0, max: 0xffffff }),
          bitsLo: u32,
          bitsHi: u32,
          oooPackets: u32,
          lastHop: fc.boolean(),
        }),
      ),
    })
    .map((r) => {
      const ext = createExt();
      Object.assign(ext, r);
      const any =
        ext.txTsNs !== null ||
        ext.tsEchoNs !== null ||
        ext.windowBytes !== null ||
        ext.ecnCount !== null ||
        ext.cnpPeriodNs !== null ||
        ext.fields !== null ||
        ext.sack !== null;
      return any ? ext : null;
    });
}

interface PacketArbOptions {
  /** Fields only the Geneve encapsulation carries: id, free prio, INT, PacketExt. */
  telemetry?: boolean;
  /** Largest payload (default 600 bytes). */
  maxPayloadBytes?: number;
  kinds?: FrameKind[];
}

const ALL_KINDS = [
  FrameKind.Data,
  FrameKind.Ack,
  FrameKind.Nak,
  FrameKind.Cnp,
  FrameKind.Pfc,
  FrameKind.Cnm,
  FrameKind.Sync,
];

const arbIpBth = fc.record({
  dstMac: u48,
  srcMac: u48,
  srcIp: u32,
  dstIp: u32,
  dscp: fc.integer({ min: 0, max: 63 }),
  ecn: fc.integer({ min: 0, max: 3 }).map((e) => e as Ecn),
  ttl: u8,
  ipId: u16,
  srcPort: u16,
  solicitedEvent: fc.boolean(),
  migReq: fc.boolean(),
  pkey: u16,
  fecn: fc.boolean(),
  becn: fc.boolean(),
  destQp: u24,
  ackReq: fc.boolean(),
  psn: u24,
  bthResv7: fc.integer({ min: 0, max: 127 }),
});

function arbKindBody(kind: FrameKind, maxPayloadBytes: number): fc.Arbitrary<Partial<Packet>> {
  switch (kind) {
    case FrameKind.Data:
      return fc.constantFrom(...DATA_OPCODES).chain((opcode) =>
        fc.record({
          opcode: fc.constant(opcode),
          reth: opcodeHasReth(opcode) ? arbReth : fc.constant(null),
          immDt: opcodeHasImmDt(opcode) ? u32 : fc.constant(null),
          payload: fc.uint8Array({ minLength: 0, maxLength: maxPayloadBytes }),
        }),
      );
    case FrameKind.Ack:
      return fc.record({
        opcode: fc.constant(0x11),
        aeth: fc.record({ syndrome: fc.integer({ min: 0, max: 0x1f }).map((s) => s), msn: u24 }),
      });
    case FrameKind.Nak:
      return fc.record({
        opcode: fc.constant(0x11),
        aeth: fc.record({
          syndrome: fc.oneof(fc.integer({ min: 0x20, max: 0x3f }), fc.integer({ min: 0x60, max: 0x7f })),
          msn: u24,
        }),
      });
    default:
      return fc.constant({ opcode: 0x81 });
  }
}

export function arbPacket(opts: PacketArbOptions = {}): fc.Arbitrary<Packet> {
  const telemetry = opts.telemetry === true;
  const maxPayloadBytes = opts.maxPayloadBytes ?? 600;
  return fc.constantFrom(...(opts.kinds ?? ALL_KINDS)).chain((kind) => {
    const base: fc.Arbitrary<Partial<Packet>> =
      kind === FrameKind.Pfc
        ? fc.record({ dstMac: u48, srcMac: u48, pfc: arbPfc })
        : kind === FrameKind.Cnm
          ? fc.record({ dstMac: u48, srcMac: u48, cnm: arbCnm })
          : kind === FrameKind.Sync
            ? fc.record({ dstMac: u48, srcMac: u48, srcIp: u32, dstIp: u32, psn: u24 })
            : fc.tuple(arbIpBth, arbKindBody(kind, maxPayloadBytes)).map(([a, b]) => ({ ...a, ...b }));
    const extra = telemetry
      ? fc.record({
          id: u53,
          prio: fc.integer({ min: 0, max: 7 }),
          int: fc.option(arbIntStack()),
          ext: arbExt(kind),
          // A data frame a switch trimmed (option 0x30): a hop 1..255 and the last-hop flag.
          trim:
            kind === FrameKind.Data
              ? fc.option(fc.record({ hop: fc.integer({ min: 1, max: 255 }), last: fc.boolean() }), {
                  freq: 4,
                })
              : fc.constant(null),
        })
      : kind === FrameKind.Cnp
        ? fc.record({
            ext: fc.option(fc.integer({ min: 1, max: 0x7fff_ffff })).map((period) => {
              if (period === null) return null;
              const ext = createExt();
              ext.cnpPeriodNs = period;
              return ext;
            }),
          })
        : fc.constant({});
    return fc.tuple(base, extra).map(([b, x]) => {
      const pkt = createPacket();
      const { trim, ...rest } = x as { trim?: { hop: number; last: boolean } | null };
      Object.assign(pkt, b, rest);
      pkt.kind = kind;
      if (pkt.payload !== null) pkt.payloadLen = pkt.payload.length;
      if (trim !== undefined && trim !== null) {
        pkt.trimHop = trim.hop;
        pkt.trimLastHop = trim.last;
        pkt.payload = null;
      }
      if (!telemetry) {
        const ip = kind !== FrameKind.Pfc && kind !== FrameKind.Cnm && kind !== FrameKind.Sync;
        pkt.prio = ip ? defaultPrioOfDscp(pkt.dscp) : CONTROL_PRIO;
      }
      pkt.sizeBytes = emulatedSizeBytes(pkt);
      return pkt;
    });
  });
}

/** An emulated instant as the real runtime stamps it (f64 ns, fractional allowed). */
export const arbStampNs = fc.double({ min: 0, max: 1e15, noNaN: true });

/** A promise: any f64 but NaN, +Infinity included (the link is done). */
export const arbPromiseNs = fc.oneof(arbStampNs, fc.constant(Number.POSITIVE_INFINITY));

/** One frame a link sends, with the runtime options it may carry. */
export interface TrainFrame {
  pkt: Packet;
  arrivalNs: number | undefined;
  promiseNs: number | undefined;
}

export function arbTrainFrame(maxPayloadBytes = 1200): fc.Arbitrary<TrainFrame> {
  return fc.record({
    pkt: arbPacket({ telemetry: true, maxPayloadBytes }),
    arrivalNs: fc.option(arbStampNs, { nil: undefined }),
    promiseNs: fc.option(arbPromiseNs, { nil: undefined, freq: 4 }),
  });
}
