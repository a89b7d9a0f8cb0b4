/**
 * Loss detection of the selective-repeat requester (nic/sr-tx.ts) from SACK gaps: a packet sent
 * once that `srReorderThreshold` later PSNs overtook is lost (IRN, "Revisiting Network Support
 * for RDMA", SIGCOMM 2018, §3.1, with a threshold instead of the first gap so that spraying's
 * reordering is not taken for loss; the UEC reference's SLEEK uses 1.5 × cwnd, at least 5).
 *
 * The `bdp` threshold, 1.5 × BDP, is SLEEK's with cwnd = BDP: it assumes no more than a BDP in
 * flight, which a rate-based CC does not keep (under DCQCN a sprayed QP's paths differ by whole
 * queues, 100+ packets of 4 KB at 100 Gbit/s with the default ECN thresholds). So it learns the
 * reordering it sees, as Linux TCP does (tcp_check_sack_reordering; RFC 4653 makes the case for
 * a threshold of about a window where paths reorder): a packet that arrives for the first time
 * after N later PSNs were SACKed shows reordering of depth N, and the threshold becomes at least
 * 1.5 × N (SLEEK's factor). A fixed threshold (a number) never changes.
 */
import type { Qp } from './qp.js';

/** States of a sequence number at the requester. */
export const SR_FREE = 0;
export const SR_INFLIGHT = 1;
export const SR_SACKED = 2;
export const SR_LOST = 3;

/** Sequence `s` (index mask `mask`) is lost: it leaves the bytes in flight and waits for a resend. */
export function markLost(qp: Qp, s: number, mask: number): void {
  const i = s & mask;
  qp.srState![i] = SR_LOST;
  qp.srInflightBytes -= qp.srBytes![i];
  qp.srLost++;
  if (s < qp.srRtxScan) qp.srRtxScan = s;
}

/** Packets sent once that `srReorderThreshold` later PSNs overtook are lost. */
export function markGapLosses(qp: Qp, mask: number): void {
  const limit = qp.srHighSacked - qp.srReorderThreshold;
  if (!(limit > qp.sndUna)) return;
  const state = qp.srState!;
  let s = Math.max(qp.srGapScan, qp.sndUna);
  for (; s < limit; s++) {
    const i = s & mask;
    if (state[i] === SR_INFLIGHT && qp.srSends![i] === 1) markLost(qp, s, mask);
  }
  qp.srGapScan = s;
}

/**
 * An ACK answers sequence `ref`, still unacknowledged, after later PSNs were SACKed: if this is
 * its first arrival, that is reordering of that depth. First arrival: it was sent once, or it
 * was resent less than the smallest RTT ago, so the ACK is the original's (the resend was
 * spurious; Eifel's test, RFC 3522, by time instead of a timestamp). Only the ACK's own packet
 * counts: one the SACK bitmap never covered, or whose ACKs were lost, is acknowledged late
 * without having been reordered.
 */
export function learnReorder(qp: Qp, ref: number, nowNs: number, mask: number): void {
  const i = ref & mask;
  const st = qp.srState![i];
  if (st !== SR_INFLIGHT && st !== SR_LOST) return;
  if (qp.srSends![i] !== 1 && !(nowNs - qp.srSentNs![i] < qp.srMinRttNs)) return;
  const depth = qp.srHighSacked - 1 - ref;
  if (depth > 0) qp.srReorderThreshold = Math.max(qp.srReorderThreshold, Math.ceil(1.5 * depth));
}
