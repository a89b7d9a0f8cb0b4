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

const RC_FIRST = new Set<number>([Opcode.SendFirst, Opcode.WriteFirst]);
const RC_LAST = new Set<number>([Opcode.SendLast, Opcode.SendLastImm, Opcode.WriteLast, Opcode.WriteLastImm]);
const RC_ONLY = new Set<number>([Opcode.SendOnly, Opcode.SendOnlyImm, Opcode.WriteOnly, Opcode.WriteOnlyImm]);

/** First packet of a message (FIRST or ONLY). */
export function isMessageStart(opcode: number): boolean {
  const op = opcode & 0x1f;
  return RC_FIRST.has(op) || RC_ONLY.has(op);
}

/** Last packet of a message (LAST or ONLY). */
export function isMessageEnd(opcode: number): boolean {
  const op = opcode & 0x1f;
  return RC_LAST.has(op) || RC_ONLY.has(op);
}

/** RC/UC SEND or RDMA WRITE request opcode (carries payload). */
export function isDataOpcode(opcode: number): boolean {
  const transport = opcode >> 5;
  return (transport === 0 || transport === 1) && (opcode & 0x1f) <= 0x0b;
}
