/**
 * The trimmed frame (docs/switch.md "Trimming", docs/wire.md §3 option 0x30): a data frame a
 * switch cut down to its headers. It keeps every header field, `payloadLen` included (what was
 * lost), carries no payload, and occupies TRIMMED_FRAME_BYTES on an emulated link, the trim size
 * of the UEC's reference simulator (ultraethernet/uet-htsim, main_uec.cpp: `trimsize = 64`).
 */
import type { Packet } from './packet.js';

/** Emulated on-link size of a trimmed frame, bytes (the reference simulator's default trim size). */
export const TRIMMED_FRAME_BYTES = 64;

/** The IPv4 TTL hosts send with (nic/frames.ts IP_TTL); a switch's hop index is derived from it. */
export const HOST_IP_TTL = 64;

/**
 * Cut `pkt` to its headers at a switch whose TTL decrement left `pkt.ttl`: the hop index is
 * 64 − ttl (the first switch is 1), `lastHop` when that switch's egress faces the destination.
 */
export function trimToHeader(pkt: Packet, lastHop: boolean): void {
  pkt.trimHop = HOST_IP_TTL - pkt.ttl;
  pkt.trimLastHop = lastHop;
  pkt.sizeBytes = TRIMMED_FRAME_BYTES;
  pkt.payload = null;
  // A received frame's bytes (real runtime, forwarding in place) no longer describe it.
  pkt.wire = null;
}
