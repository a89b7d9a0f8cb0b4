/**
 * The traffic job of the docker testbed (docker-compose.yml service `traffic`): it starts the
 * experiment and follows it to the end.
 *
 * 1. Waits until every node of the scenario said ready at the start gate (START_GATE, a volume
 *    shared with the nodes; container.ts), then writes `<gate>/start`: emulated t = 0 is
 *    START_LEAD_MS from now on the host's monotonic clock, which every container shares.
 *    From then on the hosts post the scenario's flows at their emulated start times.
 * 2. Polls every host's and switch's /metrics and prints progress (flows completed, largest
 *    switch queue, CNPs) until every finite flow completed: exit 0, with a summary. Exit 1 when the
 *    run's duration passed first or a node stopped answering.
 *
 * Across machines (Kubernetes) START_GATE is `http://<job's name>:<port>`: the job serves the
 * gate over HTTP (http-gate.ts) on that port and hands out a relative start, so neither a shared
 * volume nor a shared clock is needed. The address map may then name nodes by DNS; the job
 * resolves the names once every node said ready, and again for a node that stops answering
 * (its pod may have been re-addressed).
 *
 * Environment: SCENARIO (+ ROCELAB_SET, SEED), ADDRESS_MAP, METRICS_PORT (the nodes'), START_GATE,
 * START_LEAD_MS (default 3000), TIME_SCALE (default the scenario's), JOB_TIMEOUT_S.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../config/errors.js';
import { loadScenario } from '../../config/load.js';
import { formatDuration, formatSize } from '../../config/units.js';
import { planFromSetup } from '../app/plan.js';
import {
  AddressError,
  type AddressMap,
  addressOf,
  endpointOf,
  hasDnsNames,
  type Lookup,
  parseAddressMap,
  resolveAddressMapRetrying,
} from '../real/addresses.js';
import { hostMonotonicNs } from '../real/protocol.js';
import { setupRun } from '../scenario-setup.js';
import { type StartGateFile, writeAtomic } from './container.js';
import { HttpStartGate } from './http-gate.js';

type Env = Record<string, string | undefined>;

export interface JobIo {
  log(line: string): void;
  /** GET a URL's body (tests inject); default fetch with a 2 s timeout. */
  get?(url: string): Promise<string>;
  pollMs?: number;
  /** Name lookups (tests inject; default the system resolver). */
  lookup?: Lookup;
  /** Listen for the HTTP gate here instead of the URL's port (tests: 0 = any). */
  gatePort?: number;
}

/** One sample of the Prometheus text format: name, labels, value. */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parseMetrics(text: string): MetricSample[] {
  const out: MetricSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (m === null) continue;
    const labels: Record<string, string> = {};
    if (m[3] !== undefined) {
      for (const l of m[3].matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    }
    const value = Number(m[4]);
    if (!Number.isNaN(value)) out.push({ name: m[1], labels, value });
  }
  return out;
}

function sum(
  samples: MetricSample[],
  name: string,
  where: (l: Record<string, string>) => boolean = () => true,
) {
  let s = 0;
  for (const x of samples) if (x.name === name && where(x.labels)) s += x.value;
  return s;
}

function max(samples: MetricSample[], name: string): number {
  let m = 0;
  for (const x of samples) if (x.name === name && x.value > m) m = x.value;
  return m;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function defaultGet(url: string): Promise<string> {
  const ctl = new AbortController();
  const t = setTimeout(() => ctl.abort(), 2000);
  try {
    const r = await fetch(url, { signal: ctl.signal });
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    return await r.text();
  } finally {
    clearTimeout(t);
  }
}

export interface JobResult {
  flowsTotal: number;
  flowsCompleted: number;
  maxQueueBytes: number;
  ok: boolean;
}

export async function runTrafficJob(env: Env, io: JobIo): Promise<JobResult> {
  const file = env.SCENARIO;
  if (file === undefined || file === '') throw new ConfigError('SCENARIO', 'required: the scenario file');
  const sets = (env.ROCELAB_SET ?? env.SET ?? '')
    .split(/[;\n]/)
    .map((x) => x.trim())
    .filter((x) => x !== '');
  if (env.SEED !== undefined && env.SEED !== '') sets.push(`seed=${env.SEED}`);
  const scenario = loadScenario(file, sets);
  const setup = setupRun(scenario);
  const plan = planFromSetup(setup);
  const timeScale =
    env.TIME_SCALE !== undefined && env.TIME_SCALE !== '' ? Number(env.TIME_SCALE) : scenario.timeScale;
  if (!(timeScale > 0))
    throw new ConfigError('TIME_SCALE', `invalid value ${JSON.stringify(env.TIME_SCALE)}`);
  const rawMap = env.ADDRESS_MAP;
  if (rawMap === undefined || rawMap === '')
    throw new ConfigError('ADDRESS_MAP', 'required: where the nodes are');
  let map: AddressMap;
  try {
    map = parseAddressMap(rawMap);
  } catch (err) {
    if (err instanceof AddressError) throw new ConfigError('ADDRESS_MAP', err.message);
    throw err;
  }
  const metricsPort = Number(env.METRICS_PORT ?? 9464);
  const gate = env.START_GATE;
  const get = io.get ?? defaultGet;
  const poll = io.pollMs ?? 1000;
  const nodes = setup.topo.nodes.map((n) => n.name);
  for (const n of nodes) endpointOf(map, n);
  const named = hasDnsNames(map);
  const urls = new Map<string, string>();
  const urlFor = (m: AddressMap, n: string) => `http://${addressOf(m, n).host}:${metricsPort}/metrics`;
  /** Resolve the names (of `only`, else all) into `urls`; retried while a name is not published. */
  const resolveUrls = async (timeoutMs: number, only?: string) => {
    const part = only === undefined ? map : { [only]: map[only] };
    const m = named ? await resolveAddressMapRetrying(part, { timeoutMs, lookup: io.lookup }) : part;
    for (const n of only === undefined ? nodes : [only]) urls.set(n, urlFor(m, n));
  };
  if (!named) await resolveUrls(0);
  const finite = plan.flows.filter((f) => Number.isFinite(f.spec.sizeBytes) || f.spec.stopNs !== null);
  const flowsTotal = finite.length;
  const runRealNs = scenario.durationNs * timeScale;

  const lead = Number(env.START_LEAD_MS ?? 3000);
  let httpGate: HttpStartGate | null = null;
  let gateT0MonoNs = 0;
  if (gate !== undefined && /^https?:\/\//.test(gate)) {
    const port = Number(new URL(gate).port || 80);
    httpGate = new HttpStartGate(nodes);
    const listening = await httpGate.listen(io.gatePort ?? port);
    io.log(
      `traffic: waiting for ${nodes.length} nodes (${nodes.join(', ')}) at the start gate on port ${listening}`,
    );
    const ok = await httpGate.allReady(Number(env.JOB_READY_TIMEOUT_S ?? 300) * 1000);
    if (!ok) {
      io.log(`traffic: nodes not ready: ${httpGate.missing().join(', ')}`);
      await httpGate.close();
      return { flowsTotal, flowsCompleted: 0, maxQueueBytes: 0, ok: false };
    }
    if (named) await resolveUrls(30_000);
    gateT0MonoNs = hostMonotonicNs() + lead * 1e6;
    httpGate.start(gateT0MonoNs, runRealNs);
    io.log(
      `traffic: all nodes ready; emulated t=0 in ${lead} ms, ${flowsTotal} flows, timeScale ${timeScale}`,
    );
  } else if (named) {
    await resolveUrls(Number(env.JOB_READY_TIMEOUT_S ?? 300) * 1000);
  }
  try {
    return await follow();
  } finally {
    // Nodes that ask late still get the start while the job follows the run, and at least until
    // t = 0; not after.
    if (httpGate !== null) {
      await sleep(Math.max(0, (gateT0MonoNs - hostMonotonicNs()) / 1e6 + 500));
      await httpGate.close();
    }
  }

  async function follow(): Promise<JobResult> {
    if (httpGate === null && gate !== undefined && gate !== '') {
      // A start left by an earlier `up` must not start anyone now.
      rmSync(join(gate, 'start'), { force: true });
      io.log(`traffic: waiting for ${nodes.length} nodes (${nodes.join(', ')}) at ${gate}`);
      const readyUntil = Date.now() + Number(env.JOB_READY_TIMEOUT_S ?? 300) * 1000;
      for (;;) {
        let ready: string[] = [];
        try {
          ready = readdirSync(join(gate, 'ready'));
        } catch {
          // not yet created
        }
        const missing = nodes.filter((n) => !ready.includes(n));
        if (missing.length === 0) break;
        if (Date.now() > readyUntil) {
          io.log(`traffic: nodes not ready: ${missing.join(', ')}`);
          return { flowsTotal, flowsCompleted: 0, maxQueueBytes: 0, ok: false };
        }
        await sleep(Math.min(poll, 200));
      }
      const start: StartGateFile = {
        t0MonoNs: hostMonotonicNs() + lead * 1e6,
        runRealNs,
        writtenBy: 'traffic',
      };
      writeAtomic(gate, 'start', JSON.stringify(start));
      io.log(
        `traffic: all nodes ready; emulated t=0 in ${lead} ms, ${flowsTotal} flows, timeScale ${timeScale}`,
      );
    }

    const deadline = Date.now() + Number(env.JOB_TIMEOUT_S ?? runRealNs / 1e9 + 60) * 1000;
    let completed = 0;
    let maxQueue = 0;
    let lastLine = '';
    let failures = 0;
    while (Date.now() < deadline) {
      const samples: MetricSample[] = [];
      let down = 0;
      await Promise.all(
        nodes.map(async (n) => {
          try {
            samples.push(...parseMetrics(await get(urls.get(n)!)));
          } catch {
            down++;
            // Its pod may have a new address: look the name up again for the next poll.
            if (named) await resolveUrls(0, n).catch(() => {});
          }
        }),
      );
      failures = down === nodes.length ? failures + 1 : 0;
      completed = sum(samples, 'rocelab_fct_seconds_count');
      maxQueue = Math.max(maxQueue, max(samples, 'rocelab_port_queue_max_bytes'));
      const cnps = sum(samples, 'rocelab_host_events_total', (l) => l.event === 'cnpRx');
      const line = `traffic: ${completed}/${flowsTotal} flows complete, max switch queue ${formatSize(maxQueue)}, ${cnps} CNPs${down > 0 ? `, ${down} nodes not answering` : ''}`;
      if (line !== lastLine) io.log(line);
      lastLine = line;
      if (completed >= flowsTotal) {
        const fctSum = sum(samples, 'rocelab_fct_seconds_sum');
        io.log(
          `traffic: done: ${completed} flows, mean FCT ${formatDuration(Math.round((fctSum / Math.max(1, completed)) * 1e9))} (emulated), max switch queue ${formatSize(maxQueue)}`,
        );
        return { flowsTotal, flowsCompleted: completed, maxQueueBytes: maxQueue, ok: true };
      }
      if (failures >= 30) {
        io.log('traffic: no node answers /metrics any more');
        break;
      }
      await sleep(poll);
    }
    io.log(`traffic: gave up with ${completed}/${flowsTotal} flows complete`);
    return { flowsTotal, flowsCompleted: completed, maxQueueBytes: maxQueue, ok: false };
  }
}
