/**
 * INT stamping at dequeue (docs/switch.md "INT"; docs/wire.md §2 INT stacks): the hop a data
 * frame's stack gains at a switch egress, stored as the wire carries it.
 */
import { quantizeHpccHop } from '../src/wire/int-hpcc.js';
import { quantizeMpccHop } from '../src/wire/int-mpcc.js';
import type { IntHop, Packet } from '../src/wire/packet.js';
import type { Port } from './port.js';
import { INT_MAX_HOPS } from './validate.js';

/** `intMulti` and `intRatesBps`: the run's INT_MULTI and HPCC line-rate table (docs/wire.md §2.1). */
export function stampInt(
  port: Port,
  pkt: Packet,
  now: number,
  intMulti: number,
  intRatesBps: readonly number[],
): void {
  const st = pkt.int!;
  const raw: IntHop = {
    lineRateBps: port.rateBps,
    timeNs: now,
    txBytes: port.txBytes,
    qlenBytes: port.queueBytes,
    activeFlows: port.flows !== null ? port.flows.count(now) : 0,
  };
  // The hop as the wire carries it (docs/wire.md, "INT stacks"), so virtual time sees what a real run
  // decodes with the run's INT_MULTI (the one the real runtime encodes HPCC's stack with).
  if (st.layout === 'mpcc') {
    // MPCC stops writing after five hops (docs/wire.md, "MPCC block"); nhop still counts.
    if (st.nhop < INT_MAX_HOPS && st.hops.length < INT_MAX_HOPS) st.hops.push(quantizeMpccHop(raw));
  } else {
    const hop = quantizeHpccHop(raw, intMulti, intRatesBps);
    // HPCC writes slot nhop % 5, overwriting slot 0 on the sixth hop (docs/wire.md, "INT stacks").
    const slot = st.nhop % INT_MAX_HOPS;
    if (slot < st.hops.length) st.hops[slot] = hop;
    else st.hops.push(hop);
  }
  st.nhop++;
}
