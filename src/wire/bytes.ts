/**
 * Byte-level readers and writers over plain Uint8Array (Buffer is a subclass). They index bytes
 * directly instead of going through DataView or Buffer methods: that keeps them allocation-free,
 * lets decoders accept a bare Uint8Array, and is what V8 optimises best for short fields.
 * Callers check bounds; these helpers assume the bytes exist.
 */

export function readU16(buf: Uint8Array, off: number): number {
  return (buf[off] << 8) | buf[off + 1];
}

export function readU24(buf: Uint8Array, off: number): number {
  return (buf[off] << 16) | (buf[off + 1] << 8) | buf[off + 2];
}

export function readU32(buf: Uint8Array, off: number): number {
  return ((buf[off] << 24) | (buf[off + 1] << 16) | (buf[off + 2] << 8) | buf[off + 3]) >>> 0;
}

/** 48-bit big-endian value (MAC addresses) as an exact double. */
export function readU48(buf: Uint8Array, off: number): number {
  return readU16(buf, off) * 0x1_0000_0000 + readU32(buf, off + 2);
}

/** 64-bit big-endian value as a double: exact below 2^53, which covers every ns timestamp we use. */
export function readU64(buf: Uint8Array, off: number): number {
  return readU32(buf, off) * 0x1_0000_0000 + readU32(buf, off + 4);
}

export function readU16LE(buf: Uint8Array, off: number): number {
  return buf[off] | (buf[off + 1] << 8);
}

export function readU32LE(buf: Uint8Array, off: number): number {
  return (buf[off] | (buf[off + 1] << 8) | (buf[off + 2] << 16) | (buf[off + 3] << 24)) >>> 0;
}

export function writeU16(buf: Uint8Array, off: number, v: number): void {
  buf[off] = v >>> 8;
  buf[off + 1] = v;
}

export function writeU24(buf: Uint8Array, off: number, v: number): void {
  buf[off] = v >>> 16;
  buf[off + 1] = v >>> 8;
  buf[off + 2] = v;
}

export function writeU32(buf: Uint8Array, off: number, v: number): void {
  buf[off] = v >>> 24;
  buf[off + 1] = v >>> 16;
  buf[off + 2] = v >>> 8;
  buf[off + 3] = v;
}

export function writeU48(buf: Uint8Array, off: number, v: number): void {
  writeU16(buf, off, Math.floor(v / 0x1_0000_0000));
  writeU32(buf, off + 2, v >>> 0);
}

/** Writes a non-negative integer below 2^53 as 64-bit big-endian. */
export function writeU64(buf: Uint8Array, off: number, v: number): void {
  writeU32(buf, off, Math.floor(v / 0x1_0000_0000));
  writeU32(buf, off + 4, v >>> 0);
}

export function writeU16LE(buf: Uint8Array, off: number, v: number): void {
  buf[off] = v;
  buf[off + 1] = v >>> 8;
}

export function writeU32LE(buf: Uint8Array, off: number, v: number): void {
  buf[off] = v;
  buf[off + 1] = v >>> 8;
  buf[off + 2] = v >>> 16;
  buf[off + 3] = v >>> 24;
}

/** Scratch view for IEEE-754 doubles; module-level so encoding a double never allocates. */
const f64Scratch = new DataView(new ArrayBuffer(8));

export function writeF64(buf: Uint8Array, off: number, v: number): void {
  f64Scratch.setFloat64(0, v, false);
  for (let i = 0; i < 8; i++) buf[off + i] = f64Scratch.getUint8(i);
}

export function readF64(buf: Uint8Array, off: number): number {
  for (let i = 0; i < 8; i++) f64Scratch.setUint8(i, buf[off + i]);
  return f64Scratch.getFloat64(0, false);
}

export function isUint(v: number, bits: number): boolean {
  return Number.isInteger(v) && v >= 0 && v <= 2 ** bits - 1;
}

/** Non-negative integer that survives a u64 field (and a double) exactly. */
export function isSafeUint(v: number): boolean {
  return Number.isSafeInteger(v) && v >= 0;
}

export function toHex(buf: Uint8Array): string {
  let s = '';
  for (let i = 0; i < buf.length; i++) s += (buf[i] < 16 ? '0' : '') + buf[i].toString(16);
  return s;
}

/** Hex string (whitespace allowed) to bytes; returns null on odd length or a non-hex digit. */
export function fromHex(hex: string): Buffer | null {
  const clean = hex.replace(/\s+/g, '');
  if (clean.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(clean)) return null;
  return Buffer.from(clean, 'hex');
}
