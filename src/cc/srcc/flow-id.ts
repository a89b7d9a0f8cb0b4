/**
 * SRCC's 16-bit flow id, CRC-16/ARC over the 13-byte 5-tuple (SRCC §IV uses a 16-bit id; CRC-16/ARC is our
 * choice), table-driven and allocation-free so a switch can hash every data packet (ftKeying 'crc16'). Same
 * value as src/wire/cnm.ts srccFlowId, which the wire tests pin to known vectors.
 */

const TABLE = new Uint16Array(256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xa001 : c >>> 1;
  TABLE[n] = c;
}

function step(crc: number, byte: number): number {
  return (crc >>> 8) ^ TABLE[(crc ^ byte) & 0xff];
}

function u32(crc: number, v: number): number {
  let c = step(crc, (v >>> 24) & 0xff);
  c = step(c, (v >>> 16) & 0xff);
  c = step(c, (v >>> 8) & 0xff);
  return step(c, v & 0xff);
}

export const ROCE_UDP_PORT = 4791;

export function flowId16(srcIp: number, dstIp: number, srcPort: number, dstPort = ROCE_UDP_PORT): number {
  let c = u32(0, srcIp >>> 0);
  c = u32(c, dstIp >>> 0);
  c = step(c, 17);
  c = step(c, (srcPort >>> 8) & 0xff);
  c = step(c, srcPort & 0xff);
  c = step(c, (dstPort >>> 8) & 0xff);
  return step(c, dstPort & 0xff);
}
