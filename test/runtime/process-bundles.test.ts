/**
 * Bundles (src/runtime/real/process-bundles.ts): what the nodes of one process send the nodes of
 * another leaves in one datagram per destination process and turn, and arrives at each node as
 * the datagram it would have received alone, from the address it would have come from.
 */
import { createSocket, type Socket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { registerLocalReceiver } from '../../src/runtime/real/in-process-links.js';
import {
  addressKey,
  BUNDLE_MAGIC,
  configureBundler,
  ProcessBundler,
} from '../../src/runtime/real/process-bundles.js';

type Got = { msg: Buffer; from: { address: string; port: number } };

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function bound(): Promise<Socket> {
  const s = createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
  cleanups.push(() => {
    try {
      s.close();
    } catch {
      // closed by its bundler
    }
  });
  return s;
}

/** A node of the receiving process at 127.0.0.1:port that records what it is handed. */
function receiver(port: number): Got[] {
  const got: Got[] = [];
  cleanups.push(
    registerLocalReceiver(
      '127.0.0.1',
      port,
      {
        receiveLocal: () => {
          throw new Error('a bundle is read from a socket, not handed over during a turn');
        },
        receiveDatagram: (msg, from) => got.push({ msg: Buffer.from(msg), from }),
      },
      addressKey('127.0.0.1', port),
    ),
  );
  return got;
}

const until = async (cond: () => boolean, ms = 2000) => {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
};

/** Two processes: `a` (self 0) runs node a; `b` (self 1) runs nodes b and c, b's socket bound. */
async function twoProcesses(maxDatagramBytes = 65_507) {
  const sa = await bound();
  const sb = await bound();
  const pa = sa.address().port;
  const pb = sb.address().port;
  const pc = pb + 1; // registered, never bound: bundles reach c through b's socket
  const processOf = new Map([
    ['a', 0],
    ['b', 1],
    ['c', 1],
  ]);
  const local = (port: number) => [{ host: '127.0.0.1', port }];
  const senders = new ProcessBundler({ processOf, self: 0, maxDatagramBytes, peers: local(pb) });
  const receivers = new ProcessBundler({ processOf, self: 1, maxDatagramBytes, peers: local(pa) });
  const aPlain: Buffer[] = [];
  const bPlain: Buffer[] = [];
  senders.attach(sa, (m) => aPlain.push(m));
  receivers.attach(sb, (m) => bPlain.push(m));
  return { sa, sb, pa, pb, pc, senders, receivers, aPlain, bPlain, toB: receiver(pb), toC: receiver(pc) };
}

describe('process bundles', () => {
  it('one datagram carries what a turn sends to the other process; each node gets its own, in order, from its sender', async () => {
    const p = await twoProcesses();
    const outB = p.senders.outboxFor('b', { host: '127.0.0.1', port: p.pb });
    const outC = p.senders.outboxFor('c', { host: '127.0.0.1', port: p.pc });
    expect(outB).toBe(1);
    expect(outC).toBe(outB); // one outbox per process, not per node
    expect(p.senders.outboxFor('a', { host: '127.0.0.1', port: p.pa })).toBe(-1); // our own process
    expect(p.senders.outboxFor('zz', { host: '127.0.0.1', port: 9 })).toBe(-1); // nobody we know
    const from = addressKey('127.0.0.1', p.pa);
    const send = (to: number, text: string) =>
      p.senders.append(outB, from, to, Buffer.from(`${text}junk`), text.length);
    send(addressKey('127.0.0.1', p.pb), 'b-first');
    send(addressKey('127.0.0.1', p.pc), 'c-only');
    send(addressKey('127.0.0.1', p.pb), 'b-second');
    p.senders.flush();
    await until(() => p.toB.length === 2 && p.toC.length === 1);
    expect(p.toB.map((g) => g.msg.toString())).toEqual(['b-first', 'b-second']);
    expect(p.toC.map((g) => g.msg.toString())).toEqual(['c-only']);
    for (const g of [...p.toB, ...p.toC]) expect(g.from).toEqual({ address: '127.0.0.1', port: p.pa });
    expect(p.senders.counters).toMatchObject({ bundlesTx: 1, bundledTx: 3 });
    expect(p.receivers.counters).toMatchObject({ bundlesRx: 1, badBundles: 0, unknownDestinations: 0 });
    expect(p.bPlain).toEqual([]);
  });

  it('a datagram that does not fit the bundle being filled starts the next one', async () => {
    const p = await twoProcesses(2048);
    const out = p.senders.outboxFor('b', { host: '127.0.0.1', port: p.pb });
    const from = addressKey('127.0.0.1', p.pa);
    const to = addressKey('127.0.0.1', p.pb);
    for (let i = 0; i < 3; i++) p.senders.append(out, from, to, Buffer.alloc(900, i), 900);
    p.senders.flush();
    await until(() => p.toB.length === 3);
    expect(p.toB.map((g) => g.msg[0])).toEqual([0, 1, 2]);
    expect(p.senders.counters.bundlesTx).toBe(2);
  });

  it('a datagram too large for any bundle is refused, after the bundle being filled has left (its link keeps its order)', async () => {
    const p = await twoProcesses(2048);
    const out = p.senders.outboxFor('b', { host: '127.0.0.1', port: p.pb });
    const from = addressKey('127.0.0.1', p.pa);
    const to = addressKey('127.0.0.1', p.pb);
    expect(p.senders.append(out, from, to, Buffer.from('small'), 5)).toBe(true);
    expect(p.senders.counters.bundlesTx).toBe(0);
    // 2048 − 4 − 14 bytes fit exactly; one more does not.
    expect(p.senders.append(out, from, to, Buffer.alloc(2031), 2031)).toBe(false);
    expect(p.senders.counters.bundlesTx).toBe(1); // the bundle with 'small' left first
    expect(p.senders.append(out, from, to, Buffer.alloc(2030, 9), 2030)).toBe(true);
    p.senders.flush();
    await until(() => p.toB.length === 2);
    expect(p.toB.map((g) => g.msg.length)).toEqual([5, 2030]);
    expect(p.senders.counters).toMatchObject({ bundlesTx: 2, bundledTx: 2 });
  });

  it('paths whose datagrams cannot hold a bundle send alone', async () => {
    const p = await twoProcesses(1472);
    expect(p.senders.outboxFor('b', { host: '127.0.0.1', port: p.pb })).toBe(-1);
  });

  it('other datagrams reach the node until it detaches; malformed bundles are counted and dropped', async () => {
    const p = await twoProcesses();
    const raw = (bytes: number[]) =>
      new Promise<void>((r) => p.sa.send(Buffer.from(bytes), p.pb, '127.0.0.1', () => r()));
    await raw([0x00, 0x00, 0x65, 0x58, 1, 2, 3, 4]); // a Geneve-looking datagram: the node's
    await until(() => p.bPlain.length === 1);
    expect(p.bPlain).toHaveLength(1);
    await raw([BUNDLE_MAGIC, 9, 0, 1]); // unknown version
    await raw([BUNDLE_MAGIC, 1, 0, 2, 1, 2, 3]); // entry header cut short
    // An entry whose length runs past the datagram.
    await raw([BUNDLE_MAGIC, 1, 0, 1, 127, 0, 0, 1, 0, 1, 127, 0, 0, 1, 0, 2, 0, 50, 1]);
    // A well-formed entry for an address no node of this process has.
    await raw([BUNDLE_MAGIC, 1, 0, 1, 127, 0, 0, 1, 0, 1, 127, 0, 0, 1, 0, 2, 0, 1, 7]);
    await until(() => p.receivers.counters.bundlesRx === 4);
    expect(p.receivers.counters).toMatchObject({ bundlesRx: 4, badBundles: 3, unknownDestinations: 1 });
    // The magic byte from a socket no other process's node has: the node's datagram (its
    // garbage), never a bundle.
    const stranger = await bound();
    const fake = [BUNDLE_MAGIC, 1, 0, 1, 127, 0, 0, 1, 0, 1, 127, 0, 0, 1, 0, 2, 0, 1, 7];
    await new Promise<void>((r) => stranger.send(Buffer.from(fake), p.pb, '127.0.0.1', () => r()));
    await until(() => p.bPlain.length === 2);
    expect(p.bPlain[1][0]).toBe(BUNDLE_MAGIC);
    expect(p.receivers.counters.bundlesRx).toBe(4);
    p.receivers.detach(p.sb);
    await raw([0x00, 0x00, 0x65, 0x58, 1, 2, 3, 4]);
    await new Promise((r) => setTimeout(r, 50));
    expect(p.bPlain).toHaveLength(2);
  });

  it('every node of the process that drains at once is woken when the bundles have left, not by its timeout', async () => {
    const p = await twoProcesses();
    const out = p.senders.outboxFor('b', { host: '127.0.0.1', port: p.pb });
    p.senders.append(out, addressKey('127.0.0.1', p.pa), addressKey('127.0.0.1', p.pb), Buffer.from('x'), 1);
    const t0 = Date.now();
    // Three nodes finishing together; a 10 s timeout each, which none may need.
    await Promise.all([p.senders.drain(10_000), p.senders.drain(10_000), p.senders.drain(10_000)]);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(p.senders.counters.bundlesTx).toBe(1);
    await until(() => p.toB.length === 1);
    expect(p.toB).toHaveLength(1);
  });

  it("the process's sockets close with its last node, once its bundles have left", async () => {
    const p = await twoProcesses();
    const s2 = await bound();
    p.senders.attach(s2, () => {});
    let closed = 0;
    p.sa.on('close', () => closed++);
    s2.on('close', () => closed++);
    const out = p.senders.outboxFor('b', { host: '127.0.0.1', port: p.pb });
    p.senders.append(
      out,
      addressKey('127.0.0.1', p.pa),
      addressKey('127.0.0.1', p.pb),
      Buffer.from('last'),
      4,
    );
    await p.senders.release();
    expect(closed).toBe(0);
    await p.senders.release();
    await until(() => closed === 2);
    expect(closed).toBe(2);
    await until(() => p.toB.length === 1);
    expect(p.toB.map((g) => g.msg.toString())).toEqual(['last']);
  });

  it("a process's bundler is one per process index, given anew once its last node released it", async () => {
    const opts = (self: number) => ({
      processOf: new Map([
        ['a', 0],
        ['b', 1],
      ]),
      self,
      maxDatagramBytes: 65_507,
      peers: [],
    });
    const a = configureBundler(opts(0));
    const b = configureBundler(opts(1));
    // The warm-up rehearses both processes of the run in one: two bundlers, each its own.
    expect(b).not.toBe(a);
    expect(configureBundler(opts(0))).toBe(a);
    const s = await bound();
    a.attach(s, () => {});
    await a.release();
    await b.release();
    // The run after the warm-up gets fresh ones, not the closed bundlers of the warm-up.
    expect(configureBundler(opts(0))).not.toBe(a);
    expect(configureBundler(opts(1))).not.toBe(b);
    await configureBundler(opts(0)).release();
    await configureBundler(opts(1)).release();
  });
});
