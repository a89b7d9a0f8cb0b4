/**
 * ECMP next-hop choice: a Murmur3-style 32-bit hash of the RoCEv2 5-tuple (srcIp, dstIp,
 * protocol 17, UDP srcPort, UDP dstPort 4791), seeded with the switch's salt. The same flow
 * always hashes to the same port (no reordering); distinct UDP source ports (the per-QP
 * entropy, docs/wire.md §1.3 UDP) spread over the equal-cost set.
 */

const ROCE_UDP_PORT = 4791;
const IPPROTO_UDP = 17;

function mix(h: number, k: number): number {
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

export function ecmpHash(seed: number, srcIp: number, dstIp: number, srcPort: number): number {
  let h = seed | 0;
  h = mix(h, srcIp | 0);
  h = mix(h, dstIp | 0);
  h = mix(h, ((srcPort & 0xffff) << 16) | ROCE_UDP_PORT);
  h = mix(h, IPPROTO_UDP);
  h ^= 16;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
