/**
 * `tc` shaping of the real wire (docs/netns.md "tc"): every link is shaped to its emulated rate divided by
 * the time-dilation factor, at both ends. The firmware already serialises each egress port at
 * line rate; tc is the kernel-side guarantee that no node puts more than that on the wire.
 *
 * - One link on an interface (netns: always; a container's only link): `tbf` on that interface.
 * - Several links on one interface (a switch container on one docker network): `htb` with one
 *   class per link, chosen by the peer's address (u32 match on the destination), or, where peer
 *   addresses can change under us (Kubernetes pods are re-addressed when they restart), by the
 *   overlay header's VNI, which is the sender's egress port (docs/realtime.md) and so names the
 *   link whatever the addresses.
 *
 * Sizes are counted as the emulated frame: a size table with a negative overhead takes the
 * encapsulation (outer Ethernet 14 + IPv4 20 + UDP 8 + Geneve/VXLAN 8 = 50 bytes) off every
 * packet and adds the 4-byte FCS the emulated size counts but the datagram does not carry, so
 * `rate` is exactly the emulated line rate ÷ timeScale (Geneve options of telemetry-carrying
 * algorithms add their 4-byte option headers on top: tc then runs a little under line rate). This kernel has no `netem`:
 * propagation delay is added by the nodes themselves.
 */

/** Outer Ethernet + IPv4 + UDP + Geneve (or VXLAN) header, bytes. */
export const ENCAP_OVERHEAD_BYTES = 50;
/** The emulated size counts an FCS; the datagram carries none. */
const FCS_BYTES = 4;

export interface ShapeLink {
  /** Emulated line rate, bit/s. */
  rateBps: number;
  /** Peer address on this link (needed when several links share an interface). */
  peerIp: string;
  /**
   * Key the class by the overlay VNI (this node's egress port) and the peer's UDP port instead
   * of the peer's address.
   */
  vni?: { vni: number; udpPort: number };
}

/**
 * Offset of the VNI from the start of the IPv4 header: 20 (no options: the kernel sends none) +
 * 8 (UDP) + 4 (Geneve and VXLAN both keep the 24-bit VNI in bytes 4–6, a reserved byte after).
 */
const VNI_U32_OFFSET = 32;

export interface ShapeOptions {
  timeScale: number;
  /** Largest datagram a node sends (emulated MTU + headers + encapsulation), bytes. */
  maxPacketBytes: number;
  /** Time the bucket may absorb a burst of (a node catching up after event-loop lag), real ms. Default 20. */
  burstMs?: number;
  /** Queueing a tbf/htb accepts before it drops, real ms. Default 500. */
  latencyMs?: number;
}

/** The real-wire rate of a link, bit/s (at least 8 kbit/s, tc's practical floor). */
export function realRateBps(rateBps: number, timeScale: number): number {
  return Math.max(8000, Math.round(rateBps / timeScale));
}

function burstBytes(realBps: number, o: ShapeOptions): number {
  const byTime = Math.ceil((realBps * (o.burstMs ?? 20)) / 8000);
  return Math.max(byTime, 8 * o.maxPacketBytes, 32 * 1024);
}

const stab = (): string[] => [
  'stab',
  'overhead',
  String(FCS_BYTES - ENCAP_OVERHEAD_BYTES),
  'linklayer',
  'ethernet',
];

/**
 * `tc` argument lists (without the leading `tc` and any `-n <ns>`) that shape `dev` for the
 * links on it. Every command is idempotent (`replace`), so shaping twice is harmless.
 */
export function shapeCommands(dev: string, links: readonly ShapeLink[], o: ShapeOptions): string[][] {
  if (links.length === 0) return [];
  if (links.length === 1) {
    const rate = realRateBps(links[0].rateBps, o.timeScale);
    return [
      [
        'qdisc',
        'replace',
        'dev',
        dev,
        ...stab(),
        'root',
        'tbf',
        'rate',
        `${rate}bit`,
        'burst',
        String(burstBytes(rate, o)),
        'latency',
        `${o.latencyMs ?? 500}ms`,
      ],
    ];
  }
  // htb: class 1:<i+1> per link, unclassified traffic (ARP, clock sync to others, metrics) in a
  // default class at the sum of the links' rates.
  const total = links.reduce((s, l) => s + realRateBps(l.rateBps, o.timeScale), 0);
  const defaultClass = links.length + 1;
  const cmds: string[][] = [
    [
      'qdisc',
      'replace',
      'dev',
      dev,
      ...stab(),
      'root',
      'handle',
      '1:',
      'htb',
      'default',
      String(defaultClass),
    ],
    [
      'class',
      'replace',
      'dev',
      dev,
      'parent',
      '1:',
      'classid',
      `1:${defaultClass}`,
      'htb',
      'rate',
      `${total}bit`,
      'burst',
      String(burstBytes(total, o)),
    ],
  ];
  links.forEach((l, i) => {
    const rate = realRateBps(l.rateBps, o.timeScale);
    const burst = String(burstBytes(rate, o));
    cmds.push([
      'class',
      'replace',
      'dev',
      dev,
      'parent',
      '1:',
      'classid',
      `1:${i + 1}`,
      'htb',
      'rate',
      `${rate}bit`,
      'ceil',
      `${rate}bit`,
      'burst',
      burst,
      'cburst',
      burst,
    ]);
    cmds.push([
      'filter',
      'replace',
      'dev',
      dev,
      'parent',
      '1:',
      'protocol',
      'ip',
      'prio',
      '1',
      'handle',
      `800::${i + 1}`,
      'u32',
      ...(l.vni === undefined
        ? ['match', 'ip', 'dst', `${l.peerIp}/32`]
        : [
            'match',
            'ip',
            'protocol',
            '17',
            '0xff',
            'match',
            'ip',
            'dport',
            String(l.vni.udpPort),
            '0xffff',
            'match',
            'u32',
            `0x${((l.vni.vni << 8) >>> 0).toString(16).padStart(8, '0')}`,
            '0xffffff00',
            'at',
            String(VNI_U32_OFFSET),
          ]),
      'flowid',
      `1:${i + 1}`,
    ]);
  });
  return cmds;
}

/** Parse `tc qdisc show` output: the root qdisc kind of each device (`tbf`, `htb`, `noqueue`…). */
export function rootQdiscs(tcQdiscShow: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of tcQdiscShow.split('\n')) {
    const m = /^qdisc (\S+) \S+ dev (\S+) root\b/.exec(line);
    if (m !== null) out.set(m[2], m[1]);
  }
  return out;
}
