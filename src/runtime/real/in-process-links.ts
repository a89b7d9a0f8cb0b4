/**
 * Datagrams between nodes of one process, handed over in memory instead of through the kernel
 * (`inProcessLinks: memory`, docs/realtime.md "Processes").
 *
 * Nodes that share a process still bind a socket each, and by default a datagram from one to
 * another goes through loopback: a `sendmsg`, a `recvmsg` and, in Node, a buffer with a backing
 * store of its own that a young collection must free. In memory, the sender copies the bytes
 * into a slab shared by many datagrams (the receiver may keep views of them: a switch forwards
 * in place) and the receiver reads them on its next turn, in send order, as if the socket had.
 */

/** A node that takes datagrams from nodes of its own process. */
export interface LocalReceiver {
  /** A datagram sent during a turn of this process: read on the receiver's next turn. */
  receiveLocal(msg: Buffer, from: { address: string; port: number }): void;
  /** A datagram read from a socket (a bundle's): handled now, as the receiver's own socket would. */
  receiveDatagram(msg: Buffer, from: { address: string; port: number }): void;
}

/**
 * Receivers by address, each with its group: memory links join nodes of one group only. A run's
 * process is one group (0, or its index among the run's processes); the JIT warm-up
 * (warm-up-run.ts) runs the nodes of every process of the run in one process, each process's as
 * a group of its own, so the datagrams between groups take the path they take between processes
 * (bundles through the sockets) and V8 compiles that path before the run, not during it.
 */
const receivers = new Map<string, { r: LocalReceiver; group: number }>();
/** The same by address key (process-bundles.ts addressKey), for bundles: no string per datagram. */
const receiversByKey = new Map<number, LocalReceiver>();

const key = (host: string, port: number) => `${host}:${port}`;

/**
 * `r` takes the datagrams sent to host:port from nodes of its `group` in this process
 * (`numericKey`: that address as process-bundles.ts's addressKey, when bundles may carry
 * datagrams to it); returns the undo.
 */
export function registerLocalReceiver(
  host: string,
  port: number,
  r: LocalReceiver,
  numericKey?: number,
  group = 0,
): () => void {
  const k = key(host, port);
  const entry = { r, group };
  receivers.set(k, entry);
  if (numericKey !== undefined) receiversByKey.set(numericKey, r);
  return () => {
    if (receivers.get(k) === entry) receivers.delete(k);
    if (numericKey !== undefined && receiversByKey.get(numericKey) === r) receiversByKey.delete(numericKey);
  };
}

/** The receiver registered with address key `k` in this process, if any. */
export function localReceiverByKey(k: number): LocalReceiver | undefined {
  return receiversByKey.get(k);
}

/** The receiver at host:port in this process and `group`, if any. */
export function localReceiver(host: string, port: number, group = 0): LocalReceiver | undefined {
  const e = receivers.get(key(host, port));
  return e !== undefined && e.group === group ? e.r : undefined;
}

/** Slab size: datagrams copied into one share its backing store. */
const SLAB_BYTES = 256 * 1024;
let slab: Buffer | null = null;
let slabUsed = 0;

/**
 * A copy of `src` in a shared slab. The slab is never written again once full; it lives as long
 * as any copy in it does.
 */
export function copyToSlab(src: Buffer): Buffer {
  const n = src.length;
  if (n > SLAB_BYTES / 4) return Buffer.from(src);
  if (slab === null || slabUsed + n > SLAB_BYTES) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    slabUsed = 0;
  }
  const at = slabUsed;
  src.copy(slab, at);
  // 8-byte aligned, as Node's own pool does.
  slabUsed = (at + n + 7) & ~7;
  return slab.subarray(at, at + n);
}
