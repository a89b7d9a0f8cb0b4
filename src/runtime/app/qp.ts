/** QP numbering and UDP source ports for the flows of a run. */

/** First QPN handed out on every host (QP0/QP1 are reserved in InfiniBand). */
export const FIRST_QPN = 0x100;

/**
 * RoCEv2 UDP source port of a connection, the Linux convention (docs/wire.md §1.3 UDP,
 * rdma_get_udp_sport with a zero flow label): symmetric in the two QPNs, in 0xC000..0xFFFF.
 */
export function rocev2SrcPort(lqpn: number, rqpn: number): number {
  let v = BigInt(lqpn) * BigInt(rqpn);
  v ^= v >> 20n;
  v ^= v >> 40n;
  const fl = Number(v & 0xfffffn);
  let lo = fl & 0x3fff;
  lo ^= (fl & 0xfc000) >> 14;
  return lo | 0xc000;
}
