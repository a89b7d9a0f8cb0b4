/**
 * The start gate over HTTP, for testbeds spread over machines (Kubernetes): no shared volume and
 * no shared monotonic clock. The traffic job serves it; every node, before it starts, asks
 * `POST /ready/<node>` until the answer carries the start:
 *
 *   202                       registered, not every node is ready yet (ask again)
 *   200 {"inMs", "runRealNs"} emulated t = 0 is `inMs` after the server answered
 *   404                       no such node in the scenario
 *
 * A relative start needs no common clock: the node puts t = 0 at its own receive instant plus
 * `inMs`, less half the request's round trip (the server answered about then). The error is the
 * path asymmetry, well under a millisecond; the nodes' clock sync (docs/realtime.md) corrects
 * their emulated clocks to each other from there on.
 */
import { createServer, type Server } from 'node:http';
import { hostMonotonicNs } from '../real/protocol.js';

export interface GateStartReply {
  inMs: number;
  runRealNs: number;
}

export class HttpStartGate {
  readonly ready = new Set<string>();
  private readonly known: Set<string>;
  private server: Server | null = null;
  private t0MonoNs: number | null = null;
  private runRealNs = 0;
  private waiters: (() => void)[] = [];

  constructor(nodes: readonly string[]) {
    this.known = new Set(nodes);
  }

  /** Listen on host:port (port 0: any); resolves to the port. */
  listen(port: number, host = '0.0.0.0'): Promise<number> {
    const server = createServer((req, res) => {
      const m = /^\/ready\/([^/?]+)$/.exec(req.url ?? '');
      if (req.method !== 'POST' || m === null) {
        res.writeHead(404).end();
        return;
      }
      const node = decodeURIComponent(m[1]);
      if (!this.known.has(node)) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end(`no node ${node}\n`);
        return;
      }
      if (!this.ready.has(node)) {
        this.ready.add(node);
        for (const w of this.waiters.splice(0)) w();
      }
      if (this.t0MonoNs === null) {
        res.writeHead(202).end();
        return;
      }
      const reply: GateStartReply = {
        inMs: (this.t0MonoNs - hostMonotonicNs()) / 1e6,
        runRealNs: this.runRealNs,
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    });
    server.keepAliveTimeout = 1000;
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        const a = server.address();
        resolve(typeof a === 'object' && a !== null ? a.port : port);
      });
    });
  }

  missing(): string[] {
    return [...this.known].filter((n) => !this.ready.has(n));
  }

  /** Resolves when every node registered, or after `timeoutMs` (then false). */
  async allReady(timeoutMs: number): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    while (this.missing().length > 0) {
      const left = until - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((r) => {
        const t = setTimeout(r, Math.min(left, 1000));
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
    return true;
  }

  /** From now on, answers carry this start (the server's monotonic clock). */
  start(t0MonoNs: number, runRealNs: number): void {
    this.t0MonoNs = t0MonoNs;
    this.runRealNs = runRealNs;
  }

  close(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (s === null) return Promise.resolve();
    s.closeAllConnections();
    return new Promise((r) => s.close(() => r()));
  }
}

/**
 * Register at the gate and wait for the start; returns emulated t = 0 on this machine's
 * monotonic clock, or null after `timeoutMs`. Connection errors (the job not up yet, its name
 * not published yet) are retried.
 */
export async function passHttpGate(
  url: string,
  node: string,
  opts: { timeoutMs: number; pollMs?: number; log?: (line: string) => void },
): Promise<number | null> {
  const until = Date.now() + opts.timeoutMs;
  const target = `${url.replace(/\/+$/, '')}/ready/${encodeURIComponent(node)}`;
  let lastProblem = '';
  while (Date.now() < until) {
    const sentNs = hostMonotonicNs();
    try {
      const ctl = AbortSignal.timeout(5000);
      const r = await fetch(target, { method: 'POST', signal: ctl });
      const recvNs = hostMonotonicNs();
      if (r.status === 200) {
        const v = (await r.json()) as Partial<GateStartReply>;
        if (typeof v.inMs === 'number' && Number.isFinite(v.inMs))
          return Math.round(recvNs - (recvNs - sentNs) / 2 + v.inMs * 1e6);
        lastProblem = 'malformed start';
      } else if (r.status === 404) {
        throw new GateError(`the start gate at ${url} does not know node ${node}`);
      } else {
        await r.arrayBuffer();
        lastProblem = '';
      }
    } catch (err) {
      if (err instanceof GateError) throw err;
      const msg = (err as Error).message;
      if (msg !== lastProblem) opts.log?.(`rocelab: ${node}: start gate ${url}: ${msg}; retrying`);
      lastProblem = msg;
    }
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 200));
  }
  return null;
}

export class GateError extends Error {
  override name = 'GateError';
}
