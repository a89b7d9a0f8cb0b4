/**
 * Forwarding in place (docs/wire.md): a switch node that keeps a received frame's bytes and
 * patches MACs, DSCP/ECN, TTL and the IPv4 checksum writes exactly what the full encoder writes
 * for the same packet, and the sender's ICRC still verifies, because RoCEv2's ICRC masks the
 * fields a router changes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toHex } from '../../src/wire/bytes.js';
import { isDecodeError } from '../../src/wire/errors.js';
import { decodeFrame, encodeFrame } from '../../src/wire/frame.js';
import { Ecn, FrameKind, type Packet } from '../../src/wire/packet.js';
import { arbPacket, u8, u48 } from './arbitraries.js';

const ROCE: FrameKind[] = [FrameKind.Data, FrameKind.Ack, FrameKind.Nak, FrameKind.Cnp, FrameKind.Pull];

function decodeKeeping(frame: Uint8Array): Packet {
  const pkt = decodeFrame(frame, { keepWire: true, payload: 'view' });
  if (isDecodeError(pkt)) throw new Error(`${pkt.code}: ${pkt.message}`);
  return pkt;
}

describe('forwarding in place', () => {
  it('equals the full encoder after a hop (MACs, TTL, ECN mark, DSCP), and the ICRC verifies', () => {
    fc.assert(
      fc.property(
        arbPacket({ kinds: ROCE }),
        u48,
        u48,
        fc.integer({ min: 1, max: 255 }),
        fc.constantFrom(Ecn.NotEct, Ecn.Ect0, Ecn.Ect1, Ecn.Ce),
        fc.integer({ min: 0, max: 63 }),
        (sent, dstMac, srcMac, ttl, ecn, dscp) => {
          const rx = decodeKeeping(encodeFrame(sent));
          expect(rx.wire).not.toBeNull();
          rx.dstMac = dstMac;
          rx.srcMac = srcMac;
          rx.ttl = ttl;
          rx.ecn = ecn;
          rx.dscp = dscp;
          const inPlace = encodeFrame(rx);
          const wire = rx.wire;
          rx.wire = null;
          expect(toHex(inPlace)).toBe(toHex(encodeFrame(rx)));
          rx.wire = wire;
          const again = decodeFrame(inPlace, { verifyIcrc: true });
          expect(isDecodeError(again)).toBe(false);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('does not apply when the bytes no longer fit the packet (another frame length, or an 802.1Q tag)', () => {
    fc.assert(
      fc.property(arbPacket({ kinds: [FrameKind.Data] }), u8, (sent, extra) => {
        const rx = decodeKeeping(encodeFrame(sent));
        rx.payloadLen += 4 * (extra + 1);
        rx.payload = null;
        const viaWire = encodeFrame(rx);
        rx.wire = null;
        expect(toHex(viaWire)).toBe(toHex(encodeFrame(rx)));
        const tagged = decodeKeeping(encodeFrame(sent));
        expect(toHex(encodeFrame(tagged, { vlanId: 5 }))).toBe(
          toHex(encodeFrame({ ...tagged, wire: null }, { vlanId: 5 })),
        );
      }),
      { numRuns: 100 },
    );
  });

  it('is never kept unless asked, and never for frames that are not RoCEv2', () => {
    fc.assert(
      fc.property(arbPacket(), (sent) => {
        const plain = decodeFrame(encodeFrame(sent));
        if (!isDecodeError(plain)) expect(plain.wire).toBeNull();
        const kept = decodeFrame(encodeFrame(sent), { keepWire: true });
        if (!isDecodeError(kept)) expect(kept.wire !== null).toBe(ROCE.includes(kept.kind));
      }),
      { numRuns: 200 },
    );
  });
});
