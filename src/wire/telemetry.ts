/**
 * Our telemetry as Geneve option TLVs of class 0xFFF0 (RFC 8926 "experimental"). Types stay
 * below 0x80 (critical bit clear) so any Geneve receiver may skip them. Layouts are documented in
 * docs/wire.md; all multi-byte fields are big-endian except inside the HPCC stack (its own
 * little-endian layout, kept byte-identical to the simulator).
 *
 * An option is written only when the Packet has something the inner standard frame cannot carry,
 * so a Packet without telemetry encapsulates with no options at all.
 */
import {
  isSafeUint,
  isUint,
  readF64,
  readU16,
  readU32,
  readU64,
  writeF64,
  writeU16,
  writeU32,
  writeU64,
} from './bytes.js';
import { type DecodeError, decodeError, WireEncodeError } from './errors.js';
import { CONTROL_PRIO, defaultPrioOfDscp } from './frame.js';
import {
  GENEVE_MAX_OPTION_DATA_BYTES,
  GENEVE_OPTION_HEADER_BYTES,
  writeGeneveOptionHeader,
} from './geneve.js';
import {
  addHpccQlenHigh,
  decodeHpccInt,
  encodeHpccInt,
  HPCC_MAX_HOPS,
  hpccQlenHighUnits,
  hpccRateCode,
  NS3_HPCC_RATES_BPS,
} from './int-hpcc.js';
import { decodeMpccInt, encodeMpccInt, MPCC_INT_BYTES } from './int-mpcc.js';
import { FrameKind, type IntStack, type Packet, type PacketExt } from './packet.js';
import { createExt } from './packet-factory.js';

export const ROCELAB_OPTION_CLASS = 0xfff0;
/** Data bytes of the SACK option (OptionType.Sack); also what a SACK adds to the emulated size. */
export const SACK_DATA_BYTES = 20;

export const OptionType = {
  /** HPCC INT stack, 42 bytes (docs/wire.md §2.1 HPCC layout) + 2 zero bytes. */
  HpccInt: 0x01,
  /** MPCC INT block, 32 bytes (docs/wire.md §2.2 MPCC block). */
  MpccInt: 0x02,
  /** Per-slot active-flow counts for an HPCC stack: 5 × u16 + 2 zero bytes. */
  HpccActiveFlows: 0x03,
  /**
   * Per-slot queue-length units above the hop word's 17 bits for an HPCC stack (bits 17..32 of
   * qlen in 80·multi units): 5 × u16 + 2 zero bytes, only when one is non-zero (a queue over
   * 10.5 MB at INT_MULTI 1, which the simulator's 17-bit field wraps).
   */
  HpccQlenHigh: 0x04,
  /** PacketExt.txTsNs: u64 ns. */
  TxTs: 0x10,
  /** PacketExt.tsEchoNs: u64 ns. */
  TsEcho: 0x11,
  /** PacketExt.windowBytes: u32. */
  Window: 0x12,
  /** PacketExt.ecnCount: u32 (the exact Dolce-RC count; BTH resv7 saturates at 127). */
  EcnCount: 0x13,
  /** PacketExt.cnpPeriodNs when the inner frame cannot hold it (not a CNP, or an explicit 0). */
  CnpPeriod: 0x14,
  /** PacketExt.fields: entries { nameLen u8 ≥ 1, name UTF-8, tag u8 (0 u32, 1 f64), value }, zero-padded. */
  Fields: 0x15,
  /**
   * PacketExt.sack (selective repeat): refPsn u32 (bit 31 last-hop flag, bits 24-30 zero, PSN in
   * 0-23) · basePsn u32 (PSN in bits 0-23) · bitmap u32 PSNs base..base+31 (bit i = base + i) ·
   * bitmap u32 base+32..base+63 · out-of-order packets u32. 20 bytes.
   */
  Sack: 0x16,
  /** Emulator metadata: prio u8, 3 zero bytes, packet id u64. Only when not derivable. */
  Meta: 0x20,
  /**
   * Real runtime only: the emulated instant (f64 ns, synced clock) the frame's last bit reaches
   * the receiver, i.e. the sender's departure plus the link's propagation delay. Written by
   * `encapsulate` when asked (`arrivalNs`), read with `readArrivalNs`; not part of the Packet.
   */
  ArrivalTs: 0x21,
  /**
   * Real runtime only: u32 byte length of this Geneve packet's inner frame, on every packet of a
   * train except the last (the last runs to the end of the datagram). Written by TrainWriter.
   */
  TrainLen: 0x22,
  /**
   * Real runtime only: f64 ns, the sender's promise that no later frame on this link carries an
   * arrival stamp below it (the null message of conservative synchronisation, Chandy–Misra–Bryant).
   */
  Promise: 0x23,
  /** Real runtime only: u32 datagram sequence number of the (sender, egress port) link, first packet only. */
  LinkSeq: 0x24,
  /**
   * Real runtime only (lockstep): f64 ns, the sender's lower bound of the run's end, riding with a
   * promise (docs/realtime.md "The end").
   */
  EndBound: 0x25,
  /**
   * Real runtime only (lockstep keepalives): f64 ns, the promise the sender has heard from the
   * receiver on the reverse link (a restarted node resumes after it).
   */
  Heard: 0x26,
  /**
   * Real runtime only: u32, the first datagram sequence of the reverse link the sender is missing
   * (overlay-level retransmission: the receiver of this control packet resends from there).
   */
  Nack: 0x27,
  /**
   * Real runtime only (lockstep): u32, the next datagram sequence of the reverse link the sender
   * expects (a cumulative acknowledgement): the receiver of this option no longer keeps the
   * datagrams before it for a resend.
   */
  Ack: 0x28,
  /**
   * A trimmed data frame (docs/switch.md "Trimming"): hop u8 (Packet.trimHop, 1..255), flags u8
   * (bit 0: trimLastHop), u16 the payload length the frame had before (Packet.payloadLen). The
   * inner frame carries no payload.
   */
  Trimmed: 0x30,
} as const;

const HPCC_DATA_BYTES = 44;
const ACTIVE_FLOWS_DATA_BYTES = 12;
/** Five u16 per-slot values and 2 zero bytes (HpccActiveFlows, HpccQlenHigh). */
const SLOT_U16_DATA_BYTES = 12;
const META_DATA_BYTES = 12;
const TRIMMED_DATA_BYTES = 4;
const FIELD_TAG_U32 = 0;
const FIELD_TAG_F64 = 1;
/** Longest field name: one entry with an f64 must fit in one option (1 + name + 1 + 8 ≤ 124). */
export const MAX_FIELD_NAME_BYTES = GENEVE_MAX_OPTION_DATA_BYTES - 10;

const utf8Encoder = new TextEncoder();
/**
 * Field names' UTF-8 bytes, by name. Firmware uses a handful of names, and encoding one costs an
 * ArrayBuffer each time (every frame that carries fields is sized and then written, so twice per
 * frame): garbage a real-time node's young collections then free one by one. Bounded, so names a
 * program makes up on the fly cannot grow it.
 */
const fieldNameBytes = new Map<string, Uint8Array>();
const FIELD_NAMES_KEPT = 256;

function encodedFieldName(key: string): Uint8Array {
  const kept = fieldNameBytes.get(key);
  if (kept !== undefined) return kept;
  const name = utf8Encoder.encode(key);
  if (fieldNameBytes.size < FIELD_NAMES_KEPT) fieldNameBytes.set(key, name);
  return name;
}
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

function bad(pkt: Packet, what: string): never {
  throw new WireEncodeError(`cannot encapsulate packet ${pkt.id}: ${what}`);
}

/** Priority the receiver derives from the inner frame when no Meta option says otherwise. */
function derivedPrio(pkt: Packet): number {
  switch (pkt.kind) {
    case FrameKind.Pfc:
    case FrameKind.Cnm:
    case FrameKind.Sync:
      return CONTROL_PRIO;
    default:
      return defaultPrioOfDscp(pkt.dscp);
  }
}

function needsMeta(pkt: Packet): boolean {
  return pkt.id !== 0 || pkt.prio !== derivedPrio(pkt);
}

function cnpPeriodOutside(pkt: Packet, ext: PacketExt): boolean {
  return ext.cnpPeriodNs !== null && (pkt.kind !== FrameKind.Cnp || ext.cnpPeriodNs === 0);
}

function hasActiveFlows(pkt: Packet): boolean {
  if (pkt.int === null || pkt.int.layout !== 'hpcc') return false;
  const hops = pkt.int.hops;
  const n = Math.min(hops.length, HPCC_MAX_HOPS);
  for (let i = 0; i < n; i++) if (hops[i].activeFlows !== 0) return true;
  return false;
}

function hasQlenHigh(st: IntStack, intMulti: number): boolean {
  const n = Math.min(st.hops.length, HPCC_MAX_HOPS);
  for (let i = 0; i < n; i++) if (hpccQlenHighUnits(st.hops[i].qlenBytes, intMulti) !== 0) return true;
  return false;
}

/** Throws WireEncodeError when a hop's line rate has no code in the run's table. */
function checkRateCodes(st: IntStack, intRatesBps: readonly number[]): void {
  const n = Math.min(st.hops.length, HPCC_MAX_HOPS);
  for (let i = 0; i < n; i++) hpccRateCode(st.hops[i].lineRateBps, intRatesBps);
}

function fieldValueBytes(v: number): number {
  return isUint(v, 32) && !Object.is(v, -0) ? 4 : 8;
}

/** Packs the fields into option-sized groups; each entry is [nameBytes, value]. */
function fieldGroups(
  pkt: Packet,
  fields: Record<string, number>,
): { entries: [Uint8Array, number][]; bytes: number }[] {
  const groups: { entries: [Uint8Array, number][]; bytes: number }[] = [];
  let cur: { entries: [Uint8Array, number][]; bytes: number } | null = null;
  for (const key of Object.keys(fields)) {
    const v = fields[key];
    if (typeof v !== 'number') bad(pkt, `field ${key} is not a number`);
    if (key === '__proto__') bad(pkt, 'field name __proto__ is not allowed');
    const name = encodedFieldName(key);
    if (name.length === 0 || name.length > MAX_FIELD_NAME_BYTES) {
      bad(pkt, `field name "${key}" must be 1..${MAX_FIELD_NAME_BYTES} UTF-8 bytes`);
    }
    const size = 2 + name.length + fieldValueBytes(v);
    if (cur === null || cur.bytes + size > GENEVE_MAX_OPTION_DATA_BYTES) {
      cur = { entries: [], bytes: 0 };
      groups.push(cur);
    }
    cur.entries.push([name, v]);
    cur.bytes += size;
  }
  return groups;
}

const pad4 = (n: number): number => (n + 3) & ~3;

/**
 * Bytes of all options this packet needs (headers included), with HPCC INT in `intMulti` units
 * and codes of `intRatesBps`. Throws WireEncodeError for values our layouts cannot hold, so
 * encapsulation never silently changes a value.
 */
export function telemetryOptionsBytes(
  pkt: Packet,
  intMulti = 1,
  intRatesBps: readonly number[] = NS3_HPCC_RATES_BPS,
): number {
  let n = 0;
  if (pkt.int !== null) {
    if (pkt.int.layout === 'hpcc') {
      checkRateCodes(pkt.int, intRatesBps);
      n += GENEVE_OPTION_HEADER_BYTES + HPCC_DATA_BYTES;
      if (hasActiveFlows(pkt)) n += GENEVE_OPTION_HEADER_BYTES + ACTIVE_FLOWS_DATA_BYTES;
      if (hasQlenHigh(pkt.int, intMulti)) n += GENEVE_OPTION_HEADER_BYTES + SLOT_U16_DATA_BYTES;
    } else {
      n += GENEVE_OPTION_HEADER_BYTES + MPCC_INT_BYTES;
    }
    if (!isUint(pkt.int.nhop, 16)) bad(pkt, `INT nhop ${pkt.int.nhop} is not a u16`);
  }
  const ext = pkt.ext;
  if (ext !== null) {
    if (ext.txTsNs !== null) {
      if (!isSafeUint(ext.txTsNs)) bad(pkt, `txTsNs ${ext.txTsNs} is not a non-negative safe integer`);
      n += GENEVE_OPTION_HEADER_BYTES + 8;
    }
    if (ext.tsEchoNs !== null) {
      if (!isSafeUint(ext.tsEchoNs)) bad(pkt, `tsEchoNs ${ext.tsEchoNs} is not a non-negative safe integer`);
      n += GENEVE_OPTION_HEADER_BYTES + 8;
    }
    if (ext.windowBytes !== null) {
      if (!isUint(ext.windowBytes, 32)) bad(pkt, `windowBytes ${ext.windowBytes} is not a u32`);
      n += GENEVE_OPTION_HEADER_BYTES + 4;
    }
    if (ext.ecnCount !== null) {
      if (!isUint(ext.ecnCount, 32)) bad(pkt, `ecnCount ${ext.ecnCount} is not a u32`);
      n += GENEVE_OPTION_HEADER_BYTES + 4;
    }
    if (ext.cnpPeriodNs !== null && !isUint(ext.cnpPeriodNs, 32))
      bad(pkt, `cnpPeriodNs ${ext.cnpPeriodNs} is not a u32`);
    if (cnpPeriodOutside(pkt, ext)) n += GENEVE_OPTION_HEADER_BYTES + 4;
    if (ext.fields !== null) {
      for (const g of fieldGroups(pkt, ext.fields)) n += GENEVE_OPTION_HEADER_BYTES + pad4(g.bytes);
    }
    if (ext.sack !== null) {
      const k = ext.sack;
      if (!isUint(k.refPsn, 24) || !isUint(k.basePsn, 24))
        bad(pkt, `SACK PSNs ${k.refPsn}/${k.basePsn} not 24-bit`);
      if (!isUint(k.bitsLo, 32) || !isUint(k.bitsHi, 32)) bad(pkt, 'SACK bitmap words are not u32');
      if (!isUint(k.oooPackets, 32)) bad(pkt, `SACK out-of-order count ${k.oooPackets} is not a u32`);
      n += GENEVE_OPTION_HEADER_BYTES + SACK_DATA_BYTES;
    }
  }
  if (pkt.trimHop !== 0) {
    if (!isUint(pkt.trimHop, 8)) bad(pkt, `trimHop ${pkt.trimHop} is not 1..255`);
    if (!isUint(pkt.payloadLen, 16)) bad(pkt, `trimmed payloadLen ${pkt.payloadLen} is not a u16`);
    n += GENEVE_OPTION_HEADER_BYTES + TRIMMED_DATA_BYTES;
  }
  if (needsMeta(pkt)) {
    if (!isSafeUint(pkt.id)) bad(pkt, `id ${pkt.id} is not a non-negative safe integer`);
    if (!isUint(pkt.prio, 8)) bad(pkt, `prio ${pkt.prio} is not a u8`);
    n += GENEVE_OPTION_HEADER_BYTES + META_DATA_BYTES;
  }
  return n;
}

function optHeader(buf: Uint8Array, off: number, type: number, dataBytes: number): number {
  return off + writeGeneveOptionHeader(buf, off, ROCELAB_OPTION_CLASS, type, dataBytes);
}

/** Writes the options at `off`; returns the offset after them. Call telemetryOptionsBytes first. */
export function writeTelemetryOptions(
  pkt: Packet,
  buf: Uint8Array,
  off: number,
  intMulti = 1,
  intRatesBps: readonly number[] = NS3_HPCC_RATES_BPS,
): number {
  let p = off;
  const st = pkt.int;
  if (st !== null) {
    if (st.layout === 'hpcc') {
      p = optHeader(buf, p, OptionType.HpccInt, HPCC_DATA_BYTES);
      p += encodeHpccInt(buf, p, st, intMulti, intRatesBps);
      buf[p++] = 0;
      buf[p++] = 0;
      if (hasActiveFlows(pkt)) {
        p = optHeader(buf, p, OptionType.HpccActiveFlows, ACTIVE_FLOWS_DATA_BYTES);
        for (let i = 0; i < HPCC_MAX_HOPS; i++) {
          const f = i < st.hops.length ? st.hops[i].activeFlows : 0;
          writeU16(buf, p + 2 * i, Math.min(f, 0xffff));
        }
        buf[p + 10] = 0;
        buf[p + 11] = 0;
        p += ACTIVE_FLOWS_DATA_BYTES;
      }
      if (hasQlenHigh(st, intMulti)) {
        p = optHeader(buf, p, OptionType.HpccQlenHigh, SLOT_U16_DATA_BYTES);
        for (let i = 0; i < HPCC_MAX_HOPS; i++) {
          const q = i < st.hops.length ? st.hops[i].qlenBytes : 0;
          writeU16(buf, p + 2 * i, hpccQlenHighUnits(q, intMulti));
        }
        buf[p + 10] = 0;
        buf[p + 11] = 0;
        p += SLOT_U16_DATA_BYTES;
      }
    } else {
      p = optHeader(buf, p, OptionType.MpccInt, MPCC_INT_BYTES);
      p += encodeMpccInt(buf, p, st);
    }
  }
  const ext = pkt.ext;
  if (ext !== null) {
    if (ext.txTsNs !== null) {
      p = optHeader(buf, p, OptionType.TxTs, 8);
      writeU64(buf, p, ext.txTsNs);
      p += 8;
    }
    if (ext.tsEchoNs !== null) {
      p = optHeader(buf, p, OptionType.TsEcho, 8);
      writeU64(buf, p, ext.tsEchoNs);
      p += 8;
    }
    if (ext.windowBytes !== null) {
      p = optHeader(buf, p, OptionType.Window, 4);
      writeU32(buf, p, ext.windowBytes);
      p += 4;
    }
    if (ext.ecnCount !== null) {
      p = optHeader(buf, p, OptionType.EcnCount, 4);
      writeU32(buf, p, ext.ecnCount);
      p += 4;
    }
    if (ext.cnpPeriodNs !== null && cnpPeriodOutside(pkt, ext)) {
      p = optHeader(buf, p, OptionType.CnpPeriod, 4);
      writeU32(buf, p, ext.cnpPeriodNs);
      p += 4;
    }
    if (ext.fields !== null) {
      for (const g of fieldGroups(pkt, ext.fields)) {
        const data = pad4(g.bytes);
        p = optHeader(buf, p, OptionType.Fields, data);
        const end = p + data;
        for (const [name, v] of g.entries) {
          buf[p++] = name.length;
          buf.set(name, p);
          p += name.length;
          if (fieldValueBytes(v) === 4) {
            buf[p++] = FIELD_TAG_U32;
            writeU32(buf, p, v);
            p += 4;
          } else {
            buf[p++] = FIELD_TAG_F64;
            writeF64(buf, p, v);
            p += 8;
          }
        }
        while (p < end) buf[p++] = 0;
      }
    }
  }
  if (ext !== null && ext.sack !== null) {
    const k = ext.sack;
    p = optHeader(buf, p, OptionType.Sack, SACK_DATA_BYTES);
    writeU32(buf, p, (k.refPsn | (k.lastHop ? 0x80000000 : 0)) >>> 0);
    writeU32(buf, p + 4, k.basePsn);
    writeU32(buf, p + 8, k.bitsLo);
    writeU32(buf, p + 12, k.bitsHi);
    writeU32(buf, p + 16, k.oooPackets);
    p += SACK_DATA_BYTES;
  }
  if (pkt.trimHop !== 0) {
    p = optHeader(buf, p, OptionType.Trimmed, TRIMMED_DATA_BYTES);
    buf[p] = pkt.trimHop;
    buf[p + 1] = pkt.trimLastHop ? 1 : 0;
    writeU16(buf, p + 2, pkt.payloadLen);
    p += TRIMMED_DATA_BYTES;
  }
  if (needsMeta(pkt)) {
    p = optHeader(buf, p, OptionType.Meta, META_DATA_BYTES);
    buf[p] = pkt.prio;
    buf[p + 1] = 0;
    buf[p + 2] = 0;
    buf[p + 3] = 0;
    writeU64(buf, p + 4, pkt.id);
    p += META_DATA_BYTES;
  }
  return p;
}

function extOf(pkt: Packet): PacketExt {
  if (pkt.ext === null) pkt.ext = createExt();
  return pkt.ext;
}

function wrongLength(type: number, got: number, want: number, off: number): DecodeError {
  return decodeError(
    'bad-option',
    `option type 0x${type.toString(16)} has ${got} data bytes, expected ${want}`,
    off,
  );
}

function decodeFields(
  buf: Uint8Array,
  off: number,
  end: number,
  into: Record<string, number>,
): DecodeError | null {
  let p = off;
  while (p < end) {
    const nameLen = buf[p];
    if (nameLen === 0) {
      // zero padding ends the entries; anything after it must be padding too
      for (let i = p; i < end; i++)
        if (buf[i] !== 0) return decodeError('bad-option', 'data after field padding', i);
      return null;
    }
    if (p + 1 + nameLen + 1 > end) return decodeError('bad-option', 'field entry runs past its option', p);
    let name: string;
    try {
      name = utf8Decoder.decode(buf.subarray(p + 1, p + 1 + nameLen));
    } catch {
      return decodeError('bad-option', 'field name is not UTF-8', p + 1);
    }
    if (name === '__proto__') return decodeError('bad-option', 'field name __proto__ is not allowed', p + 1);
    p += 1 + nameLen;
    const tag = buf[p++];
    if (tag === FIELD_TAG_U32) {
      if (p + 4 > end) return decodeError('bad-option', 'field value runs past its option', p);
      into[name] = readU32(buf, p);
      p += 4;
    } else if (tag === FIELD_TAG_F64) {
      if (p + 8 > end) return decodeError('bad-option', 'field value runs past its option', p);
      into[name] = readF64(buf, p);
      p += 8;
    } else {
      return decodeError('bad-option', `field value tag ${tag} is unknown`, p - 1);
    }
  }
  return null;
}

/**
 * Applies one class-0xFFF0 option to a decoded packet. Unknown types of our class are skipped
 * (a newer peer may send more). Returns null or the reason the option is malformed.
 * HpccActiveFlows is applied by the caller once the stack is known (`applyActiveFlows`).
 */
export function applyTelemetryOption(
  pkt: Packet,
  type: number,
  buf: Uint8Array,
  off: number,
  bytes: number,
  intMulti = 1,
  intRatesBps: readonly number[] = NS3_HPCC_RATES_BPS,
): DecodeError | null {
  switch (type) {
    case OptionType.HpccInt: {
      if (bytes !== HPCC_DATA_BYTES) return wrongLength(type, bytes, HPCC_DATA_BYTES, off);
      const st = decodeHpccInt(buf, off, intMulti, intRatesBps);
      if ('code' in st) return st;
      pkt.int = st;
      return null;
    }
    case OptionType.MpccInt: {
      if (bytes !== MPCC_INT_BYTES) return wrongLength(type, bytes, MPCC_INT_BYTES, off);
      const st = decodeMpccInt(buf, off);
      if ('code' in st) return st;
      pkt.int = st;
      return null;
    }
    case OptionType.HpccActiveFlows:
      return bytes === ACTIVE_FLOWS_DATA_BYTES
        ? null
        : wrongLength(type, bytes, ACTIVE_FLOWS_DATA_BYTES, off);
    case OptionType.HpccQlenHigh:
      return bytes === SLOT_U16_DATA_BYTES ? null : wrongLength(type, bytes, SLOT_U16_DATA_BYTES, off);
    case OptionType.TxTs:
    case OptionType.TsEcho: {
      if (bytes !== 8) return wrongLength(type, bytes, 8, off);
      const v = readU64(buf, off);
      if (!Number.isSafeInteger(v)) return decodeError('bad-option', 'timestamp beyond 2^53 ns', off);
      if (type === OptionType.TxTs) extOf(pkt).txTsNs = v;
      else extOf(pkt).tsEchoNs = v;
      return null;
    }
    case OptionType.Window:
    case OptionType.EcnCount:
    case OptionType.CnpPeriod: {
      if (bytes !== 4) return wrongLength(type, bytes, 4, off);
      const v = readU32(buf, off);
      const ext = extOf(pkt);
      if (type === OptionType.Window) ext.windowBytes = v;
      else if (type === OptionType.EcnCount) ext.ecnCount = v;
      else ext.cnpPeriodNs = v;
      return null;
    }
    case OptionType.Fields: {
      const ext = extOf(pkt);
      if (ext.fields === null) ext.fields = {};
      return decodeFields(buf, off, off + bytes, ext.fields);
    }
    case OptionType.Sack: {
      if (bytes !== SACK_DATA_BYTES) return wrongLength(type, bytes, SACK_DATA_BYTES, off);
      const ref = readU32(buf, off);
      const base = readU32(buf, off + 4);
      if ((ref & 0x7f000000) !== 0 || (base & 0xff000000) !== 0)
        return decodeError('bad-option', 'SACK reserved bits set', off);
      extOf(pkt).sack = {
        refPsn: ref & 0xffffff,
        basePsn: base,
        bitsLo: readU32(buf, off + 8),
        bitsHi: readU32(buf, off + 12),
        oooPackets: readU32(buf, off + 16),
        lastHop: ref >>> 31 === 1,
      };
      return null;
    }
    case OptionType.Trimmed: {
      if (bytes !== TRIMMED_DATA_BYTES) return wrongLength(type, bytes, TRIMMED_DATA_BYTES, off);
      if (pkt.kind !== FrameKind.Data || pkt.payloadLen !== 0)
        return decodeError('bad-option', 'a trimmed frame is a data frame without payload', off);
      if (buf[off] === 0) return decodeError('bad-option', 'trimmed at hop 0', off);
      if (buf[off + 1] > 1)
        return decodeError('bad-option', `trim flags 0x${buf[off + 1].toString(16)}`, off + 1);
      pkt.trimHop = buf[off];
      pkt.trimLastHop = buf[off + 1] === 1;
      pkt.payloadLen = readU16(buf, off + 2);
      pkt.payload = null;
      return null;
    }
    case OptionType.Meta:
      if (bytes !== META_DATA_BYTES) return wrongLength(type, bytes, META_DATA_BYTES, off);
      pkt.prio = buf[off];
      pkt.id = readU64(buf, off + 4);
      if (!Number.isSafeInteger(pkt.id)) return decodeError('bad-option', 'packet id beyond 2^53', off + 4);
      return null;
    default:
      return null;
  }
}

/** Adds the HpccQlenHigh option's units to the decoded HPCC stack's queue lengths. */
export function applyQlenHigh(pkt: Packet, buf: Uint8Array, off: number, intMulti = 1): void {
  const st = pkt.int;
  if (st === null || st.layout !== 'hpcc') return;
  for (let i = 0; i < st.hops.length; i++) addHpccQlenHigh(st.hops[i], readU16(buf, off + 2 * i), intMulti);
}

/** Copies the HpccActiveFlows option data into the decoded HPCC stack's hops. */
export function applyActiveFlows(pkt: Packet, buf: Uint8Array, off: number): void {
  const st = pkt.int;
  if (st === null || st.layout !== 'hpcc') return;
  for (let i = 0; i < st.hops.length; i++) st.hops[i].activeFlows = readU16(buf, off + 2 * i);
}
