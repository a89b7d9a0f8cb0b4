/**
 * Which extension headers a BTH opcode carries (docs/wire.md §1.4 BTH, opcode table) and how an opcode + AETH
 * syndrome map onto FrameKind. We decode RC and UC SEND/RDMA WRITE, the RC Acknowledge and the RoCEv2 CNP;
 * other opcodes (READ, atomics, UD) have no FrameKind and are rejected as unknown.
 */
import { Opcode } from './opcodes.js';
import { FrameKind } from './packet.js';

/** RETH follows the BTH: RDMA WRITE First, Only, Only with Immediate (RC and UC). */
export function opcodeHasReth(opcode: number): boolean {
  const op = opcode & 0x1f;
  return op === 0x06 || op === 0x0a || op === 0x0b;
}

/** ImmDt follows the BTH (after RETH, if any): SEND/WRITE Last|Only with Immediate. */
export function opcodeHasImmDt(opcode: number): boolean {
  const op = opcode & 0x1f;
  return op === 0x03 || op === 0x05 || op === 0x09 || op === 0x0b;
}

/** SEND/WRITE opcodes of the RC (0x00..0x0B) and UC (0x20..0x2B) transports. */
export function isSendWriteOpcode(opcode: number): boolean {
  return opcode <= 0x0b || (opcode >= 0x20 && opcode <= 0x2b);
}

/**
 * FrameKind of a RoCEv2 BTH opcode; for the Acknowledge the AETH syndrome decides Ack vs Nak
 * (ACK class → Ack; NAK and RNR NAK → Nak). Null when we do not model the opcode, or the syndrome
 * uses the reserved class 10b.
 */
export function frameKindOfOpcode(opcode: number, syndrome = 0): FrameKind | null {
  if (isSendWriteOpcode(opcode)) return FrameKind.Data;
  if (opcode === Opcode.Cnp) return FrameKind.Cnp;
  if (opcode === Opcode.UetPull) return FrameKind.Pull;
  if (opcode === Opcode.Acknowledge) {
    const cls = (syndrome >>> 5) & 3;
    if (cls === 0) return FrameKind.Ack;
    if (cls === 1 || cls === 3) return FrameKind.Nak;
  }
  return null;
}

export function frameKindName(kind: FrameKind): string {
  switch (kind) {
    case FrameKind.Data:
      return 'data';
    case FrameKind.Ack:
      return 'ack';
    case FrameKind.Nak:
      return 'nak';
    case FrameKind.Cnp:
      return 'cnp';
    case FrameKind.Pfc:
      return 'pfc';
    case FrameKind.Cnm:
      return 'cnm';
    case FrameKind.Sync:
      return 'sync';
    case FrameKind.Pull:
      return 'pull';
  }
}
