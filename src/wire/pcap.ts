/**
 * Classic pcap (not pcapng), little-endian, LINKTYPE_ETHERNET. Nanosecond resolution by default
 * because emulated time is integer ns; Wireshark/tshark read both magics.
 *
 * Pure functions build the bytes; PcapWriter batches records and hands full chunks to a sink
 * the caller provides (a file stream, an array in a test), so this module never does I/O and
 * firmware-free code can use it. Frames are standard frames (encodeFrame) by default;
 * `writeEncapsulated` writes Geneve datagrams wrapped in outer headers instead, which keeps the
 * telemetry visible in the capture.
 */
import { readU32LE, writeU16LE, writeU32LE } from './bytes.js';
import { type EncapsulateOptions, encapsulate } from './encap.js';
import { type DecodeError, decodeError } from './errors.js';
import { type EncodeOptions, encodedFrameBytes, encodeFrameInto } from './frame.js';
import { encodeOuterFrame, type OuterHeaders } from './outer.js';
import type { Packet } from './packet.js';

export const PCAP_MAGIC_US = 0xa1b2c3d4;
export const PCAP_MAGIC_NS = 0xa1b23c4d;
export const LINKTYPE_ETHERNET = 1;
export const PCAP_GLOBAL_HEADER_BYTES = 24;
export const PCAP_RECORD_HEADER_BYTES = 16;
export const PCAP_DEFAULT_SNAPLEN = 262144;

export interface PcapOptions {
  /** Nanosecond timestamps (magic 0xa1b23c4d); false = microseconds. Default true. */
  nanosecond?: boolean;
  snapLen?: number;
  linkType?: number;
}

export function pcapGlobalHeader(opts: PcapOptions = {}): Buffer {
  const b = Buffer.alloc(PCAP_GLOBAL_HEADER_BYTES);
  writeU32LE(b, 0, opts.nanosecond === false ? PCAP_MAGIC_US : PCAP_MAGIC_NS);
  writeU16LE(b, 4, 2);
  writeU16LE(b, 6, 4);
  // thiszone and sigfigs stay 0
  writeU32LE(b, 16, opts.snapLen ?? PCAP_DEFAULT_SNAPLEN);
  writeU32LE(b, 20, opts.linkType ?? LINKTYPE_ETHERNET);
  return b;
}

/**
 * Writes a 16-byte record header at `off`. `timeNs` is emulated ns since the epoch of the
 * capture; frames longer than snapLen are cut (orig_len keeps the real length).
 */
export function writePcapRecordHeader(
  buf: Uint8Array,
  off: number,
  timeNs: number,
  capturedBytes: number,
  originalBytes: number,
  nanosecond = true,
): void {
  const t = timeNs < 0 ? 0 : Math.floor(timeNs);
  const sec = Math.floor(t / 1e9);
  const frac = t - sec * 1e9;
  writeU32LE(buf, off, sec);
  writeU32LE(buf, off + 4, nanosecond ? frac : Math.floor(frac / 1000));
  writeU32LE(buf, off + 8, capturedBytes);
  writeU32LE(buf, off + 12, originalBytes);
}

/** One record (header + frame bytes) as a fresh Buffer. */
export function pcapRecord(timeNs: number, frame: Uint8Array, opts: PcapOptions = {}): Buffer {
  const cap = Math.min(frame.length, opts.snapLen ?? PCAP_DEFAULT_SNAPLEN);
  const b = Buffer.allocUnsafe(PCAP_RECORD_HEADER_BYTES + cap);
  writePcapRecordHeader(b, 0, timeNs, cap, frame.length, opts.nanosecond !== false);
  b.set(frame.subarray(0, cap), PCAP_RECORD_HEADER_BYTES);
  return b;
}

export type PcapSink = (chunk: Buffer) => void;

export interface PcapWriterOptions extends PcapOptions {
  /** Bytes gathered before the sink is called (default 64 KiB); 0 = one sink call per record. */
  chunkBytes?: number;
}

/**
 * Appends records to a sink. The global header is the first chunk. Each chunk handed to the sink
 * is a fresh Buffer the sink may keep (streams queue them). Call flush() before closing the file.
 */
export class PcapWriter {
  private readonly sink: PcapSink;
  private readonly nanosecond: boolean;
  private readonly snapLen: number;
  private readonly chunkBytes: number;
  private chunk: Buffer;
  private used = 0;
  /** Records written so far. */
  frames = 0;
  /** Bytes handed to the sink or waiting in the current chunk, global header included. */
  bytes = 0;

  constructor(sink: PcapSink, opts: PcapWriterOptions = {}) {
    this.sink = sink;
    this.nanosecond = opts.nanosecond !== false;
    this.snapLen = opts.snapLen ?? PCAP_DEFAULT_SNAPLEN;
    this.chunkBytes = opts.chunkBytes ?? 64 * 1024;
    const header = pcapGlobalHeader(opts);
    this.bytes = header.length;
    sink(header);
    this.chunk = Buffer.allocUnsafe(Math.max(this.chunkBytes, 0));
  }

  /** Room for `n` bytes in the current chunk, flushing first if needed; null if n exceeds a chunk. */
  private reserve(n: number): number {
    if (this.used + n > this.chunk.length) {
      this.flush();
      if (n > this.chunk.length) return -1;
    }
    const at = this.used;
    this.used += n;
    return at;
  }

  /** Appends a frame's bytes (copied) at emulated time `timeNs`. */
  writeFrame(timeNs: number, frame: Uint8Array): void {
    const cap = Math.min(frame.length, this.snapLen);
    const n = PCAP_RECORD_HEADER_BYTES + cap;
    const at = this.reserve(n);
    const buf = at < 0 ? Buffer.allocUnsafe(n) : this.chunk;
    const off = Math.max(at, 0);
    writePcapRecordHeader(buf, off, timeNs, cap, frame.length, this.nanosecond);
    buf.set(cap === frame.length ? frame : frame.subarray(0, cap), off + PCAP_RECORD_HEADER_BYTES);
    if (at < 0) this.sink(buf);
    this.frames++;
    this.bytes += n;
  }

  /** Encodes the packet's standard frame straight into the chunk (no intermediate frame buffer). */
  writePacket(timeNs: number, pkt: Packet, opts?: EncodeOptions): void {
    const len = encodedFrameBytes(pkt, opts);
    if (len > this.snapLen) {
      const frame = Buffer.allocUnsafe(len);
      encodeFrameInto(pkt, frame, 0, opts);
      this.writeFrame(timeNs, frame);
      return;
    }
    const n = PCAP_RECORD_HEADER_BYTES + len;
    const at = this.reserve(n);
    const buf = at < 0 ? Buffer.allocUnsafe(n) : this.chunk;
    const off = Math.max(at, 0);
    encodeFrameInto(pkt, buf, off + PCAP_RECORD_HEADER_BYTES, opts);
    writePcapRecordHeader(buf, off, timeNs, len, len, this.nanosecond);
    if (at < 0) this.sink(buf);
    this.frames++;
    this.bytes += n;
  }

  /** Writes the Geneve datagram of `pkt` inside outer Eth/IPv4/UDP headers (telemetry visible). */
  writeEncapsulated(timeNs: number, pkt: Packet, outer: OuterHeaders, opts: EncapsulateOptions): void {
    this.writeFrame(timeNs, encodeOuterFrame(encapsulate(pkt, opts), outer));
  }

  /** Hands the gathered records to the sink. */
  flush(): void {
    if (this.used === 0) return;
    this.sink(this.chunk.subarray(0, this.used));
    this.chunk = Buffer.allocUnsafe(this.chunk.length);
    this.used = 0;
  }
}

export interface PcapRecord {
  timeNs: number;
  originalBytes: number;
  /** View into the parsed buffer. */
  data: Uint8Array;
}

export interface PcapFile {
  nanosecond: boolean;
  linkType: number;
  snapLen: number;
  records: PcapRecord[];
}

/** Parses a little-endian classic pcap (what PcapWriter writes). Never throws. */
export function parsePcap(buf: Uint8Array): PcapFile | DecodeError {
  if (buf.length < PCAP_GLOBAL_HEADER_BYTES)
    return decodeError('truncated', 'pcap global header needs 24 bytes', 0);
  const magic = readU32LE(buf, 0);
  if (magic !== PCAP_MAGIC_NS && magic !== PCAP_MAGIC_US) {
    return decodeError(
      'bad-version',
      `pcap magic 0x${magic.toString(16)} (only little-endian classic pcap)`,
      0,
    );
  }
  const nanosecond = magic === PCAP_MAGIC_NS;
  const file: PcapFile = {
    nanosecond,
    linkType: readU32LE(buf, 20),
    snapLen: readU32LE(buf, 16),
    records: [],
  };
  let p = PCAP_GLOBAL_HEADER_BYTES;
  while (p < buf.length) {
    if (buf.length - p < PCAP_RECORD_HEADER_BYTES)
      return decodeError('truncated', 'pcap record header cut short', p);
    const sec = readU32LE(buf, p);
    const frac = readU32LE(buf, p + 4);
    const cap = readU32LE(buf, p + 8);
    const orig = readU32LE(buf, p + 12);
    if ((nanosecond ? frac >= 1e9 : frac >= 1e6) || cap > orig) {
      return decodeError('bad-field', 'pcap record header has an impossible value', p);
    }
    const start = p + PCAP_RECORD_HEADER_BYTES;
    if (buf.length - start < cap) return decodeError('truncated', 'pcap record data cut short', start);
    file.records.push({
      timeNs: sec * 1e9 + (nanosecond ? frac : frac * 1000),
      originalBytes: orig,
      data: buf.subarray(start, start + cap),
    });
    p = start + cap;
  }
  return file;
}
