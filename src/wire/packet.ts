/**
 * The emulated frame as firmware sees it.
 *
 * Firmware (nic/, switch/, src/cc/) never parses bytes on its hot path: it handles `Packet`
 * objects whose fields map one-to-one onto the standard RoCEv2 frame (Ethernet / IPv4 / UDP /
 * BTH / RETH|AETH / payload / ICRC) plus the telemetry extensions we own (INT, CNM, algorithm
 * fields). The wire codecs in this folder turn a Packet into bit-exact bytes and back; the
 * virtual runtime passes Packet objects between nodes without encoding them (that is what makes
 * paper-scale runs fast), the real runtime encodes every frame into a UDP datagram.
 *
 * Every Packet has the same shape (all fields present, `null` where absent) so V8 keeps one
 * hidden class on the hot path. Build them with the factories in `packet-factory.ts`.
 */

/** What a frame is, from the firmware's point of view. Derived from EtherType / BTH opcode. */
export const FrameKind = {
  /** RC request packet carrying payload (SEND / RDMA WRITE First|Middle|Last|Only). */
  Data: 0,
  /** RC Acknowledge (opcode 0x11) with an ACK syndrome. */
  Ack: 1,
  /** RC Acknowledge (opcode 0x11) with a NAK or RNR-NAK syndrome. */
  Nak: 2,
  /** RoCEv2 CNP (opcode 0x81). */
  Cnp: 3,
  /** IEEE 802.1Qbb priority flow control (MAC control, EtherType 0x8808). */
  Pfc: 4,
  /** Switch congestion notification message (EtherType 0x22E7, SRCC). */
  Cnm: 5,
  /** Clock-sync probe/response of the real runtime (never seen by firmware). */
  Sync: 6,
} as const;
export type FrameKind = (typeof FrameKind)[keyof typeof FrameKind];

/** IP ECN codepoints (RFC 3168), the two low bits of the IPv4 DS byte. */
export const Ecn = { NotEct: 0, Ect1: 1, Ect0: 2, Ce: 3 } as const;
export type Ecn = (typeof Ecn)[keyof typeof Ecn];

/** RDMA Extended Transport Header (RDMA WRITE First/Only). VA kept as two u32 halves (no BigInt). */
export interface Reth {
  vaHi: number;
  vaLo: number;
  rkey: number;
  dmaLength: number;
}

/** ACK Extended Transport Header: syndrome (ACK credit code / RNR timer / NAK code) and MSN. */
export interface Aeth {
  syndrome: number;
  msn: number;
}

/**
 * One switch hop of the HPCC-layout INT stack (docs/wire.md §2.1 HPCC layout). Values are kept decoded, in
 * natural units; the codec applies the 128-/80-byte units, the modulo wraps and `multi`.
 */
export interface IntHop {
  /** Egress line rate in bit/s (one of 25/50/100/200/400 G on the wire). */
  lineRateBps: number;
  /** Egress dequeue time, ns (the wire keeps it mod 2^24). */
  timeNs: number;
  /** Bytes sent on that egress port before this packet (wire: units of 128·multi, mod 2^20). */
  txBytes: number;
  /** Bytes queued at that egress port at dequeue (wire: units of 80·multi, 17 bits). */
  qlenBytes: number;
  /** Active flows on that egress port (MPCC's N; not in the HPCC layout, carried separately). */
  activeFlows: number;
}

/** INT stack requested by the sender and stamped by switches, echoed back in ACKs. */
export interface IntStack {
  /**
   * Wire layout: HPCC's 42-byte stack (docs/wire.md §2.1 HPCC layout) or MPCC's 32-byte block (§2.2 MPCC
   * block).
   */
  layout: 'hpcc' | 'mpcc';
  /** Number of switches that pushed a hop (may exceed hops.length; HPCC keeps slot nhop % 5). */
  nhop: number;
  hops: IntHop[];
}

/** Body of a switch congestion notification (docs/wire.md §1.9 CNM). */
export interface CnmBody {
  flags: number;
  flowId: number;
  targetRateKbps: number;
  cpId: number;
  nHops: number;
  hopsTraversed: number;
  mActive: number;
  MActive: number;
  cpEgressPort: number;
  qLenBytes: number;
  qCthRaw: number;
  flowSrcIp: number;
  flowDstIp: number;
  flowSrcPort: number;
  flowDstPort: number;
  destQpn: number;
  triggerPsn: number;
  /** Congestion-point local clock, ns (diagnostic only). */
  cpTimestampNs: number;
}

/** PFC (802.1Qbb) class-enable vector and the eight pause times in quanta. */
export interface PfcBody {
  classEnable: number;
  quanta: number[];
}

/**
 * Selective-ACK information of the `rocev2-sr` and `uet` transports (docs/wire.md §3, option 0x16),
 * on an ACK (SACK) or a NAK (NACK of a trimmed packet). The cumulative acknowledgement stays the
 * BTH PSN, as in a RoCEv2 ACK (newest PSN acknowledged) or NAK (PSN expected).
 */
export interface SackInfo {
  /** PSN of the data packet this ACK/NAK answers (the NACKed packet; the sender's RTT sample). */
  refPsn: number;
  /** First PSN of the bitmap: bit i set = PSN basePsn + i arrived (bits 0-31 in bitsLo, 32-63 in bitsHi). */
  basePsn: number;
  bitsLo: number;
  bitsHi: number;
  /** Data packets the receiver holds out of order (its reorder-buffer depth). */
  oooPackets: number;
  /** NAK of a trimmed packet whose trimming switch faced this receiver (Packet.trimLastHop). */
  lastHop: boolean;
}

/**
 * Extension fields some algorithms need that RoCEv2 has no field for. They travel in Geneve
 * option TLVs on the real wire (docs/wire.md) and count toward the emulated size.
 * Every field is always present; `null`/0 means "not carried".
 */
export interface PacketExt {
  /** Sender timestamp, ns on the (synced) emulated clock (RCC-TS; also used for RTT echo). */
  txTsNs: number | null;
  /** Timestamp echoed by the receiver in an ACK (RTT = now - tsEchoNs at the sender). */
  tsEchoNs: number | null;
  /** Receiver-assigned window in bytes, piggybacked on ACKs (RCC-WND). */
  windowBytes: number | null;
  /** DCQCN+ CNP period in ns (CNP reserved bytes 0-3). */
  cnpPeriodNs: number | null;
  /** Dolce-RC exact ECN count carried by a CNP (the 7-bit BTH field saturates). */
  ecnCount: number | null;
  /** Free-form per-algorithm fields (Dolce-RC+ message fields, RCC-sender feedback, ...). */
  fields: Record<string, number> | null;
  /** Selective-ACK / NACK information (rocev2-sr, uet transports). */
  sack: SackInfo | null;
}

export interface Packet {
  /** Unique id within a run, for tracing and pcap (not on the wire). */
  id: number;
  kind: FrameKind;
  /** Traffic class / PFC priority 0..7 (from the DSCP mapping; control frames use the control class). */
  prio: number;
  /** Bytes this frame occupies on the emulated link: full frame incl. ICRC and extensions, plus FCS. */
  sizeBytes: number;

  // Ethernet (48-bit MACs fit exactly in a double)
  dstMac: number;
  srcMac: number;

  // IPv4
  srcIp: number;
  dstIp: number;
  dscp: number;
  ecn: Ecn;
  ttl: number;
  ipId: number;

  // UDP (destination port is always 4791 for RoCEv2 frames)
  srcPort: number;

  // BTH
  opcode: number;
  solicitedEvent: boolean;
  migReq: boolean;
  pkey: number;
  fecn: boolean;
  becn: boolean;
  destQp: number;
  ackReq: boolean;
  psn: number;
  /** The 7 reserved bits after AckReq (Dolce-RC ideal-mode ECN count). */
  bthResv7: number;

  reth: Reth | null;
  aeth: Aeth | null;
  /** Immediate data (SEND/WRITE ... with Immediate). */
  immDt: number | null;

  /** Payload length in bytes (excluding pad and ICRC). */
  payloadLen: number;
  /** Payload bytes, or null when the runtime does not carry them (virtual time: zeros on encode). */
  payload: Uint8Array | null;

  int: IntStack | null;
  cnm: CnmBody | null;
  pfc: PfcBody | null;
  ext: PacketExt | null;
  /**
   * The RoCEv2 frame as received (Ethernet header to ICRC), kept only where a switch node of the
   * real runtime decodes with `keepWire`: forwarding then copies it and patches the fields a switch
   * changes (MACs, DSCP/ECN, TTL, IPv4 checksum) instead of encoding it again, and the sender's
   * ICRC, which masks exactly those fields, travels unchanged (docs/wire.md "Forwarding in
   * place"). Null everywhere else, and in virtual time.
   */
  wire: Uint8Array | null;
  /**
   * 0 for an untrimmed frame. A switch that trims a data frame to its headers (docs/switch.md
   * "Trimming") sets it to its 1-based hop index along the path: 64 − ttl after its own TTL
   * decrement (hosts send TTL 64), so the first switch writes 1.
   */
  trimHop: number;
  /** True when the trimming switch's egress port faces the destination host (a last-hop trim). */
  trimLastHop: boolean;
}
