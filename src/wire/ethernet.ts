/** Ethernet II header, with the optional 802.1Q tag (decoded; written only when asked for). */
import { readU16, readU48, writeU16, writeU48 } from './bytes.js';
import { type DecodeError, decodeError } from './errors.js';

export const EtherType = {
  Ipv4: 0x0800,
  Vlan: 0x8100,
  /** IEEE 802.3 MAC Control (PAUSE, PFC). */
  MacControl: 0x8808,
  /** 802.1Qau congestion notification message; SRCC reuses it for its CNM (docs/wire.md §1.9 CNM). */
  Cnm: 0x22e7,
  /** IEEE 802 "local experimental EtherType 1": our runtime clock-sync frames. */
  Sync: 0x88b5,
  /** What Geneve's protocol field says for an inner Ethernet frame (Transparent Ethernet Bridging). */
  TransparentEthernet: 0x6558,
} as const;

export const ETH_BYTES = 14;
export const VLAN_TAG_BYTES = 4;

export interface VlanTag {
  /** Priority code point 0..7 (the 802.1p / PFC priority). */
  pcp: number;
  dei: boolean;
  vid: number;
}

export interface EthernetHeader {
  dstMac: number;
  srcMac: number;
  /** EtherType after the tag, if any. */
  etherType: number;
  vlan: VlanTag | null;
}

/** Writes the header at `off`; returns its length (14, or 18 with a tag). */
export function encodeEthernet(buf: Uint8Array, off: number, h: EthernetHeader): number {
  writeU48(buf, off, h.dstMac);
  writeU48(buf, off + 6, h.srcMac);
  if (h.vlan === null) {
    writeU16(buf, off + 12, h.etherType);
    return ETH_BYTES;
  }
  writeU16(buf, off + 12, EtherType.Vlan);
  writeU16(buf, off + 14, ((h.vlan.pcp & 7) << 13) | (h.vlan.dei ? 0x1000 : 0) | (h.vlan.vid & 0xfff));
  writeU16(buf, off + 16, h.etherType);
  return ETH_BYTES + VLAN_TAG_BYTES;
}

export function ethernetHeaderBytes(h: EthernetHeader): number {
  return h.vlan === null ? ETH_BYTES : ETH_BYTES + VLAN_TAG_BYTES;
}

export function decodeEthernet(buf: Uint8Array, off = 0): EthernetHeader | DecodeError {
  if (buf.length - off < ETH_BYTES) return decodeError('truncated', 'Ethernet header needs 14 bytes', off);
  const dstMac = readU48(buf, off);
  const srcMac = readU48(buf, off + 6);
  const type = readU16(buf, off + 12);
  if (type !== EtherType.Vlan) return { dstMac, srcMac, etherType: type, vlan: null };
  if (buf.length - off < ETH_BYTES + VLAN_TAG_BYTES) {
    return decodeError('truncated', '802.1Q tag needs 4 more bytes', off + 12);
  }
  const tci = readU16(buf, off + 14);
  return {
    dstMac,
    srcMac,
    etherType: readU16(buf, off + 16),
    vlan: { pcp: tci >>> 13, dei: (tci & 0x1000) !== 0, vid: tci & 0xfff },
  };
}

/** "02:00:0a:00:00:01" from the 48-bit number. */
export function macToString(mac: number): string {
  const hex = mac.toString(16).padStart(12, '0');
  return hex.replace(/(..)(?!$)/g, '$1:');
}

/** Parses "02:00:0a:00:00:01" (or with '-'); null if malformed. */
export function parseMac(s: string): number | null {
  const m =
    /^([0-9a-fA-F]{2})[:-]?([0-9a-fA-F]{2})[:-]?([0-9a-fA-F]{2})[:-]?([0-9a-fA-F]{2})[:-]?([0-9a-fA-F]{2})[:-]?([0-9a-fA-F]{2})$/.exec(
      s,
    );
  if (m === null) return null;
  return Number.parseInt(m.slice(1).join(''), 16);
}
