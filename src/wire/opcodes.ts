/** BTH opcodes used by rocelab (docs/wire.md §1.4 BTH). Transport bits 7..5: 000 RC, 001 UC, 011 UD, 100 CNP, 110 manufacturer-specific. */
export const Opcode = {
  SendFirst: 0x00,
  SendMiddle: 0x01,
  SendLast: 0x02,
  SendLastImm: 0x03,
  SendOnly: 0x04,
  SendOnlyImm: 0x05,
  WriteFirst: 0x06,
  WriteMiddle: 0x07,
  WriteLast: 0x08,
  WriteLastImm: 0x09,
  WriteOnly: 0x0a,
  WriteOnlyImm: 0x0b,
  Acknowledge: 0x11,
  Cnp: 0x81,
  /**
   * UET pull (RCCC receiver credit), in the manufacturer-specific opcode range 0xC0–0xFF (BTH
   * transport bits 110): RoCEv2 has no credit grant a receiver can send (docs/wire.md §1.6a).
   */
  UetPull: 0xc0,
} as const;

/** AETH syndromes (docs/wire.md §1.5 RETH, AETH, ImmDt). */
export const Syndrome = {
  /** ACK with credit code 31 = no end-to-end credit information. */
  AckNoCredit: 0x1f,
  NakPsnSeqErr: 0x60,
  NakInvalidRequest: 0x61,
  NakRemoteAccess: 0x62,
  NakRemoteOp: 0x63,
  /** RNR NAK base; low 5 bits = timer code. */
  RnrNakBase: 0x20,
} as const;

/**
 * Bit `op` set for the RC/UC opcodes (low 5 bits) of each class: a shift and a mask per test, on
 * every data packet a NIC receives (a Set lookup there was 1 % of the virtual engine's
 * instructions, docs/performance.md).
 */
const RC_FIRST = bits(Opcode.SendFirst, Opcode.WriteFirst);
const RC_LAST = bits(Opcode.SendLast, Opcode.SendLastImm, Opcode.WriteLast, Opcode.WriteLastImm);
const RC_ONLY = bits(Opcode.SendOnly, Opcode.SendOnlyImm, Opcode.WriteOnly, Opcode.WriteOnlyImm);

function bits(...ops: number[]): number {
  let m = 0;
  for (const op of ops) m |= 1 << op;
  return m;
}

/** First packet of a message (FIRST or ONLY). */
export function isMessageStart(opcode: number): boolean {
  return (((RC_FIRST | RC_ONLY) >>> (opcode & 0x1f)) & 1) === 1;
}

/** Last packet of a message (LAST or ONLY). */
export function isMessageEnd(opcode: number): boolean {
  return (((RC_LAST | RC_ONLY) >>> (opcode & 0x1f)) & 1) === 1;
}

/** RC/UC SEND or RDMA WRITE request opcode (carries payload). */
export function isDataOpcode(opcode: number): boolean {
  const transport = opcode >> 5;
  return (transport === 0 || transport === 1) && (opcode & 0x1f) <= 0x0b;
}
