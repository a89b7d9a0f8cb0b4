/**
 * Flow completion time, ideal FCT and slowdown, after the HPCC simulator (third.cc,
 * analysis/fct_analysis.py) with RoCEv2 header sizes. Full definitions: docs/results.md.
 */
import { padBytes, RETH_BYTES, ROCE_FIXED_BYTES } from '../wire/size.js';

export type Verb = 'send' | 'write';

/**
 * Bytes a message of `sizeBytes` puts on the wire: every packet's RoCEv2 headers (Eth, IPv4,
 * UDP, BTH, ICRC, FCS: 62 B) and pad, plus one RETH for an RDMA WRITE. Telemetry (INT,
 * timestamps) is not counted, as HPCC leaves INT out of its ideal FCT.
 */
export function messageWireBytes(sizeBytes: number, mtuBytes: number, verb: Verb = 'send'): number {
  const packets = Math.max(1, Math.ceil(sizeBytes / mtuBytes));
  const last = sizeBytes - (packets - 1) * mtuBytes;
  let bytes = sizeBytes + packets * ROCE_FIXED_BYTES + (packets - 1) * padBytes(mtuBytes) + padBytes(last);
  if (verb === 'write') bytes += RETH_BYTES;
  return bytes;
}

/**
 * Ideal ("standalone") FCT, integer ns: the HPCC simulator's base RTT (2 × one-way propagation +
 * Σ_links MTU payload × 8 / rate) plus the message's wire bytes at the bottleneck rate.
 */
export function idealFctNs(opts: {
  sizeBytes: number;
  mtuBytes: number;
  verb?: Verb;
  hpccBaseRttNs: number;
  bottleneckRateBps: number;
}): number {
  const wire = messageWireBytes(opts.sizeBytes, opts.mtuBytes, opts.verb ?? 'send');
  return Math.round(opts.hpccBaseRttNs + (wire * 8e9) / opts.bottleneckRateBps);
}

/** max(1, fct / ideal), as fct_analysis.py; null for an unfinished flow. */
export function slowdown(fctNs: number | null, idealNs: number): number | null {
  if (fctNs === null) return null;
  return Math.max(1, fctNs / idealNs);
}
