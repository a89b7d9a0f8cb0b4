/**
 * Emulated on-link size of a frame, in bytes: the complete Ethernet frame (headers, payload, pad,
 * ICRC) plus the 4-byte FCS, plus the telemetry bytes we carry outside the standard frame
 * (counted like the HPCC simulator counts its INT header). Preamble and inter-frame gap are not
 * counted, as in the HPCC simulator, so `idealFctNs` comparisons with it hold.
 */
import { FrameKind, type Packet } from './packet.js';
import { TRIMMED_FRAME_BYTES } from './trim.js';

export const ETH_HEADER_BYTES = 14;
export const IPV4_HEADER_BYTES = 20;
export const UDP_HEADER_BYTES = 8;
export const BTH_BYTES = 12;
export const RETH_BYTES = 16;
export const AETH_BYTES = 4;
export const IMMDT_BYTES = 4;
export const ICRC_BYTES = 4;
export const FCS_BYTES = 4;
/** Eth + IPv4 + UDP + BTH + ICRC + FCS: the fixed cost of every RoCEv2 packet. */
export const ROCE_FIXED_BYTES =
  ETH_HEADER_BYTES + IPV4_HEADER_BYTES + UDP_HEADER_BYTES + BTH_BYTES + ICRC_BYTES + FCS_BYTES;
export const CNP_PAYLOAD_BYTES = 16;
/** Minimum Ethernet frame without FCS (PFC pause frames are padded to it). */
export const ETH_MIN_FRAME_BYTES = 60;
export const HPCC_INT_BYTES = 42;
export const MPCC_INT_BYTES = 32;
export const CNM_BODY_BYTES = 56;
/** Selective-ACK information (docs/wire.md §3 option 0x16). */
export const SACK_BYTES = 20;

/** Telemetry bytes carried outside the standard frame (Geneve options on the real wire). */
export function telemetryBytes(pkt: Packet): number {
  let n = 0;
  if (pkt.int !== null) n += pkt.int.layout === 'hpcc' ? HPCC_INT_BYTES : MPCC_INT_BYTES;
  const ext = pkt.ext;
  if (ext !== null) {
    if (ext.txTsNs !== null) n += 8;
    if (ext.tsEchoNs !== null) n += 8;
    if (ext.windowBytes !== null) n += 4;
    if (ext.ecnCount !== null) n += 4;
    if (ext.fields !== null) n += 4 * Object.keys(ext.fields).length;
    if (ext.sack !== null) n += SACK_BYTES;
    // cnpPeriodNs rides in the CNP's reserved payload bytes: no extra bytes.
  }
  return n;
}

export function padBytes(payloadLen: number): number {
  return (4 - (payloadLen % 4)) % 4;
}

/** Payload bytes the frame carries: none once trimmed (`payloadLen` then says what was cut). */
export function carriedPayloadBytes(pkt: Packet): number {
  return pkt.trimHop !== 0 ? 0 : pkt.payloadLen;
}

/** Bytes of the standard frame without FCS and without telemetry (what a pcap holds). */
export function standardFrameBytes(pkt: Packet): number {
  switch (pkt.kind) {
    case FrameKind.Pfc:
      return ETH_MIN_FRAME_BYTES;
    case FrameKind.Cnm:
      return ETH_HEADER_BYTES + CNM_BODY_BYTES;
    case FrameKind.Cnp:
      return ROCE_FIXED_BYTES - FCS_BYTES + CNP_PAYLOAD_BYTES;
    case FrameKind.Sync:
      // runtime-only frame (EtherType 0x88B5), padded to the minimum like PFC
      return ETH_MIN_FRAME_BYTES;
    default: {
      const carried = carriedPayloadBytes(pkt);
      let n = ROCE_FIXED_BYTES - FCS_BYTES + carried + padBytes(carried);
      if (pkt.reth !== null) n += RETH_BYTES;
      if (pkt.aeth !== null) n += AETH_BYTES;
      if (pkt.immDt !== null) n += IMMDT_BYTES;
      return n;
    }
  }
}

/**
 * Emulated size on the link: standard frame + FCS + telemetry; a trimmed frame's is the trim
 * size (TRIMMED_FRAME_BYTES), whatever it carries.
 */
export function emulatedSizeBytes(pkt: Packet): number {
  if (pkt.trimHop !== 0) return TRIMMED_FRAME_BYTES;
  return standardFrameBytes(pkt) + FCS_BYTES + telemetryBytes(pkt);
}
