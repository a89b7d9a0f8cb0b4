/**
 * Underlay encapsulation (docs/wire.md §6 Underlay encapsulation): what the real runtime sends as one UDP
 * datagram.
 *
 * Geneve (UDP 6081): header · our class-0xFFF0 options (telemetry.ts) · the standard frame.
 * tshark decodes it down to the BTH with no decode-as, and the options carry everything the
 * standard frame has no field for, so decapsulate(encapsulate(p)) gives p back (within the
 * documented value ranges; HPCC INT values are quantised as the HPCC format defines).
 *
 * VXLAN (UDP 4789): header · standard frame. No room for telemetry: INT, PacketExt (except a
 * CNP's period) and id are lost, prio is re-derived. Use it to interoperate, Geneve to emulate.
 */

import { isUint, readF64, readU32, writeF64, writeU32 } from './bytes.js';
import { type DecodeError, decodeError, WireEncodeError } from './errors.js';
import { EtherType } from './ethernet.js';
import {
  type DecodeOptions,
  decodeFrame,
  type EncodeOptions,
  encodedFrameBytes,
  encodeFrameInto,
} from './frame.js';
import {
  GENEVE_CRITICAL_TYPE_BIT,
  GENEVE_HEADER_BYTES,
  GENEVE_MAX_OPTIONS_BYTES,
  GENEVE_OPTION_HEADER_BYTES,
  writeGeneveHeader,
  writeGeneveOptionHeader,
} from './geneve.js';
import type { Packet } from './packet.js';
import { emulatedSizeBytes } from './size.js';
import {
  applyActiveFlows,
  applyQlenHigh,
  applyTelemetryOption,
  OptionType,
  ROCELAB_OPTION_CLASS,
  telemetryOptionsBytes,
  writeTelemetryOptions,
} from './telemetry.js';
import { VXLAN_FLAG_I, VXLAN_HEADER_BYTES } from './vxlan.js';

/** Largest UDP payload of an IPv4 datagram. */
export const MAX_DATAGRAM_BYTES = 65507;

export interface EncapsulateOptions extends EncodeOptions {
  /** 24-bit virtual network id (e.g. one per run or per tenant). */
  vni: number;
  /** HPCC INT_MULTI (units of 128·multi and 80·multi bytes); both ends must agree. Default 1. */
  intMulti?: number;
  /**
   * HPCC INT line-rate table (code → bit/s, src/wire/int-hpcc-rates.ts); both ends must agree.
   * Default the ns-3 table. A hop whose rate has no code throws WireEncodeError.
   */
  intRatesBps?: readonly number[];
  /** Emulated arrival instant to stamp (option ArrivalTs, Geneve only); none when absent. */
  arrivalNs?: number;
  /** Datagram sequence number of the link (option LinkSeq, u32); none when absent. */
  linkSeq?: number;
  /** The sender's promise (option Promise, f64 ns, any value but NaN); none when absent. */
  promiseNs?: number;
}

/** The f64 options that may ride with a promise (lockstep): end bound and heard. */
export interface PromiseTrailer {
  endBoundNs?: number;
  heardNs?: number;
  /** The next sequence of the reverse link the sender expects (u32; lockstep's resend release). */
  ackSeq?: number;
}

export interface DecapsulateOptions extends DecodeOptions {
  intMulti?: number;
  /** HPCC INT line-rate table, as for encapsulate. */
  intRatesBps?: readonly number[];
  /** Datagrams longer than this are 'oversized' (default MAX_DATAGRAM_BYTES). */
  maxDatagramBytes?: number;
}

const NO_DECAP: DecapsulateOptions = {};

/**
 * What `decapsulate` reads besides the Packet, for a receiver that wants it without a second walk
 * over the options: the ArrivalTs stamp (null when absent or not a finite f64).
 */
export interface DecapsulatedMeta {
  arrivalNs: number | null;
  /** The Promise option (f64 ns), or null. Optional so older holders of a meta object still fit. */
  promiseNs?: number | null;
  /** The LinkSeq option (u32), or null. */
  linkSeq?: number | null;
  /** The EndBound and Heard options (f64 ns), or null. */
  endBoundNs?: number | null;
  heardNs?: number | null;
}

/** A meta object with every field, so its shape never changes on the receive path. */
export function createDecapsulatedMeta(): Required<DecapsulatedMeta> {
  return { arrivalNs: null, promiseNs: null, linkSeq: null, endBoundNs: null, heardNs: null };
}

function checkVni(vni: number): void {
  if (!(Number.isInteger(vni) && vni >= 0 && vni <= 0xff_ffff))
    throw new WireEncodeError(`VNI ${vni} is not 24-bit`);
}

const ARRIVAL_TS_BYTES = GENEVE_OPTION_HEADER_BYTES + 8;
/** Bytes of a Promise option (header + f64). */
export const PROMISE_OPTION_BYTES = GENEVE_OPTION_HEADER_BYTES + 8;
/** Bytes of a LinkSeq or TrainLen option (header + u32). */
export const U32_OPTION_BYTES = GENEVE_OPTION_HEADER_BYTES + 4;

/** Bytes of the real-runtime options (stamp, link sequence, promise) `opts` asks for; validates them. */
function runtimeOptionsBytes(opts: EncapsulateOptions): number {
  let n = 0;
  if (opts.arrivalNs !== undefined) {
    if (!Number.isFinite(opts.arrivalNs))
      throw new WireEncodeError(`arrivalNs ${opts.arrivalNs} is not finite`);
    n += ARRIVAL_TS_BYTES;
  }
  if (opts.linkSeq !== undefined) {
    if (!isUint(opts.linkSeq, 32)) throw new WireEncodeError(`linkSeq ${opts.linkSeq} is not a u32`);
    n += U32_OPTION_BYTES;
  }
  if (opts.promiseNs !== undefined) {
    // +Infinity is a meaningful promise (the link is done); NaN would compare false with everything.
    if (Number.isNaN(opts.promiseNs)) throw new WireEncodeError('promiseNs is NaN');
    n += PROMISE_OPTION_BYTES;
  }
  return n;
}

/** Stamp first (docs/wire.md §3 Geneve options), then link sequence, then promise. */
function writeRuntimeOptions(buf: Uint8Array, off: number, opts: EncapsulateOptions): number {
  let p = off;
  if (opts.arrivalNs !== undefined) {
    p += writeGeneveOptionHeader(buf, p, ROCELAB_OPTION_CLASS, OptionType.ArrivalTs, 8);
    writeF64(buf, p, opts.arrivalNs);
    p += 8;
  }
  if (opts.linkSeq !== undefined) {
    p += writeGeneveOptionHeader(buf, p, ROCELAB_OPTION_CLASS, OptionType.LinkSeq, 4);
    writeU32(buf, p, opts.linkSeq);
    p += 4;
  }
  if (opts.promiseNs !== undefined) {
    p += writeGeneveOptionHeader(buf, p, ROCELAB_OPTION_CLASS, OptionType.Promise, 8);
    writeF64(buf, p, opts.promiseNs);
    p += 8;
  }
  return p;
}

/**
 * The ArrivalTs stamp of a Geneve datagram, or null (none, not Geneve, malformed options). Cheap:
 * reads option headers only, so the receiver can order the datagram before decoding it.
 */
export function readArrivalNs(buf: Uint8Array): number | null {
  if (buf.length < GENEVE_HEADER_BYTES || buf[0] >>> 6 !== 0) return null;
  const optEnd = Math.min(buf.length, GENEVE_HEADER_BYTES + (buf[0] & 0x3f) * 4);
  for (let p = GENEVE_HEADER_BYTES; p + GENEVE_OPTION_HEADER_BYTES <= optEnd; ) {
    const dataBytes = (buf[p + 3] & 0x1f) * 4;
    if (
      buf[p + 2] === OptionType.ArrivalTs &&
      ((buf[p] << 8) | buf[p + 1]) === ROCELAB_OPTION_CLASS &&
      dataBytes === 8 &&
      p + ARRIVAL_TS_BYTES <= optEnd
    ) {
      const v = readF64(buf, p + GENEVE_OPTION_HEADER_BYTES);
      return Number.isFinite(v) ? v : null;
    }
    p += GENEVE_OPTION_HEADER_BYTES + dataBytes;
  }
  return null;
}

/**
 * Bytes of all Geneve options of `pkt`'s packet (telemetry and runtime options); throws
 * WireEncodeError beyond what Geneve can hold. For TrainWriter, which sizes before it writes.
 */
export function packetOptionsBytes(pkt: Packet, opts: EncapsulateOptions): number {
  const n = telemetryOptionsBytes(pkt, opts.intMulti ?? 1, opts.intRatesBps) + runtimeOptionsBytes(opts);
  if (n > GENEVE_MAX_OPTIONS_BYTES) {
    throw new WireEncodeError(
      `packet ${pkt.id} needs ${n} bytes of Geneve options, more than the ${GENEVE_MAX_OPTIONS_BYTES} Geneve allows (too many ext.fields?)`,
    );
  }
  return n;
}

/** Bytes `encapsulate` will produce. */
export function encapsulatedBytes(pkt: Packet, opts: EncapsulateOptions): number {
  return GENEVE_HEADER_BYTES + packetOptionsBytes(pkt, opts) + encodedFrameBytes(pkt, opts);
}

/**
 * Writes the Geneve datagram payload at `off` (needs encapsulatedBytes() bytes); returns its
 * length. Throws WireEncodeError for a Packet the formats cannot carry.
 */
export function encapsulateInto(pkt: Packet, buf: Uint8Array, off: number, opts: EncapsulateOptions): number {
  checkVni(opts.vni);
  return encapsulateSized(pkt, buf, off, opts, packetOptionsBytes(pkt, opts));
}

/** encapsulateInto with the options already sized by packetOptionsBytes (and the VNI checked). */
export function encapsulateSized(
  pkt: Packet,
  buf: Uint8Array,
  off: number,
  opts: EncapsulateOptions,
  optBytes: number,
): number {
  writeGeneveHeader(buf, off, optBytes, opts.vni, EtherType.TransparentEthernet);
  const runtimeEnd = writeRuntimeOptions(buf, off + GENEVE_HEADER_BYTES, opts);
  const innerOff = writeTelemetryOptions(pkt, buf, runtimeEnd, opts.intMulti ?? 1, opts.intRatesBps);
  return innerOff - off + encodeFrameInto(pkt, buf, innerOff, opts);
}

/** The UDP payload a dgram socket sends for `pkt` (Geneve, to port 6081 by convention). */
export function encapsulate(pkt: Packet, opts: EncapsulateOptions): Buffer {
  checkVni(opts.vni);
  const optBytes = packetOptionsBytes(pkt, opts);
  const buf = Buffer.allocUnsafe(GENEVE_HEADER_BYTES + optBytes + encodedFrameBytes(pkt, opts));
  encapsulateSized(pkt, buf, 0, opts, optBytes);
  return buf;
}

/**
 * Validates a TrainLen, Promise or LinkSeq option at `p` and copies its value into `meta`.
 * A TrainLen must equal the inner frame's length: decapsulate takes one Geneve packet, and a
 * whole train handed to it is an error rather than its first frame with the rest dropped.
 */
function checkLinkOption(
  buf: Uint8Array,
  p: number,
  dataBytes: number,
  innerBytes: number,
  meta: DecapsulatedMeta | undefined,
): DecodeError | null {
  const type = buf[p + 2];
  const d = p + GENEVE_OPTION_HEADER_BYTES;
  if (type === OptionType.Promise || type === OptionType.EndBound || type === OptionType.Heard) {
    if (dataBytes !== 8)
      return decodeError(
        'bad-option',
        `option type 0x${type.toString(16)} has ${dataBytes} data bytes, expected 8`,
        p + 3,
      );
    const v = readF64(buf, d);
    if (Number.isNaN(v)) return decodeError('bad-option', `option type 0x${type.toString(16)} is NaN`, d);
    if (meta !== undefined) {
      if (type === OptionType.Promise) meta.promiseNs = v;
      else if (type === OptionType.EndBound) meta.endBoundNs = v;
      else meta.heardNs = v;
    }
    return null;
  }
  if (dataBytes !== 4) {
    return decodeError(
      'bad-option',
      `option type 0x${type.toString(16)} has ${dataBytes} data bytes, expected 4`,
      p + 3,
    );
  }
  const v = readU32(buf, d);
  if (type === OptionType.Nack) return null;
  if (type === OptionType.LinkSeq) {
    if (meta !== undefined) meta.linkSeq = v;
    return null;
  }
  if (v !== innerBytes) {
    return decodeError(
      'bad-length',
      `train length ${v} != the ${innerBytes} inner bytes (a train datagram is read with TrainReader)`,
      d,
    );
  }
  return null;
}

function shifted(e: DecodeError, by: number): DecodeError {
  return decodeError(e.code, e.message, e.offset + by);
}

/**
 * Decodes a Geneve datagram payload back into a Packet, telemetry included. Never throws.
 * Options of other classes are skipped unless marked critical (then 'unsupported', as RFC 8926
 * requires of a receiver that does not understand them).
 */
export function decapsulate(
  buf: Buffer | Uint8Array,
  opts: DecapsulateOptions = NO_DECAP,
  meta?: DecapsulatedMeta,
): Packet | DecodeError {
  return decapsulateAt(buf, 0, buf.length, opts, meta);
}

/**
 * decapsulate() of the Geneve packet in bytes [start, end) of `buf` (a packet of a train,
 * TrainReader), without a view of it: a receiving node decodes every frame of every train, and
 * each view is young garbage. Error offsets count from `start`.
 */
export function decapsulateAt(
  buf: Buffer | Uint8Array,
  start: number,
  end: number,
  opts: DecapsulateOptions = NO_DECAP,
  meta?: DecapsulatedMeta,
): Packet | DecodeError {
  if (meta !== undefined) {
    meta.arrivalNs = null;
    meta.promiseNs = null;
    meta.linkSeq = null;
    if (meta.endBoundNs !== undefined) meta.endBoundNs = null;
    if (meta.heardNs !== undefined) meta.heardNs = null;
  }
  const len = end - start;
  const max = opts.maxDatagramBytes ?? MAX_DATAGRAM_BYTES;
  if (len > max) return decodeError('oversized', `datagram of ${len} bytes exceeds ${max}`, 0);
  if (len < GENEVE_HEADER_BYTES) return decodeError('truncated', 'Geneve header needs 8 bytes', 0);
  const b0 = buf[start];
  if (b0 >>> 6 !== 0) return decodeError('bad-version', `Geneve version ${b0 >>> 6}, expected 0`, 0);
  if ((buf[start + 1] & 0x80) !== 0)
    return decodeError('unsupported', 'Geneve OAM (control) packets are not carried', 1);
  const protocol = (buf[start + 2] << 8) | buf[start + 3];
  if (protocol !== EtherType.TransparentEthernet) {
    return decodeError(
      'unsupported',
      `Geneve protocol 0x${protocol.toString(16)} is not Ethernet (0x6558)`,
      2,
    );
  }
  const optEnd = start + GENEVE_HEADER_BYTES + (b0 & 0x3f) * 4;
  if (optEnd > end) return decodeError('truncated', 'Geneve options run past the datagram', 0);

  // validate every option before decoding the frame: a malformed option is a malformed datagram
  for (let p = start + GENEVE_HEADER_BYTES; p < optEnd; ) {
    if (optEnd - p < GENEVE_OPTION_HEADER_BYTES)
      return decodeError('bad-option', 'option header runs past OptLen', p - start);
    const dataBytes = (buf[p + 3] & 0x1f) * 4;
    if (p + GENEVE_OPTION_HEADER_BYTES + dataBytes > optEnd) {
      return decodeError('bad-option', `option of ${dataBytes} data bytes runs past OptLen`, p + 3 - start);
    }
    const cls = (buf[p] << 8) | buf[p + 1];
    if (cls !== ROCELAB_OPTION_CLASS) {
      if ((buf[p + 2] & GENEVE_CRITICAL_TYPE_BIT) !== 0) {
        return decodeError(
          'unsupported',
          `critical option class 0x${cls.toString(16)} type 0x${buf[p + 2].toString(16)}`,
          p - start,
        );
      }
    } else if (buf[p + 2] >= OptionType.TrainLen && buf[p + 2] <= OptionType.Nack) {
      const err = checkLinkOption(buf, p, dataBytes, end - optEnd, meta);
      if (err !== null) return start === 0 ? err : shifted(err, -start);
    }
    p += GENEVE_OPTION_HEADER_BYTES + dataBytes;
  }

  const inner = decodeFrame(buf.subarray(optEnd, end), opts);
  if ('code' in inner) return shifted(inner, optEnd - start);
  const multi = opts.intMulti ?? 1;
  const rates = opts.intRatesBps;
  let activeFlowsOff = -1;
  let qlenHighOff = -1;
  for (let p = start + GENEVE_HEADER_BYTES; p < optEnd; ) {
    const dataBytes = (buf[p + 3] & 0x1f) * 4;
    if (((buf[p] << 8) | buf[p + 1]) === ROCELAB_OPTION_CLASS) {
      const type = buf[p + 2];
      const err = applyTelemetryOption(
        inner,
        type,
        buf,
        p + GENEVE_OPTION_HEADER_BYTES,
        dataBytes,
        multi,
        rates,
      );
      if (err !== null) return start === 0 ? err : shifted(err, -start);
      if (type === OptionType.HpccActiveFlows) activeFlowsOff = p + GENEVE_OPTION_HEADER_BYTES;
      else if (type === OptionType.HpccQlenHigh) qlenHighOff = p + GENEVE_OPTION_HEADER_BYTES;
      else if (type === OptionType.ArrivalTs && dataBytes === 8 && meta !== undefined) {
        const v = readF64(buf, p + GENEVE_OPTION_HEADER_BYTES);
        meta.arrivalNs = Number.isFinite(v) ? v : null;
      }
    }
    p += GENEVE_OPTION_HEADER_BYTES + dataBytes;
  }
  if (activeFlowsOff >= 0) applyActiveFlows(inner, buf, activeFlowsOff);
  if (qlenHighOff >= 0) applyQlenHigh(inner, buf, qlenHighOff, multi);
  inner.sizeBytes = emulatedSizeBytes(inner);
  return inner;
}

/** VXLAN datagram payload: 8-byte header then the standard frame (telemetry is dropped). */
export function encapsulateVxlan(pkt: Packet, opts: EncapsulateOptions): Buffer {
  checkVni(opts.vni);
  const buf = Buffer.allocUnsafe(VXLAN_HEADER_BYTES + encodedFrameBytes(pkt, opts));
  buf[0] = VXLAN_FLAG_I;
  buf[1] = 0;
  buf[2] = 0;
  buf[3] = 0;
  buf[4] = opts.vni >>> 16;
  buf[5] = opts.vni >>> 8;
  buf[6] = opts.vni;
  buf[7] = 0;
  encodeFrameInto(pkt, buf, VXLAN_HEADER_BYTES, opts);
  return buf;
}

export function decapsulateVxlan(
  buf: Buffer | Uint8Array,
  opts: DecapsulateOptions = NO_DECAP,
): Packet | DecodeError {
  const max = opts.maxDatagramBytes ?? MAX_DATAGRAM_BYTES;
  if (buf.length > max) return decodeError('oversized', `datagram of ${buf.length} bytes exceeds ${max}`, 0);
  if (buf.length < VXLAN_HEADER_BYTES) return decodeError('truncated', 'VXLAN header needs 8 bytes', 0);
  if ((buf[0] & VXLAN_FLAG_I) === 0) return decodeError('bad-field', 'VXLAN I flag is clear', 0);
  const inner = decodeFrame(buf.subarray(VXLAN_HEADER_BYTES), opts);
  return 'code' in inner ? shifted(inner, VXLAN_HEADER_BYTES) : inner;
}

/**
 * Which overlay a datagram payload looks like: Geneve carries protocol 0x6558 in bytes 2-3,
 * VXLAN has flags 0x08 and reserved zeros there. Null if neither.
 */
export function overlayKindOf(buf: Uint8Array): 'geneve' | 'vxlan' | null {
  if (buf.length < 8) return null;
  if (buf[0] >>> 6 === 0 && buf[2] === 0x65 && buf[3] === 0x58) return 'geneve';
  if ((buf[0] & VXLAN_FLAG_I) !== 0 && buf[2] === 0 && buf[3] === 0) return 'vxlan';
  return null;
}
