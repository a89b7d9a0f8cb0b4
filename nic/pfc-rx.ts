/**
 * PFC reception at the NIC: a received 802.1Qbb frame is checked (class-enable vector, quanta
 * of the enabled classes in 0..0xffff) and handed to the port's pause state (src/port/pfc.ts,
 * shared with the switch), which every priority of the NIC obeys.
 */
import type { PfcPause } from '../src/port/pfc.js';
import type { Packet } from '../src/wire/packet.js';

const PRIORITIES = 8;

/** Apply a received PFC frame; false (nothing applied) when it is malformed. */
export function receivePfc(pause: PfcPause, pkt: Packet, nowNs: number): boolean {
  const body = pkt.pfc;
  if (body === null || !Array.isArray(body.quanta) || !Number.isInteger(body.classEnable)) return false;
  for (let p = 0; p < PRIORITIES; p++) {
    if (((body.classEnable >> p) & 1) === 0) continue;
    const q = body.quanta[p] ?? 0;
    if (!Number.isInteger(q) || q < 0 || q > 0xffff) return false;
  }
  pause.receive(body, nowNs);
  return true;
}
