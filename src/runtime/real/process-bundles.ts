/**
 * Bundles: the datagrams the nodes of one process send to the nodes of another process of the same
 * run leave together, one UDP datagram per destination process and event-loop turn (lockstep,
 * grouped processes; docs/realtime.md "Bundles").
 *
 * Why: on the 2-core machine, lockstep incast-8to1 ran at dilation p50 140 in one process and
 * 235-265 in two. Each lockstep turn of a node sends a promise on every output link, and between
 * two processes every one of them was a datagram of its own: a `sendmsg` through loopback (and
 * conntrack), a `recvmsg`, a wake-up and a Buffer with a backing store of its own, for a few
 * dozen bytes. A switch with five hosts in the other process sent five per turn, and the five
 * hosts five back. Bundled, a turn of each process costs one datagram each way.
 *
 * What a bundle carries is exactly the datagrams that would have been sent, each with the
 * addresses it would have had; the receiving process hands each to its node as an in-process
 * link does (in-process-links.ts), so per-link sequences, acks, resends and lockstep's equal-time
 * order are untouched, and a lost bundle is the loss of the datagrams in it (each link asks for
 * its own resend).
 *
 * Wire layout (network byte order), never a valid Geneve or VXLAN header (the first byte):
 *
 *   bundle  = magic u8 (0xB5) | version u8 (1) | count u16 | entry × count
 *   entry   = srcIp u32 | srcPort u16 | dstIp u32 | dstPort u16 | length u16 | datagram
 *
 * Lifetime: a node's socket is also how bundles reach the other nodes of its process, so the
 * sockets of a process close with its last node (`release`), not with each node, and the bundler,
 * not the node, listens on them.
 */
import type { Socket } from 'node:dgram';
import { type LocalReceiver, localReceiverByKey } from './in-process-links.js';
import type { BundleReport } from './protocol.js';
import { SendsInFlight } from './sends-in-flight.js';

export const BUNDLE_MAGIC = 0xb5;
const BUNDLE_VERSION = 1;
const HEADER_BYTES = 4;
const ENTRY_HEADER_BYTES = 14;
/** Largest UDP payload over IPv4. */
const MAX_UDP_PAYLOAD = 65_507;

/** An IPv4 address and UDP port as one number (ip · 2^16 + port; below 2^48, exact). */
export function addressKey(host: string, port: number): number {
  const parts = host.split('.');
  if (parts.length !== 4) throw new RangeError(`bundles need IPv4 addresses, got ${host}`);
  let ip = 0;
  for (const p of parts) {
    const b = Number(p);
    if (!Number.isInteger(b) || b < 0 || b > 255)
      throw new RangeError(`bundles need IPv4 addresses, got ${host}`);
    ip = ip * 256 + b;
  }
  if (!Number.isInteger(port) || port < 0 || port > 0xffff) throw new RangeError(`bad UDP port ${port}`);
  return ip * 65536 + port;
}

function addressOfKey(key: number): { address: string; port: number } {
  const port = key % 65536;
  const ip = Math.floor(key / 65536);
  return { address: `${ip >>> 24}.${(ip >>> 16) & 255}.${(ip >>> 8) & 255}.${ip & 255}`, port };
}

/** Where the bundles to one other process go, and the one being filled. */
interface Outbox {
  host: string;
  port: number;
  buf: Buffer | null;
  used: number;
  count: number;
}

export interface BundlerOptions {
  /** Every node of the run → the index of the process that runs it. */
  processOf: ReadonlyMap<string, number>;
  /** This process's index. */
  self: number;
  /** Largest UDP payload the real path carries (the nodes' maxDatagramBytes). */
  maxDatagramBytes: number;
  /**
   * The socket addresses of the other processes' nodes: the only sources a bundle is taken from
   * (another process sends its bundles from one of its nodes' sockets). A datagram from anyone
   * else goes to the node like any other, so a stranger's junk that starts with the magic byte
   * is the node's garbage (`unknown-peer`), not a bundle.
   */
  peers: Iterable<{ host: string; port: number }>;
}

export interface BundlerCounters {
  /** Bundles sent, and the datagrams they carried. */
  bundlesTx: number;
  bundledTx: number;
  /** Bundles received, and malformed ones dropped (counted, never thrown). */
  bundlesRx: number;
  badBundles: number;
  /** Entries for an address no node of this process has (dropped). */
  unknownDestinations: number;
  /** Bundles the socket failed to send (their datagrams are resent when their links ask). */
  sendErrors: number;
}

/**
 * The bundler of a process (its nodes share it), by the process's index `self`. A run's process
 * has one; the JIT warm-up (warm-up-run.ts) one per process of the run it rehearses. A bundler
 * leaves this table when its last node releases it.
 */
const bundlers = new Map<number, ProcessBundler>();

export function configureBundler(opts: BundlerOptions): ProcessBundler {
  let b = bundlers.get(opts.self);
  if (b === undefined) bundlers.set(opts.self, (b = new ProcessBundler(opts)));
  return b;
}

export class ProcessBundler {
  private readonly processOf: ReadonlyMap<string, number>;
  /** This process's index among the run's processes; also its group of in-memory links (in-process-links.ts). */
  readonly self: number;
  private readonly maxBytes: number;
  private readonly outboxes = new Map<number, Outbox>();
  /** Outboxes with entries, flushed at the end of the turn. */
  private readonly pending: Outbox[] = [];
  private flushQueued = false;
  /** Sockets of this process's nodes: the first open one sends; each listens for bundles. */
  private readonly sockets: Socket[] = [];
  private readonly handlers = new Map<
    Socket,
    ((msg: Buffer, rinfo: { address: string; port: number }) => void) | null
  >();
  private holders = 0;
  private closing = false;
  /** Send buffers the socket has let go of. */
  private readonly free: Buffer[] = [];
  private readonly sending = new SendsInFlight();
  private readonly rinfos = new Map<number, { address: string; port: number }>();
  /** Sources bundles are taken from: IP → UDP ports (opts.peers). */
  private readonly peers = new Map<string, Set<number>>();
  readonly counters: BundlerCounters = {
    bundlesTx: 0,
    bundledTx: 0,
    bundlesRx: 0,
    badBundles: 0,
    unknownDestinations: 0,
    sendErrors: 0,
  };

  constructor(opts: BundlerOptions) {
    this.processOf = opts.processOf;
    this.self = opts.self;
    this.maxBytes = Math.min(MAX_UDP_PAYLOAD, opts.maxDatagramBytes);
    for (const p of opts.peers) {
      let ports = this.peers.get(p.host);
      if (ports === undefined) this.peers.set(p.host, (ports = new Set()));
      ports.add(p.port);
    }
  }

  /**
   * The outbox of datagrams to node `peerNode` at `peer`, or -1 when they go alone: the peer is
   * in this process (memory) or in none we know of, or the path's datagrams are too small to
   * carry a bundle.
   */
  outboxFor(peerNode: string, peer: { host: string; port: number }): number {
    const p = this.processOf.get(peerNode);
    if (p === undefined || p === this.self || this.maxBytes < 2048) return -1;
    // One gateway per process: the first of its nodes a link of ours reaches.
    if (!this.outboxes.has(p))
      this.outboxes.set(p, { host: peer.host, port: peer.port, buf: null, used: 0, count: 0 });
    return p;
  }

  /**
   * A node's socket joins: the bundler listens on it (`onMessage` gets every datagram that is not
   * a bundle, until `detach`) and may send bundles from it. The node hands its closing over to
   * `release`.
   */
  attach(
    socket: Socket,
    onMessage: (msg: Buffer, rinfo: { address: string; port: number }) => void,
  ): boolean {
    const first = this.sockets.length === 0;
    this.sockets.push(socket);
    this.handlers.set(socket, onMessage);
    this.holders++;
    socket.on('message', (msg: Buffer, rinfo: { address: string; port: number }) => {
      if (
        msg.length > 0 &&
        msg[0] === BUNDLE_MAGIC &&
        this.peers.get(rinfo.address)?.has(rinfo.port) === true
      )
        this.receive(msg);
      else this.handlers.get(socket)?.(msg, rinfo);
    });
    return first;
  }

  /** The process's counters, as a node report carries them. */
  report(): BundleReport {
    const c = this.counters;
    return {
      tx: c.bundlesTx,
      rx: c.bundlesRx,
      bad: c.badBundles,
      unknownDestinations: c.unknownDestinations,
      sendErrors: c.sendErrors,
    };
  }

  /** The node closed: its datagrams no longer reach it (bundles still reach its siblings). */
  detach(socket: Socket): void {
    if (this.handlers.has(socket)) this.handlers.set(socket, null);
  }

  /**
   * Send `bytes` bytes of `src` from address key `srcKey` to `dstKey`, in the bundle to process
   * `outbox`. Copied at once: the send is complete for the caller. False (and the bundle being
   * filled sent) when the datagram is too large for a bundle: the caller sends it alone.
   */
  append(outbox: number, srcKey: number, dstKey: number, src: Buffer, bytes: number): boolean {
    const o = this.outboxes.get(outbox)!;
    if (HEADER_BYTES + ENTRY_HEADER_BYTES + bytes > this.maxBytes) {
      // A datagram as large as the path carries (a full train) goes alone; what the bundle
      // already holds leaves first, so the link's datagrams keep their order.
      if (o.buf !== null) this.send(o);
      return false;
    }
    if (o.buf !== null && o.used + ENTRY_HEADER_BYTES + bytes > this.maxBytes) this.send(o);
    if (o.buf === null) {
      o.buf = this.free.pop() ?? Buffer.allocUnsafeSlow(this.maxBytes);
      o.buf[0] = BUNDLE_MAGIC;
      o.buf[1] = BUNDLE_VERSION;
      o.used = HEADER_BYTES;
      o.count = 0;
      this.pending.push(o);
    }
    const b = o.buf;
    let at = o.used;
    b.writeUIntBE(srcKey, at, 6);
    b.writeUIntBE(dstKey, at + 6, 6);
    b.writeUInt16BE(bytes, at + 12);
    at += ENTRY_HEADER_BYTES;
    src.copy(b, at, 0, bytes);
    o.used = at + bytes;
    o.count++;
    this.counters.bundledTx++;
    if (!this.flushQueued) {
      this.flushQueued = true;
      setImmediate(this.flush);
    }
    return true;
  }

  /** Send every bundle being filled now (the end of a turn; a node's drain). */
  readonly flush = (): void => {
    this.flushQueued = false;
    for (let i = 0; i < this.pending.length; i++) {
      const o = this.pending[i];
      if (o.buf !== null) this.send(o);
    }
    this.pending.length = 0;
  };

  private send(o: Outbox): void {
    const buf = o.buf!;
    o.buf = null;
    buf.writeUInt16BE(o.count, 2);
    const socket = this.sockets[0];
    if (socket === undefined) return;
    this.counters.bundlesTx++;
    this.sending.started();
    socket.send(buf, 0, o.used, o.port, o.host, (err) => {
      if (err !== null) this.counters.sendErrors++;
      this.free.push(buf);
      this.sending.done();
    });
  }

  /**
   * Resolves once every bundle handed to a socket has left it (or after `maxMs`). Each node of
   * the process drains as it finishes, so several may wait at once.
   */
  drain(maxMs = 1000): Promise<void> {
    this.flush();
    return this.sending.drained(maxMs);
  }

  /**
   * A node is done with its socket. The last one closes them all, once what is being sent has
   * left: until then a sibling may still need the bundles that arrive on any of them.
   */
  release(): Promise<void> {
    if (--this.holders > 0 || this.closing) return Promise.resolve();
    this.closing = true;
    return this.drain().then(() => {
      for (const s of this.sockets) {
        try {
          s.close();
        } catch {
          // already closed
        }
      }
      this.sockets.length = 0;
      if (bundlers.get(this.self) === this) bundlers.delete(this.self);
    });
  }

  /** Hand each datagram of a bundle to its node, as if its socket had read it. */
  receive(msg: Buffer): void {
    this.counters.bundlesRx++;
    if (msg.length < HEADER_BYTES || msg[1] !== BUNDLE_VERSION) {
      this.counters.badBundles++;
      return;
    }
    const count = msg.readUInt16BE(2);
    let at = HEADER_BYTES;
    for (let i = 0; i < count; i++) {
      if (at + ENTRY_HEADER_BYTES > msg.length) {
        this.counters.badBundles++;
        return;
      }
      const srcKey = msg.readUIntBE(at, 6);
      const dstKey = msg.readUIntBE(at + 6, 6);
      const bytes = msg.readUInt16BE(at + 12);
      at += ENTRY_HEADER_BYTES;
      if (at + bytes > msg.length) {
        this.counters.badBundles++;
        return;
      }
      const to: LocalReceiver | undefined = localReceiverByKey(dstKey);
      if (to === undefined) this.counters.unknownDestinations++;
      else {
        let from = this.rinfos.get(srcKey);
        if (from === undefined) this.rinfos.set(srcKey, (from = addressOfKey(srcKey)));
        to.receiveDatagram(msg.subarray(at, at + bytes), from);
      }
      at += bytes;
    }
  }
}
