/**
 * The outer Ethernet/IPv4/UDP headers around an overlay datagram, as they appear on a capture of
 * the real network (the kernel writes them; we build them for pcaps and tests, and parse them
 * from captures). Outer IPv4: DF, no options; outer UDP checksum 0 (allowed for IPv4 tunnels).
 */
import { readU16, readU32, readU48, writeU16, writeU48 } from './bytes.js';
import { type DecodeError, decodeError } from './errors.js';
import { ETH_BYTES, EtherType } from './ethernet.js';
import { IP_PROTO_UDP, IPV4_BYTES, IPV4_FLAGS_DF, ipv4ChecksumOk, writeIpv4 } from './ipv4.js';
import type { Ecn } from './packet.js';
import { UDP_BYTES, writeUdp } from './udp.js';

export const OUTER_HEADERS_BYTES = ETH_BYTES + IPV4_BYTES + UDP_BYTES;

export interface OuterHeaders {
  dstMac: number;
  srcMac: number;
  srcIp: number;
  dstIp: number;
  srcPort: number;
  dstPort: number;
  ipId: number;
  ttl: number;
  dscp: number;
  ecn: Ecn;
}

export interface OuterFrame {
  outer: OuterHeaders;
  /** The UDP payload (a view into the decoded buffer). */
  payload: Uint8Array;
  payloadOffset: number;
}

/** Outer headers with everything but addresses and ports at their usual values. */
export function outerHeaders(
  srcIp: number,
  dstIp: number,
  dstPort: number,
  srcPort = 49152,
  srcMac = 0x02_00_00_00_00_01,
  dstMac = 0x02_00_00_00_00_02,
): OuterHeaders {
  return { dstMac, srcMac, srcIp, dstIp, srcPort, dstPort, ipId: 0, ttl: 64, dscp: 0, ecn: 0 };
}

export function encodeOuterFrame(udpPayload: Uint8Array, o: OuterHeaders): Buffer {
  const total = IPV4_BYTES + UDP_BYTES + udpPayload.length;
  if (total > 0xffff) throw new RangeError(`outer IPv4 packet of ${total} bytes exceeds 65535`);
  const buf = Buffer.allocUnsafe(ETH_BYTES + total);
  writeU48(buf, 0, o.dstMac);
  writeU48(buf, 6, o.srcMac);
  writeU16(buf, 12, EtherType.Ipv4);
  writeIpv4(
    buf,
    ETH_BYTES,
    o.dscp,
    o.ecn,
    total,
    o.ipId,
    IPV4_FLAGS_DF,
    o.ttl,
    IP_PROTO_UDP,
    o.srcIp,
    o.dstIp,
  );
  writeUdp(buf, ETH_BYTES + IPV4_BYTES, o.srcPort, o.dstPort, UDP_BYTES + udpPayload.length, 0);
  buf.set(udpPayload, OUTER_HEADERS_BYTES);
  return buf;
}

/** Parses an untagged Ethernet/IPv4/UDP frame and returns its UDP payload. Never throws. */
export function decodeOuterFrame(buf: Uint8Array): OuterFrame | DecodeError {
  if (buf.length < OUTER_HEADERS_BYTES) return decodeError('truncated', 'outer headers need 42 bytes', 0);
  const type = readU16(buf, 12);
  if (type !== EtherType.Ipv4)
    return decodeError('unknown-ethertype', `outer EtherType 0x${type.toString(16)}`, 12);
  const ip = ETH_BYTES;
  if (buf[ip] !== 0x45) return decodeError('bad-version', 'outer IPv4 must be version 4, IHL 5', ip);
  if (buf[ip + 9] !== IP_PROTO_UDP)
    return decodeError('unknown-protocol', `outer IP protocol ${buf[ip + 9]}`, ip + 9);
  if ((readU16(buf, ip + 6) & 0x3fff) !== 0) return decodeError('unsupported', 'outer IPv4 fragment', ip + 6);
  if (!ipv4ChecksumOk(buf, ip))
    return decodeError('bad-checksum', 'outer IPv4 header checksum mismatch', ip + 10);
  const total = readU16(buf, ip + 2);
  if (ETH_BYTES + total > buf.length)
    return decodeError('truncated', 'outer IPv4 total length runs past the frame', ip + 2);
  const udp = ip + IPV4_BYTES;
  const udpLen = readU16(buf, udp + 4);
  if (udpLen !== total - IPV4_BYTES || udpLen < UDP_BYTES) {
    return decodeError('bad-length', `outer UDP length ${udpLen} != ${total - IPV4_BYTES}`, udp + 4);
  }
  const tos = buf[ip + 1];
  return {
    outer: {
      dstMac: readU48(buf, 0),
      srcMac: readU48(buf, 6),
      srcIp: readU32(buf, ip + 12),
      dstIp: readU32(buf, ip + 16),
      srcPort: readU16(buf, udp),
      dstPort: readU16(buf, udp + 2),
      ipId: readU16(buf, ip + 4),
      ttl: buf[ip + 8],
      dscp: tos >>> 2,
      ecn: (tos & 3) as Ecn,
    },
    payload: buf.subarray(OUTER_HEADERS_BYTES, udp + udpLen),
    payloadOffset: OUTER_HEADERS_BYTES,
  };
}
