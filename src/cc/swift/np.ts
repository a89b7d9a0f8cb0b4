/**
 * Swift's receiver side: echo the data packet's hop count (initial TTL − received TTL) in an
 * ACK extension field, as Swift reads the hop count off the IP TTL (docs/algorithms/swift.md
 * "Mapping to RoCE"; NVIDIA DOCA PCC exposes the TTL on CX8+). No CNPs: Swift reacts to delay only.
 */
import { createExt } from '../../wire/packet-factory.js';
import type { NpAlgorithm } from '../types.js';
import type { SwiftParams } from './params.js';
import { HOPS_FIELD } from './rp.js';

interface SwiftNpQp {
  /** Hops of the last data packet, −1 before the first. */
  hops: number;
}

export const swiftNp: NpAlgorithm<SwiftParams, null, SwiftNpQp> = {
  initNic: () => null,
  initQp: () => ({ hops: -1 }),
  onData(qp, _nic, pkt, p) {
    if (p.hopSource === 'ttl') qp.hops = Math.max(0, p.initialTtl - pkt.ttl);
  },
  decorateAck(qp, _nic, ack, p) {
    if (p.hopSource !== 'ttl' || qp.hops < 0) return;
    ack.ext ??= createExt();
    ack.ext.fields = { ...(ack.ext.fields ?? {}), [HOPS_FIELD]: qp.hops };
  },
};
