/**
 * Typed decode failures. Decoders in src/wire return one of these instead of throwing, so a
 * runtime can count and drop a bad datagram without a try/catch on its receive path.
 */

export type DecodeErrorCode =
  /** The buffer ends before a header or a length field says it should. */
  | 'truncated'
  /** Lengths disagree (IPv4 total length, UDP length, PadCnt, trailing bytes, ...). */
  | 'bad-length'
  /** IPv4 header checksum or a non-zero UDP checksum is wrong. */
  | 'bad-checksum'
  /** The RoCEv2 invariant CRC does not match the frame. */
  | 'bad-icrc'
  /** BTH opcode (or MAC-control opcode) this codec does not map to a FrameKind. */
  | 'unknown-opcode'
  | 'unknown-ethertype'
  /** IPv4 protocol other than UDP. */
  | 'unknown-protocol'
  /** UDP destination port is not a RoCEv2 port. */
  | 'unknown-port'
  /** IPv4 version/IHL, BTH TVer, Geneve or CNM version we do not speak. */
  | 'bad-version'
  /** A field holds a value the format reserves (AETH syndrome 10b, VXLAN I flag clear, ...). */
  | 'bad-field'
  /** Valid on the wire but outside what we carry (IP fragments, IP options, OAM, critical options). */
  | 'unsupported'
  /** Longer than the configured maximum frame or datagram. */
  | 'oversized'
  /** A Geneve option TLV is malformed or has the wrong length for its type. */
  | 'bad-option';

export interface DecodeError {
  readonly code: DecodeErrorCode;
  readonly message: string;
  /** Byte offset in the decoded buffer where the problem was found. */
  readonly offset: number;
}

export function decodeError(code: DecodeErrorCode, message: string, offset: number): DecodeError {
  return { code, message, offset };
}

/** Narrows `Packet | DecodeError` (and the other decode results): only errors have `code`. */
export function isDecodeError(v: unknown): v is DecodeError {
  return typeof v === 'object' && v !== null && typeof (v as { code?: unknown }).code === 'string';
}

/** Thrown by encoders when a Packet is internally inconsistent (a firmware bug, not bad input). */
export class WireEncodeError extends RangeError {
  override readonly name = 'WireEncodeError';
}
