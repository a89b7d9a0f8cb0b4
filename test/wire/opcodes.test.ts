import { describe, expect, it } from 'vitest';
import { isDataOpcode, isMessageEnd, isMessageStart, Opcode } from '../../src/wire/opcodes.js';

// The IBTA classes by name (RC and UC share the low five bits), to hold the bit tables to.
const FIRST: number[] = [Opcode.SendFirst, Opcode.WriteFirst];
const LAST: number[] = [Opcode.SendLast, Opcode.SendLastImm, Opcode.WriteLast, Opcode.WriteLastImm];
const ONLY: number[] = [Opcode.SendOnly, Opcode.SendOnlyImm, Opcode.WriteOnly, Opcode.WriteOnlyImm];

describe('opcode classes', () => {
  it('starts and ends of messages, for every byte value', () => {
    for (let op = 0; op < 256; op++) {
      const low = op & 0x1f;
      expect(isMessageStart(op), `0x${op.toString(16)}`).toBe(FIRST.includes(low) || ONLY.includes(low));
      expect(isMessageEnd(op), `0x${op.toString(16)}`).toBe(LAST.includes(low) || ONLY.includes(low));
    }
  });

  it('data opcodes are RC and UC SEND / WRITE only', () => {
    for (let op = 0; op < 256; op++) expect(isDataOpcode(op)).toBe(op >> 6 === 0 && (op & 0x1f) <= 0x0b);
    expect(isDataOpcode(Opcode.Acknowledge)).toBe(false);
    expect(isDataOpcode(Opcode.Cnp)).toBe(false);
  });
});
