/**
 * The real path's MTU a scenario needs. A real node sends every emulated frame inside one UDP
 * datagram (Geneve or VXLAN, docs/realtime.md), never fragmented, so the largest frame — a data
 * packet of the largest host MTU with every header, INT hop and Geneve option it can carry — must
 * fit the interface MTU minus IPv4 and UDP. The netns launcher sizes its veths by this, docker
 * compose its network, and a node on a path too small for it refuses to start (one line) instead
 * of counting every large frame as not encodable.
 */
import { ConfigError } from '../../config/errors.js';
import { nicFor, type Scenario } from '../../config/scenario.js';

/**
 * Beyond its payload, an emulated frame and its Geneve options: RoCEv2 headers (Ethernet 14,
 * IPv4 20, UDP 8, BTH 12, RETH 16, ICRC 4), INT (up to 48), options (arrival stamp, link
 * sequence, promise, SACK, trim): at most this many bytes.
 */
export const INNER_HEADROOM_BYTES = 200;
/** The same plus the Geneve (or VXLAN) header: the datagram beyond the payload. */
export const FRAME_HEADROOM_BYTES = INNER_HEADROOM_BYTES + 8;
/** Outer IPv4 + UDP headers of the datagram. */
const IP_UDP_BYTES = 28;

/** The largest MTU of the scenario's hosts (`defaults.nic.mtu` or a host's own). */
export function largestHostMtuBytes(s: Scenario, hosts: readonly string[]): number {
  let m = 0;
  for (const h of hosts) m = Math.max(m, nicFor(s, h).mtuBytes);
  return m;
}

/** Interface MTU that carries frames of `mtuBytes` of payload in one datagram. */
export function pathMtuNeededBytes(mtuBytes: number): number {
  return mtuBytes + FRAME_HEADROOM_BYTES + IP_UDP_BYTES;
}

/** Refuses (ConfigError, exit 2) a real path whose MTU cannot carry the scenario's largest frame. */
export function checkPathMtu(pathMtuBytes: number, largestMtuBytes: number): void {
  const need = pathMtuNeededBytes(largestMtuBytes);
  if (pathMtuBytes >= need) return;
  throw new ConfigError(
    'MTU',
    `the real path's MTU of ${pathMtuBytes} B cannot carry the scenario's ${largestMtuBytes}-byte frames in one datagram (needs ${need} B): raise the interface MTU (or MTU=), or set defaults.nic.mtu to at most ${pathMtuBytes - FRAME_HEADROOM_BYTES - IP_UDP_BYTES}`,
  );
}
