import { describe, expect, it } from 'vitest';
import { copyToSlab, localReceiver, registerLocalReceiver } from '../../src/runtime/real/in-process-links.js';

describe('in-process links', () => {
  it('copies into shared slabs: equal bytes, no aliasing of the source or of each other', () => {
    const a = Buffer.from('first datagram');
    const b = Buffer.from('second');
    const ca = copyToSlab(a);
    const cb = copyToSlab(b);
    expect(ca.equals(a)).toBe(true);
    expect(cb.equals(b)).toBe(true);
    a.fill(0);
    expect(ca.toString()).toBe('first datagram');
    expect(ca.buffer).toBe(cb.buffer); // one backing store for both
    expect(cb.byteOffset).toBeGreaterThanOrEqual(ca.byteOffset + ca.length);
  });

  it('copies large datagrams and fills slab after slab without overlap', () => {
    const big = Buffer.alloc(100_000, 7);
    expect(copyToSlab(big).equals(big)).toBe(true);
    const copies: Buffer[] = [];
    for (let i = 0; i < 600; i++) copies.push(copyToSlab(Buffer.alloc(1000, i & 0xff)));
    copies.forEach((c, i) => {
      expect(c.length).toBe(1000);
      expect(c[0]).toBe(i & 0xff);
      expect(c[999]).toBe(i & 0xff);
    });
  });

  it('finds a node by the address its peers send to, until it leaves', () => {
    const r = { receiveLocal: () => {}, receiveDatagram: () => {} };
    const undo = registerLocalReceiver('127.0.0.9', 4000, r);
    expect(localReceiver('127.0.0.9', 4000)).toBe(r);
    expect(localReceiver('127.0.0.9', 4001)).toBeUndefined();
    undo();
    expect(localReceiver('127.0.0.9', 4000)).toBeUndefined();
  });

  it("joins nodes of one group only: the warm-up's groups reach each other as processes do", () => {
    const r = { receiveLocal: () => {}, receiveDatagram: () => {} };
    const undo = registerLocalReceiver('127.0.0.9', 4002, r, undefined, 1);
    expect(localReceiver('127.0.0.9', 4002, 1)).toBe(r);
    expect(localReceiver('127.0.0.9', 4002, 0)).toBeUndefined();
    expect(localReceiver('127.0.0.9', 4002)).toBeUndefined();
    undo();
    expect(localReceiver('127.0.0.9', 4002, 1)).toBeUndefined();
  });
});
