/**
 * ACK Extended Transport Header, 4 bytes: syndrome (8) · MSN (24) (docs/wire.md §1.5 RETH, AETH, ImmDt), and
 * helpers to build and classify syndromes: ACK with a credit code, RNR NAK with a timer code, NAK with a
 * code.
 */
import { readU24, writeU24 } from './bytes.js';
import { type DecodeError, decodeError } from './errors.js';
import type { Aeth } from './packet.js';
import { AETH_BYTES } from './size.js';

export { AETH_BYTES };

export function encodeAeth(buf: Uint8Array, off: number, a: Aeth): number {
  buf[off] = a.syndrome;
  writeU24(buf, off + 1, a.msn);
  return AETH_BYTES;
}

export function decodeAeth(buf: Uint8Array, off = 0): Aeth | DecodeError {
  if (buf.length - off < AETH_BYTES) return decodeError('truncated', 'AETH needs 4 bytes', off);
  return { syndrome: buf[off], msn: readU24(buf, off + 1) };
}

/** Bits 6..5 of the syndrome (bit 7 is reserved). */
export type AethClass = 'ack' | 'rnr-nak' | 'nak' | 'reserved';

export function aethClass(syndrome: number): AethClass {
  switch ((syndrome >>> 5) & 3) {
    case 0:
      return 'ack';
    case 1:
      return 'rnr-nak';
    case 3:
      return 'nak';
    default:
      return 'reserved';
  }
}

export const isAck = (syndrome: number): boolean => ((syndrome >>> 5) & 3) === 0;
/** NAK or RNR NAK: both make the frame a FrameKind.Nak. */
export const isNakOrRnr = (syndrome: number): boolean => {
  const c = (syndrome >>> 5) & 3;
  return c === 1 || c === 3;
};
export const isRnrNak = (syndrome: number): boolean => ((syndrome >>> 5) & 3) === 1;
export const isNak = (syndrome: number): boolean => ((syndrome >>> 5) & 3) === 3;
/** The low five bits: credit code (ACK), timer code (RNR NAK) or NAK code (NAK). */
export const syndromeValue = (syndrome: number): number => syndrome & 0x1f;

export const NakCode = {
  PsnSequenceError: 0,
  InvalidRequest: 1,
  RemoteAccessError: 2,
  RemoteOperationalError: 3,
  InvalidRdRequest: 4,
} as const;

export const isPsnSeqErr = (syndrome: number): boolean => syndrome === 0x60;

/** ACK syndrome with credit code 0..31 (31 = no end-to-end credit information). */
export function ackSyndrome(creditCode = 31): number {
  return creditCode & 0x1f;
}

export function rnrNakSyndrome(timerCode: number): number {
  return 0x20 | (timerCode & 0x1f);
}

export function nakSyndrome(nakCode: number): number {
  return 0x60 | (nakCode & 0x1f);
}

/** Credit code → credits (Linux rdmavt credit_table); code 31 ("invalid") → null. */
const CREDITS = [
  0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096,
  6144, 8192, 12288, 16384, 24576, 32768,
];

export function creditsOfCode(code: number): number | null {
  return code >= 0 && code < CREDITS.length ? CREDITS[code] : null;
}

/** Smallest code whose credit count is ≥ credits (saturates at code 30 = 32768). */
export function creditCodeOf(credits: number): number {
  for (let i = 0; i < CREDITS.length; i++) if (CREDITS[i] >= credits) return i;
  return CREDITS.length - 1;
}

/** RNR timer code → minimum delay in ns, as tshark decodes it (code 0 = 655.36 ms). */
const RNR_DELAY_NS = [
  655_360_000, 10_000, 20_000, 30_000, 40_000, 60_000, 80_000, 120_000, 160_000, 240_000, 320_000, 480_000,
  640_000, 960_000, 1_280_000, 1_920_000, 2_560_000, 3_840_000, 5_120_000, 7_680_000, 10_240_000, 15_360_000,
  20_480_000, 30_720_000, 40_960_000, 61_440_000, 81_920_000, 122_880_000, 163_840_000, 245_760_000,
  327_680_000, 491_520_000,
];

export function rnrDelayNs(timerCode: number): number {
  return RNR_DELAY_NS[timerCode & 0x1f];
}

/** Smallest timer code whose delay is ≥ delayNs (code 0, the longest, when nothing shorter fits). */
export function rnrTimerCodeOf(delayNs: number): number {
  // codes 1..31 are in increasing order of delay
  for (let code = 1; code < 32; code++) if (RNR_DELAY_NS[code] >= delayNs) return code;
  return 0;
}
