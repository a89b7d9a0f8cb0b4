/**
 * The real-time check A7 counts XOFF transitions (docs/algorithms/dcqcn-plus.md "Measurements used by the
 * checks": transitions, not pause refreshes) from the switch node's `rocelab_pfc_xoff_transitions_total`.
 */
import { describe, expect, it } from 'vitest';
import { FrameTallies } from '../../../src/metrics/node-metrics.js';
import { FrameKind, type Packet } from '../../../src/wire/packet.js';
import { createPacket } from '../../../src/wire/packet-factory.js';

function pfc(classEnable: number, quanta: number[]): Packet {
  const pkt = createPacket();
  pkt.kind = FrameKind.Pfc;
  pkt.sizeBytes = 64;
  pkt.pfc = { classEnable, quanta };
  return pkt;
}

describe('XOFF transition tally', () => {
  it('counts pause frames that start a pause, not refreshes; an XON re-arms it; per port and priority', () => {
    const t = new FrameTallies(2);
    const q = (prio: number, v: number) => Object.assign([0, 0, 0, 0, 0, 0, 0, 0], { [prio]: v });
    t.onTx(1, pfc(1 << 3, q(3, 65535))); // XOFF
    t.onTx(1, pfc(1 << 3, q(3, 65535))); // refresh
    t.onTx(1, pfc(1 << 3, q(3, 0))); // XON
    t.onTx(1, pfc(1 << 3, q(3, 65535))); // XOFF
    t.onTx(0, pfc((1 << 3) | (1 << 5), [0, 0, 0, 100, 0, 100, 0, 0])); // XOFF on two priorities
    expect(t.xoffTx[1 * 8 + 3]).toBe(2);
    expect(t.pfcTx[1 * 8 + 3]).toBe(3);
    expect(t.xoffTx[0 * 8 + 3]).toBe(1);
    expect(t.xoffTx[0 * 8 + 5]).toBe(1);
    expect([...t.xoffTx].reduce((a, b) => a + b, 0)).toBe(4);
  });
});
