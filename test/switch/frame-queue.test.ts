import { describe, expect, it } from 'vitest';
import type { Packet } from '../../src/wire/packet.js';
import { createPacket } from '../../src/wire/packet-factory.js';
import { FrameQueue } from '../../switch/frame-queue.js';

function frame(id: number): Packet {
  const p = createPacket();
  p.id = id;
  return p;
}

describe('FrameQueue', () => {
  it('is a FIFO of (frame, ingress port) through wrap-around and growth', () => {
    const q = new FrameQueue(4);
    const model: [number, number][] = [];
    let next = 0;
    // Interleave pushes and shifts so the head wraps before and after the ring grows.
    for (let round = 0; round < 50; round++) {
      const pushes = (round * 7) % 5;
      for (let k = 0; k < pushes; k++) {
        const inPort = next % 3 === 0 ? -1 : next % 17;
        q.push(frame(next), inPort);
        model.push([next, inPort]);
        next++;
      }
      const shifts = (round * 3) % 4;
      for (let k = 0; k < shifts && model.length > 0; k++) {
        const [id, inPort] = model.shift()!;
        expect(q.peek().id).toBe(id);
        expect(q.peekInPort()).toBe(inPort);
        expect(q.shift().id).toBe(id);
      }
      expect(q.length).toBe(model.length);
    }
    expect(next).toBeGreaterThan(40);
    while (model.length > 0) expect(q.shift().id).toBe(model.shift()![0]);
    expect(q.length).toBe(0);
  });
});
