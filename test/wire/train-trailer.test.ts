/**
 * Lockstep's promise trailer (EndBound, Heard, Ack) has one writer: a train's last packet carries
 * the promise and its trailer in the same bytes as a control packet does (docs/wire.md §6.1).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROMISE_OPTION_BYTES, type PromiseTrailer } from '../../src/wire/encap.js';
import { WireEncodeError } from '../../src/wire/errors.js';
import { decodeGeneveHeader } from '../../src/wire/geneve.js';
import { Opcode } from '../../src/wire/opcodes.js';
import { FrameKind, type Packet } from '../../src/wire/packet.js';
import { createPacket } from '../../src/wire/packet-factory.js';
import { emulatedSizeBytes } from '../../src/wire/size.js';
import { encodeControl, TrainReader, TrainWriter, trailerBytes } from '../../src/wire/train.js';
import { arbPromiseNs, u32 } from './arbitraries.js';

function dataPacket(psn: number): Packet {
  const p = createPacket();
  p.kind = FrameKind.Data;
  p.opcode = Opcode.SendOnly;
  p.destQp = 17;
  p.psn = psn;
  p.payloadLen = 200;
  p.sizeBytes = emulatedSizeBytes(p);
  return p;
}

/** The last `n` option bytes of the Geneve packet at `off`. */
function lastOptionBytes(buf: Buffer, off: number, n: number): string {
  const h = decodeGeneveHeader(buf, off);
  if ('code' in h) throw new Error(h.message);
  const end = off + 8 + h.optionsBytes;
  return buf.subarray(end - n, end).toString('hex');
}

const arbTrailer: fc.Arbitrary<PromiseTrailer> = fc.record(
  { endBoundNs: arbPromiseNs, heardNs: arbPromiseNs, ackSeq: u32 },
  { requiredKeys: [] },
);

describe('the promise trailer', () => {
  it('finish(promise, trailer) writes the promise and trailer bytes encodeControl writes', () => {
    fc.assert(
      fc.property(arbPromiseNs, arbTrailer, fc.integer({ min: 1, max: 5 }), (promiseNs, trailer, frames) => {
        const tail = PROMISE_OPTION_BYTES + trailerBytes(trailer);
        const c = encodeControl({ vni: 4, promiseNs, linkSeq: 7, ...trailer });
        const w = new TrainWriter({ maxDatagramBytes: 65_507, reserveEndBound: true });
        w.begin(4, 7);
        for (let i = 0; i < frames; i++) expect(w.append(dataPacket(i), 100 + i)).toBe(true);
        const d = w.finish(promiseNs, trailer);
        const r = new TrainReader();
        expect(r.reset(d)).toBeNull();
        expect(r.count).toBe(frames);
        expect(lastOptionBytes(d, r.offset(frames - 1), tail)).toBe(lastOptionBytes(c, 0, tail));
      }),
      { numRuns: 300 },
    );
  });

  it('a trailer the wire cannot carry is refused before the datagram changes', () => {
    const build = () => {
      const w = new TrainWriter({ reserveEndBound: true });
      w.begin(1, 0);
      w.append(dataPacket(1), 10);
      return w;
    };
    const want = build().finish(50);
    for (const bad of [
      { heardNs: 3, endBoundNs: Number.NaN },
      { endBoundNs: 3, heardNs: Number.NaN },
      { heardNs: 3, ackSeq: -1 },
    ]) {
      const w = build();
      expect(() => w.finish(50, bad)).toThrow(WireEncodeError);
      expect(w.finish(50).toString('hex')).toBe(want.toString('hex'));
    }
  });
});
