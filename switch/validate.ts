/**
 * What the switch accepts from a wire (docs/switch.md "Pipeline", step 1): a frame of a known
 * kind with the fields its pipeline reads in range. Anything else is counted as malformed and
 * dropped; `receive` never throws.
 */
import { FrameKind, type Packet } from '../src/wire/packet.js';
import { PFC_MAX_QUANTA, PFC_PRIORITIES } from '../src/wire/pfc.js';

const PRIOS = PFC_PRIORITIES;
export const INT_MAX_HOPS = 5;
/** Frames larger than this are malformed (a jumbo frame with every extension is far below). */
const MAX_FRAME_BYTES = 65_536;

export function isUint(x: unknown, max: number): boolean {
  return typeof x === 'number' && x >>> 0 === x && x <= max;
}

export function isWellFormedFrame(pkt: Packet): boolean {
  if (typeof pkt !== 'object' || pkt === null) return false;
  const size = pkt.sizeBytes;
  if (typeof size !== 'number' || !(size > 0 && size <= MAX_FRAME_BYTES)) return false;
  if (!isUint(pkt.prio, PRIOS - 1)) return false;
  switch (pkt.kind) {
    case FrameKind.Data:
    case FrameKind.Ack:
    case FrameKind.Nak:
    case FrameKind.Cnp:
    case FrameKind.Pull: {
      if (!isUint(pkt.ttl, 255) || typeof pkt.dstIp !== 'number' || typeof pkt.srcIp !== 'number')
        return false;
      if (typeof pkt.srcPort !== 'number') return false;
      const st = pkt.int;
      if (st === null) return true;
      return (
        typeof st === 'object' &&
        (st.layout === 'hpcc' || st.layout === 'mpcc') &&
        Array.isArray(st.hops) &&
        st.hops.length <= INT_MAX_HOPS &&
        isUint(st.nhop, 0xffff)
      );
    }
    case FrameKind.Cnm:
      return typeof pkt.cnm === 'object' && pkt.cnm !== null && typeof pkt.dstIp === 'number';
    case FrameKind.Pfc: {
      const body = pkt.pfc;
      if (typeof body !== 'object' || body === null || !isUint(body.classEnable, 0xffff)) return false;
      const quanta = body.quanta;
      if (!Array.isArray(quanta) || quanta.length < PRIOS) return false;
      for (let n = 0; n < PRIOS; n++) {
        if ((body.classEnable >>> n) & 1 && !isUint(quanta[n], PFC_MAX_QUANTA)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}
