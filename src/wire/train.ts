/**
 * Frame trains and control packets of the real runtime (docs/wire.md §6.1 Frame trains to §6.3 Link
 * sequence).
 *
 * A train datagram is geneve₁ · inner₁ · geneve₂ · inner₂ · … · geneveₙ · innerₙ: every Geneve
 * packet but the last carries a TrainLen option with its inner frame's length, the last inner
 * frame runs to the end of the UDP payload. A one-frame datagram is exactly what `encapsulate`
 * writes. A control packet (RFC 8926 §3.4 O bit, protocol 0x6558, no inner frame) carries a
 * Promise alone. The first Geneve packet of every datagram may carry the link's LinkSeq.
 *
 * Hot path: TrainWriter reuses one scratch buffer and one options object; TrainReader validates a
 * datagram in one walk over Geneve and option headers and keeps packet bounds in typed arrays.
 */
import { readF64, readU32, writeF64, writeU32 } from './bytes.js';
import {
  type EncapsulateOptions,
  encapsulateSized,
  MAX_DATAGRAM_BYTES,
  PROMISE_OPTION_BYTES,
  type PromiseTrailer,
  packetOptionsBytes,
  U32_OPTION_BYTES,
} from './encap.js';
import { type DecodeError, decodeError, WireEncodeError } from './errors.js';
import { EtherType } from './ethernet.js';
import { type EncodeOptions, encodedFrameBytes } from './frame.js';
import {
  GENEVE_CRITICAL_TYPE_BIT,
  GENEVE_HEADER_BYTES,
  GENEVE_MAX_OPTIONS_BYTES,
  GENEVE_OPTION_HEADER_BYTES,
  writeGeneveHeader,
  writeGeneveOptionHeader,
} from './geneve.js';
import type { Packet } from './packet.js';
import { OptionType, ROCELAB_OPTION_CLASS } from './telemetry.js';

/** UDP payload that fits a 1500-byte IPv4 MTU without fragmentation (1500 − 20 − 8). */
export const MTU1500_DATAGRAM_BYTES = 1472;

export interface ControlPacketOptions {
  /** 24-bit VNI: the sender's egress port, as for data. */
  vni: number;
  /** The promise, f64 ns (any value but NaN; +Infinity = no more frames on this link). */
  promiseNs: number;
  /** The link's datagram sequence number (u32); omitted when absent. */
  linkSeq?: number;
  /** Lockstep's end bound and heard promise (f64 ns), after the promise; omitted when absent. */
  endBoundNs?: number;
  heardNs?: number;
  /** The first sequence of the reverse link the sender misses (u32; overlay retransmission). */
  nackSeq?: number;
  /**
   * How many datagrams from `nackSeq` on the sender misses (u32 ≥ 1): the gap before the first
   * one it holds. Omitted: every datagram from `nackSeq` on (the 4-byte form of the option).
   */
  nackCount?: number;
  /** The next sequence of the reverse link the sender expects (u32; frees the peer's resend ring). */
  ackSeq?: number;
}

/** Bytes of the EndBound, Heard and Ack options a trailer asks for. */
export function trailerBytes(t: PromiseTrailer): number {
  return (
    (t.endBoundNs === undefined ? 0 : PROMISE_OPTION_BYTES) +
    (t.heardNs === undefined ? 0 : PROMISE_OPTION_BYTES) +
    (t.ackSeq === undefined ? 0 : U32_OPTION_BYTES)
  );
}

function checkU32(name: string, v: number): void {
  if (!(Number.isInteger(v) && v >= 0 && v <= 0xffff_ffff))
    throw new WireEncodeError(`${name} ${v} is not a u32`);
}

/** Throws WireEncodeError for a trailer the wire cannot carry (an ack that is not a u32, a NaN). */
function checkTrailer(t: PromiseTrailer): void {
  if (t.ackSeq !== undefined) checkU32('ackSeq', t.ackSeq);
  if (Number.isNaN(t.endBoundNs))
    throw new WireEncodeError(`option type 0x${OptionType.EndBound.toString(16)} is NaN`);
  if (Number.isNaN(t.heardNs))
    throw new WireEncodeError(`option type 0x${OptionType.Heard.toString(16)} is NaN`);
}

/**
 * Writes the trailer's options (Ack, EndBound, Heard: trailerBytes(t) bytes) at `p`, right after
 * the promise they ride with, in a control packet and in a train's last packet alike; returns the
 * end. Checks the whole trailer before writing any of it.
 */
function writeTrailer(buf: Uint8Array, p: number, t: PromiseTrailer): number {
  checkTrailer(t);
  if (t.ackSeq !== undefined) {
    p += writeGeneveOptionHeader(buf, p, ROCELAB_OPTION_CLASS, OptionType.Ack, 4);
    writeU32(buf, p, t.ackSeq);
    p += 4;
  }
  for (const [type, v] of [
    [OptionType.EndBound, t.endBoundNs],
    [OptionType.Heard, t.heardNs],
  ] as const) {
    if (v === undefined) continue;
    p += writeGeneveOptionHeader(buf, p, ROCELAB_OPTION_CLASS, type, 8);
    writeF64(buf, p, v);
    p += 8;
  }
  return p;
}

function checkVni(vni: number): void {
  if (!(Number.isInteger(vni) && vni >= 0 && vni <= 0xff_ffff))
    throw new WireEncodeError(`VNI ${vni} is not 24-bit`);
}

/** Bytes `encodeControlInto` writes. */
export function controlPacketBytes(opts: ControlPacketOptions): number {
  return (
    GENEVE_HEADER_BYTES +
    PROMISE_OPTION_BYTES +
    (opts.linkSeq === undefined ? 0 : U32_OPTION_BYTES) +
    nackOptionBytes(opts) +
    trailerBytes(opts)
  );
}

/** Bytes of the Nack option: u32 first sequence, then the u32 count when there is one. */
function nackOptionBytes(opts: ControlPacketOptions): number {
  if (opts.nackSeq === undefined) return 0;
  return opts.nackCount === undefined ? U32_OPTION_BYTES : U32_OPTION_BYTES + 4;
}

/** Writes a control packet (O bit, options only) at `off`; returns its length. */
export function encodeControlInto(buf: Uint8Array, off: number, opts: ControlPacketOptions): number {
  checkVni(opts.vni);
  if (Number.isNaN(opts.promiseNs)) throw new WireEncodeError('promiseNs is NaN');
  const hasSeq = opts.linkSeq !== undefined;
  if (hasSeq) checkU32('linkSeq', opts.linkSeq!);
  const optBytes =
    PROMISE_OPTION_BYTES + (hasSeq ? U32_OPTION_BYTES : 0) + nackOptionBytes(opts) + trailerBytes(opts);
  writeGeneveHeader(buf, off, optBytes, opts.vni, EtherType.TransparentEthernet, false, true);
  let p = off + GENEVE_HEADER_BYTES;
  if (hasSeq) {
    p += writeGeneveOptionHeader(buf, p, ROCELAB_OPTION_CLASS, OptionType.LinkSeq, 4);
    writeU32(buf, p, opts.linkSeq!);
    p += 4;
  }
  if (opts.nackSeq !== undefined) {
    checkU32('nackSeq', opts.nackSeq);
    const count = opts.nackCount;
    if (count !== undefined) {
      checkU32('nackCount', count);
      if (count === 0) throw new WireEncodeError('nackCount must be at least 1');
    }
    p += writeGeneveOptionHeader(buf, p, ROCELAB_OPTION_CLASS, OptionType.Nack, count === undefined ? 4 : 8);
    writeU32(buf, p, opts.nackSeq);
    p += 4;
    if (count !== undefined) {
      writeU32(buf, p, count);
      p += 4;
    }
  }
  p += writeGeneveOptionHeader(buf, p, ROCELAB_OPTION_CLASS, OptionType.Promise, 8);
  writeF64(buf, p, opts.promiseNs);
  return writeTrailer(buf, p + 8, opts) - off;
}

/** A control datagram: the promise (and link sequence) with no frame. */
export function encodeControl(opts: ControlPacketOptions): Buffer {
  const buf = Buffer.allocUnsafe(controlPacketBytes(opts));
  encodeControlInto(buf, 0, opts);
  return buf;
}

export interface TrainWriterOptions extends EncodeOptions {
  /**
   * Largest UDP payload to build (default MTU1500_DATAGRAM_BYTES): the caller passes what its
   * path carries without IP fragmentation (65507 on loopback, 1472 on a 1500-byte MTU).
   */
  maxDatagramBytes?: number;
  /** HPCC INT_MULTI, as for encapsulate. */
  intMulti?: number;
  /** HPCC INT line-rate table, as for encapsulate. */
  intRatesBps?: readonly number[];
  /**
   * Keep room for lockstep's whole trailer beside the promise in every datagram (EndBound, Heard
   * and Ack), so finish(promiseNs, trailer) never makes it larger than maxDatagramBytes.
   */
  reserveEndBound?: boolean;
}

/**
 * Packs encapsulated frames of one link into datagrams of at most maxDatagramBytes:
 *
 *   w.begin(vni, seq++);
 *   if (!w.append(pkt, arrivalNs)) { send(w.finish(promiseNs)); w.begin(vni, seq++); w.append(pkt, arrivalNs); }
 *   …
 *   send(w.finish(promiseNs));
 *
 * finish() on a writer with no frames sends the promise alone in a control packet. Each
 * datagram keeps room for a promise, so finish(promiseNs) never overflows maxDatagramBytes.
 */
export class TrainWriter {
  readonly maxDatagramBytes: number;
  private readonly scratch: Buffer;
  /** Reused for every packet so appending allocates nothing. */
  private readonly opts: EncapsulateOptions;
  private used = 0;
  private lastOff = 0;
  private lastOptBytes = 0;
  private linkSeq: number | undefined = undefined;
  private open = false;
  /** Frames in the datagram being built. */
  frames = 0;
  /** Bytes every datagram keeps free for what finish() adds (the promise, maybe an end bound). */
  private readonly reserveBytes: number;

  constructor(opts: TrainWriterOptions = {}) {
    const max = opts.maxDatagramBytes ?? MTU1500_DATAGRAM_BYTES;
    if (!(Number.isInteger(max) && max >= 64 && max <= MAX_DATAGRAM_BYTES))
      throw new WireEncodeError(`maxDatagramBytes ${max} must be an integer in 64..${MAX_DATAGRAM_BYTES}`);
    this.maxDatagramBytes = max;
    this.scratch = Buffer.allocUnsafe(max);
    this.reserveBytes =
      PROMISE_OPTION_BYTES +
      (opts.reserveEndBound === true ? 2 * PROMISE_OPTION_BYTES + U32_OPTION_BYTES : 0);
    this.opts = { ...opts, vni: 0, arrivalNs: undefined, linkSeq: undefined, promiseNs: undefined };
  }

  /** Bytes of the datagram so far. */
  get bytes(): number {
    return this.used;
  }

  /** Starts a datagram of link `vni`; `linkSeq` (u32) rides on its first Geneve packet. */
  begin(vni: number, linkSeq?: number): void {
    checkVni(vni);
    if (linkSeq !== undefined) checkU32('linkSeq', linkSeq);
    this.opts.vni = vni;
    this.linkSeq = linkSeq;
    this.used = 0;
    this.frames = 0;
    this.open = true;
  }

  /**
   * Appends `pkt` as the datagram's next Geneve packet. Returns false, leaving the datagram as it
   * was, when it does not fit; throws WireEncodeError when not even an empty datagram could hold it
   * (or for a Packet `encapsulate` refuses).
   */
  append(pkt: Packet, arrivalNs?: number, promiseNs?: number): boolean {
    if (!this.open) throw new WireEncodeError('TrainWriter.append before begin()');
    const o = this.opts;
    o.arrivalNs = arrivalNs;
    o.promiseNs = promiseNs;
    o.linkSeq = this.frames === 0 ? this.linkSeq : undefined;
    const optBytes = packetOptionsBytes(pkt, o);
    const need = GENEVE_HEADER_BYTES + optBytes + encodedFrameBytes(pkt, o);
    // The previous packet gains a TrainLen; a promise must still fit on whichever packet ends last.
    const chain = this.frames === 0 ? 0 : U32_OPTION_BYTES;
    if (this.used + chain + need + this.reserveBytes > this.maxDatagramBytes) {
      if (this.frames === 0) {
        throw new WireEncodeError(
          `packet ${pkt.id} needs ${need + this.reserveBytes} bytes with a promise, more than maxDatagramBytes ${this.maxDatagramBytes}`,
        );
      }
      return false;
    }
    if (this.frames > 0 && this.lastOptBytes + U32_OPTION_BYTES > GENEVE_MAX_OPTIONS_BYTES) return false;
    // Written past the room the previous packet's TrainLen will take, and before it is inserted,
    // so a Packet the encoder refuses (it throws) leaves the datagram as it was.
    const at = this.used + chain;
    const written = encapsulateSized(pkt, this.scratch, at, o, optBytes);
    if (chain > 0) {
      const innerOff = this.lastOff + GENEVE_HEADER_BYTES + this.lastOptBytes;
      const innerBytes = this.used - innerOff;
      this.openOptions(innerOff, U32_OPTION_BYTES);
      writeGeneveOptionHeader(this.scratch, innerOff, ROCELAB_OPTION_CLASS, OptionType.TrainLen, 4);
      writeU32(this.scratch, innerOff + GENEVE_OPTION_HEADER_BYTES, innerBytes);
    }
    this.used = at + written;
    this.lastOff = at;
    this.lastOptBytes = optBytes;
    this.frames++;
    return true;
  }

  /**
   * Opens `n` bytes of option room in the last packet at `at` (the end of its options) by moving
   * its inner frame, which ends at this.used, up; the caller writes the options.
   */
  private openOptions(at: number, n: number): void {
    const buf = this.scratch;
    buf.copyWithin(at + n, at, this.used);
    this.lastOptBytes += n;
    buf[this.lastOff] = (buf[this.lastOff] & 0xc0) | (this.lastOptBytes >>> 2);
    this.used += n;
  }

  /**
   * The datagram as a fresh Buffer (the socket may keep it); `promiseNs` rides on its last packet
   * (replacing a promise appended with that frame), or alone in a control packet when no frame
   * was appended. The writer then needs begin() again. Throws WireEncodeError for a promise of NaN, for nothing to send, or when the last packet's
   * options are already full (more than 240 bytes of telemetry: send the promise alone then).
   */
  finish(promiseNs?: number, trailer: PromiseTrailer = NO_TRAILER): Buffer {
    const n = this.finishInPlace(promiseNs, trailer);
    const out = Buffer.allocUnsafe(n);
    this.scratch.copy(out, 0, 0, n);
    return out;
  }

  /**
   * finish() without the copy: the datagram is the first (returned) bytes of `datagram`, valid
   * until the next begin(). For a caller that copies it anyway (the real runtime's resend ring):
   * a fresh Buffer per datagram is young external memory V8 collects for.
   */
  finishInPlace(promiseNs?: number, trailer: PromiseTrailer = NO_TRAILER): number {
    if (!this.open) throw new WireEncodeError('TrainWriter.finish before begin()');
    if (promiseNs !== undefined && Number.isNaN(promiseNs)) throw new WireEncodeError('promiseNs is NaN');
    // The trailer (end bound, ack) rides with the promise: without one it would be lost unsaid.
    if (promiseNs === undefined && trailer !== NO_TRAILER && trailerBytes(trailer) > 0)
      throw new WireEncodeError(
        'a trailer goes with a promise: TrainWriter.finish with a trailer and no promise',
      );
    if (this.frames === 0) {
      if (promiseNs === undefined)
        throw new WireEncodeError('TrainWriter.finish with no frame and no promise');
      this.open = false;
      return encodeControlInto(this.scratch, 0, {
        vni: this.opts.vni,
        promiseNs,
        linkSeq: this.linkSeq,
        ...trailer,
      });
    }
    if (promiseNs !== undefined) {
      const tBytes = trailerBytes(trailer);
      const had = findOption(this.scratch, this.lastOff, OptionType.Promise, 8);
      if (had >= 0) {
        if (tBytes > 0)
          throw new WireEncodeError(
            'a trailer goes with the promise finish() writes, not one appended with a frame',
          );
        // the last frame was appended with a promise: the newer one replaces it
        writeF64(this.scratch, had, promiseNs);
      } else {
        if (!this.canCarry(PROMISE_OPTION_BYTES + tBytes))
          throw new WireEncodeError(
            tBytes > 0
              ? 'no room for a promise and its trailer in the last packet: its Geneve options are full'
              : 'no room for a promise in the last packet: its Geneve options are full',
          );
        // Checked before the frame moves, so a refused trailer leaves the datagram as it was.
        checkTrailer(trailer);
        // The promise, then its trailer, as in a control packet (encodeControlInto).
        const at = this.lastOff + GENEVE_HEADER_BYTES + this.lastOptBytes;
        this.openOptions(at, PROMISE_OPTION_BYTES + tBytes);
        const p = at + writeGeneveOptionHeader(this.scratch, at, ROCELAB_OPTION_CLASS, OptionType.Promise, 8);
        writeF64(this.scratch, p, promiseNs);
        writeTrailer(this.scratch, p + 8, trailer);
      }
    }
    this.open = false;
    return this.used;
  }

  /** The buffer finishInPlace() leaves the datagram in (the writer's own: read it before begin()). */
  get datagram(): Buffer {
    return this.scratch;
  }

  /** Whether the last packet's Geneve options have room for `optionBytes` more. */
  canCarry(optionBytes: number): boolean {
    return this.frames > 0 && this.lastOptBytes + optionBytes <= GENEVE_MAX_OPTIONS_BYTES;
  }
}

const NO_TRAILER: PromiseTrailer = {};

/**
 * Validates a datagram's train structure and gives each Geneve packet's bounds. Never throws.
 *
 *   const err = reader.reset(msg);
 *   if (err === null) for (let i = 0; i < reader.count; i++) decapsulate(reader.packet(i), opts, meta);
 *
 * All or nothing: reset() checks every Geneve header, option bound and TrainLen before the first
 * frame is handed out. It does not decode inner frames (decapsulate does, per packet, and
 * validates each packet's TrainLen again against its slice).
 */
export class TrainReader {
  private buf: Uint8Array = new Uint8Array(0);
  private offs = new Int32Array(16);
  private lens = new Int32Array(16);
  /** Geneve packets in the datagram (0 after an error; 1 for a control packet). */
  count = 0;
  /** True for a control packet (O bit set, no inner frame). */
  control = false;
  /** LinkSeq of the first packet, or null. */
  linkSeq: number | null = null;
  /** Largest Promise carried by any packet (promises of a link only grow), or null. */
  promiseNs: number | null = null;
  /** Largest EndBound and Heard carried by any packet, or null. */
  endBoundNs: number | null = null;
  heardNs: number | null = null;
  /** The Nack of a control packet (the first reverse-link sequence its sender misses), or null. */
  nackSeq: number | null = null;
  /** How many datagrams from `nackSeq` on it misses; +∞ when the Nack names no count. */
  nackCount = Number.POSITIVE_INFINITY;
  /** The Ack of a promise trailer (the next reverse-link sequence its sender expects), or null. */
  ackSeq: number | null = null;

  /** Validates `buf` as one datagram; null when it is well formed. */
  reset(buf: Uint8Array, maxDatagramBytes = MAX_DATAGRAM_BYTES): DecodeError | null {
    this.buf = buf;
    this.count = 0;
    this.control = false;
    this.linkSeq = null;
    this.promiseNs = null;
    this.endBoundNs = null;
    this.heardNs = null;
    this.nackSeq = null;
    this.nackCount = Number.POSITIVE_INFINITY;
    this.ackSeq = null;
    const len = buf.length;
    if (len > maxDatagramBytes)
      return decodeError('oversized', `datagram of ${len} bytes exceeds ${maxDatagramBytes}`, 0);
    let n = 0;
    let p = 0;
    let promise = Number.NEGATIVE_INFINITY;
    let hasPromise = false;
    while (p < len || n === 0) {
      if (len - p < GENEVE_HEADER_BYTES) return decodeError('truncated', 'Geneve header needs 8 bytes', p);
      const b0 = buf[p];
      if (b0 >>> 6 !== 0) return decodeError('bad-version', `Geneve version ${b0 >>> 6}, expected 0`, p);
      const oam = (buf[p + 1] & 0x80) !== 0;
      const protocol = (buf[p + 2] << 8) | buf[p + 3];
      if (protocol !== EtherType.TransparentEthernet) {
        return decodeError(
          'unsupported',
          `Geneve protocol 0x${protocol.toString(16)} is not Ethernet (0x6558)`,
          p + 2,
        );
      }
      const optEnd = p + GENEVE_HEADER_BYTES + (b0 & 0x3f) * 4;
      if (optEnd > len) return decodeError('truncated', 'Geneve options run past the datagram', p);
      let trainLen = -1;
      let packetPromise = false;
      for (let q = p + GENEVE_HEADER_BYTES; q < optEnd; ) {
        if (optEnd - q < GENEVE_OPTION_HEADER_BYTES)
          return decodeError('bad-option', 'option header runs past OptLen', q);
        const dataBytes = (buf[q + 3] & 0x1f) * 4;
        const d = q + GENEVE_OPTION_HEADER_BYTES;
        if (d + dataBytes > optEnd)
          return decodeError('bad-option', `option of ${dataBytes} data bytes runs past OptLen`, q + 3);
        const cls = (buf[q] << 8) | buf[q + 1];
        const type = buf[q + 2];
        if (cls !== ROCELAB_OPTION_CLASS) {
          if ((type & GENEVE_CRITICAL_TYPE_BIT) !== 0)
            return decodeError('unsupported', `critical option class 0x${cls.toString(16)}`, q);
        } else if (type === OptionType.TrainLen || type === OptionType.LinkSeq) {
          if (dataBytes !== 4)
            return decodeError('bad-option', `option type 0x${type.toString(16)} needs 4 data bytes`, q + 3);
          if (type === OptionType.LinkSeq) {
            if (n !== 0) return decodeError('bad-option', 'link sequence after the first packet', q);
            if (this.linkSeq !== null) return decodeError('bad-option', 'two link sequences', q);
            this.linkSeq = readU32(buf, d);
          } else {
            if (trainLen >= 0) return decodeError('bad-option', 'two train lengths in one packet', q);
            trainLen = readU32(buf, d);
          }
        } else if (type === OptionType.Promise) {
          if (dataBytes !== 8) return decodeError('bad-option', 'promise option needs 8 data bytes', q + 3);
          if (packetPromise) return decodeError('bad-option', 'two promises in one packet', q);
          const v = readF64(buf, d);
          if (Number.isNaN(v)) return decodeError('bad-option', 'promise is NaN', d);
          packetPromise = true;
          hasPromise = true;
          if (v > promise) promise = v;
        } else if (type === OptionType.Nack) {
          if (dataBytes !== 4 && dataBytes !== 8)
            return decodeError('bad-option', 'nack option needs 4 or 8 data bytes', q + 3);
          this.nackSeq = readU32(buf, d);
          if (dataBytes === 8) {
            const count = readU32(buf, d + 4);
            if (count === 0) return decodeError('bad-option', 'nack count is 0', d + 4);
            this.nackCount = count;
          }
        } else if (type === OptionType.Ack) {
          if (dataBytes !== 4) return decodeError('bad-option', 'ack option needs 4 data bytes', q + 3);
          this.ackSeq = readU32(buf, d);
        } else if (type === OptionType.EndBound || type === OptionType.Heard) {
          if (dataBytes !== 8)
            return decodeError('bad-option', `option type 0x${type.toString(16)} needs 8 data bytes`, q + 3);
          const v = readF64(buf, d);
          if (Number.isNaN(v))
            return decodeError('bad-option', `option type 0x${type.toString(16)} is NaN`, d);
          if (type === OptionType.EndBound) {
            if (this.endBoundNs === null || v > this.endBoundNs) this.endBoundNs = v;
          } else if (this.heardNs === null || v > this.heardNs) this.heardNs = v;
        }
        q = d + dataBytes;
      }
      let end: number;
      if (oam) {
        if (n !== 0 || trainLen >= 0 || optEnd !== len) {
          return decodeError('bad-length', 'a control packet stands alone, with no inner frame', p);
        }
        if (!packetPromise) return decodeError('bad-option', 'control packet without a promise', p);
        this.control = true;
        end = optEnd;
      } else if (trainLen >= 0) {
        if (trainLen === 0) return decodeError('bad-length', 'train length 0: empty inner frame', p);
        if (trainLen > len - optEnd)
          return decodeError('bad-length', `train length ${trainLen} overruns the datagram`, p);
        if (trainLen === len - optEnd)
          return decodeError('bad-length', 'train length on the last packet of a datagram', p);
        end = optEnd + trainLen;
      } else {
        if (optEnd === len) return decodeError('bad-length', 'Geneve packet with no inner frame', p);
        end = len;
      }
      if (n === this.offs.length) this.grow();
      this.offs[n] = p;
      this.lens[n] = end - p;
      n++;
      p = end;
    }
    this.count = n;
    this.promiseNs = hasPromise ? promise : null;
    return null;
  }

  private grow(): void {
    const offs = new Int32Array(this.offs.length * 2);
    const lens = new Int32Array(this.lens.length * 2);
    offs.set(this.offs);
    lens.set(this.lens);
    this.offs = offs;
    this.lens = lens;
  }

  /** Offset of packet `i` in the datagram. */
  offset(i: number): number {
    return this.offs[i];
  }

  /** Bytes of packet `i` (Geneve header, options and inner frame). */
  length(i: number): number {
    return this.lens[i];
  }

  /** The datagram reset() was given (packet `i` is bytes offset(i) to offset(i) + length(i)). */
  get datagram(): Uint8Array {
    return this.buf;
  }

  /** Packet `i` as a view, ready for decapsulate. */
  packet(i: number): Uint8Array {
    const o = this.offs[i];
    return this.buf.subarray(o, o + this.lens[i]);
  }
}

const sharedReader = new TrainReader();

/** Calls `cb(offset, length)` for every Geneve packet of a well-formed datagram; the error otherwise. */
export function forEachTrainPacket(
  buf: Uint8Array,
  cb: (offset: number, length: number) => void,
): DecodeError | null {
  const err = sharedReader.reset(buf);
  if (err !== null) return err;
  const n = sharedReader.count;
  // copy out first: cb may itself use forEachTrainPacket
  const offs = Array.from({ length: n }, (_, i) => sharedReader.offset(i));
  const lens = Array.from({ length: n }, (_, i) => sharedReader.length(i));
  for (let i = 0; i < n; i++) cb(offs[i], lens[i]);
  return null;
}

/** Offset of the data of our option `type` (with `dataBytes` data) in the packet at `off`, or −1. */
function findOption(buf: Uint8Array, off: number, type: number, dataBytes: number): number {
  if (buf.length - off < GENEVE_HEADER_BYTES || buf[off] >>> 6 !== 0) return -1;
  const optEnd = Math.min(buf.length, off + GENEVE_HEADER_BYTES + (buf[off] & 0x3f) * 4);
  for (let p = off + GENEVE_HEADER_BYTES; p + GENEVE_OPTION_HEADER_BYTES <= optEnd; ) {
    const n = (buf[p + 3] & 0x1f) * 4;
    if (
      buf[p + 2] === type &&
      ((buf[p] << 8) | buf[p + 1]) === ROCELAB_OPTION_CLASS &&
      n === dataBytes &&
      p + GENEVE_OPTION_HEADER_BYTES + n <= optEnd
    )
      return p + GENEVE_OPTION_HEADER_BYTES;
    p += GENEVE_OPTION_HEADER_BYTES + n;
  }
  return -1;
}

/** The Promise of the Geneve packet at `off` (default: the datagram's first), or null. Never throws. */
export function readPromise(buf: Uint8Array, off = 0): number | null {
  const d = findOption(buf, off, OptionType.Promise, 8);
  if (d < 0) return null;
  const v = readF64(buf, d);
  return Number.isNaN(v) ? null : v;
}

/** The LinkSeq of a datagram (on its first Geneve packet), or null. Never throws. */
export function readLinkSeq(buf: Uint8Array): number | null {
  const d = findOption(buf, 0, OptionType.LinkSeq, 4);
  return d < 0 ? null : readU32(buf, d);
}

/**
 * `seq − expected` as a signed 32-bit number, so u32 wrap-around is handled: 0 in order, n > 0
 * means n datagrams are missing before `seq`, n < 0 a late (reordered or duplicated) datagram.
 */
export function linkSeqDiff(seq: number, expected: number): number {
  return (seq - expected) | 0;
}

/** True when the datagram is a Geneve control packet (O bit set). */
export function isControlPacket(buf: Uint8Array): boolean {
  return buf.length >= GENEVE_HEADER_BYTES && buf[0] >>> 6 === 0 && (buf[1] & 0x80) !== 0;
}
