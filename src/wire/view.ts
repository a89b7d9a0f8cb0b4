/**
 * Zero-copy, zero-allocation access to the headers of a standard frame: for code that only needs
 * a few fields (a capture filter, a counter, a switch fast path) and should not build a Packet.
 * One FrameView can be re-pointed at frame after frame. It checks offsets, not checksums or ICRC.
 */
import { readU16, readU24, readU32, readU48 } from './bytes.js';
import { EtherType } from './ethernet.js';
import { frameKindOfOpcode } from './kind.js';
import { FrameKind } from './packet.js';
import { ROCEV2_UDP_PORT } from './udp.js';

export class FrameView {
  buf: Uint8Array = new Uint8Array(0);
  /** Offset of the IPv4 header, or -1 when the frame is not IPv4. */
  ipOff = -1;
  /** Offset of the BTH, or -1 when the frame is not RoCEv2. */
  bthOff = -1;
  etherType = 0;
  /** FrameKind, or -1 when the frame is none we know. */
  kind: FrameKind | -1 = -1;

  /** Points the view at `buf`; returns false if it is not a frame we recognise. */
  reset(buf: Uint8Array, rocePort = ROCEV2_UDP_PORT): boolean {
    this.buf = buf;
    this.ipOff = -1;
    this.bthOff = -1;
    this.kind = -1;
    const len = buf.length;
    if (len < 14) return false;
    let off = 14;
    let type = readU16(buf, 12);
    if (type === EtherType.Vlan) {
      if (len < 18) return false;
      type = readU16(buf, 16);
      off = 18;
    }
    this.etherType = type;
    if (type === EtherType.MacControl) this.kind = FrameKind.Pfc;
    else if (type === EtherType.Cnm) this.kind = FrameKind.Cnm;
    else if (type === EtherType.Sync) this.kind = FrameKind.Sync;
    else if (type === EtherType.Ipv4 && len >= off + 20 + 8 + 12 + 4 && buf[off] === 0x45) {
      this.ipOff = off;
      if (buf[off + 9] !== 17 || readU16(buf, off + 22) !== rocePort) return false;
      const bth = off + 28;
      this.bthOff = bth;
      const op = buf[bth];
      const syndrome = op === 0x11 ? buf[bth + 12] : 0;
      const k = frameKindOfOpcode(op, syndrome);
      this.kind = k === null ? -1 : k;
    }
    return this.kind !== -1;
  }

  get dstMac(): number {
    return readU48(this.buf, 0);
  }
  get srcMac(): number {
    return readU48(this.buf, 6);
  }
  get dscp(): number {
    return this.buf[this.ipOff + 1] >>> 2;
  }
  get ecn(): number {
    return this.buf[this.ipOff + 1] & 3;
  }
  get ttl(): number {
    return this.buf[this.ipOff + 8];
  }
  get srcIp(): number {
    return readU32(this.buf, this.ipOff + 12);
  }
  get dstIp(): number {
    return readU32(this.buf, this.ipOff + 16);
  }
  get srcPort(): number {
    return readU16(this.buf, this.ipOff + 20);
  }
  get opcode(): number {
    return this.buf[this.bthOff];
  }
  get destQp(): number {
    return readU24(this.buf, this.bthOff + 5);
  }
  get psn(): number {
    return readU24(this.buf, this.bthOff + 9);
  }
  get ackReq(): boolean {
    return (this.buf[this.bthOff + 8] & 0x80) !== 0;
  }
  get becn(): boolean {
    return (this.buf[this.bthOff + 4] & 0x40) !== 0;
  }
  get bthResv7(): number {
    return this.buf[this.bthOff + 8] & 0x7f;
  }
  /** AETH syndrome of an Acknowledge (-1 otherwise). */
  get syndrome(): number {
    return this.buf[this.bthOff] === 0x11 ? this.buf[this.bthOff + 12] : -1;
  }
}
