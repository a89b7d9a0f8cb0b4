import { describe, expect, it } from 'vitest';
import { Ring } from '../../src/port/ring.js';

describe('Ring', () => {
  it('is a FIFO with a key per item across growth and wrap-around', () => {
    const r = new Ring<string>(2);
    const model: [string, number][] = [];
    let n = 0;
    // Interleave pushes and shifts so the head wraps several times while the ring doubles.
    for (let round = 0; round < 50; round++) {
      for (let k = 0; k < (round % 7) + 1; k++) {
        r.push(`x${n}`, n * 0.5);
        model.push([`x${n}`, n * 0.5]);
        n++;
      }
      for (let k = 0; k < round % 5; k++) {
        const want = model.shift();
        if (want === undefined) break;
        expect(r.peekKey()).toBe(want[1]);
        expect(r.shift()).toBe(want[0]);
      }
      expect(r.length).toBe(model.length);
      expect(r.toArray()).toEqual(model.map((m) => m[0]));
    }
    while (model.length > 0) expect(r.shift()).toBe(model.shift()![0]);
    expect(r.shift()).toBeUndefined();
    expect(r.peek()).toBeUndefined();
    expect(r.length).toBe(0);
  });
});
