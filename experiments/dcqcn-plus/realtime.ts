/**
 * Check A7 (dcqcn-plus.md §6.2, the cheaper N = 128 variant): the VT-10G incast as real OS
 * processes over UDP (`--runtime local`), scaled to 100 Mbit/s real links by timeScale 100
 * (scenarios/papers/dcqcn-plus/rt-incast-100m.yaml), once per algorithm.
 *
 * Windowed counters come from the switch node's /metrics, scraped when the launcher's clock
 * passes the window edges (emulated time of each scrape = the midpoint of the request); the mean
 * queue from the switch's queue series in results.json (one sample per 100 µs emulated).
 */
import { join } from 'node:path';
import { LocalRun } from '../../src/runtime/local/launcher.js';
import type { NodeMessage } from '../../src/runtime/real/protocol.js';
import type { ReproCheck, ReproContext } from '../types.js';
import { fmtKB, paperScenario } from './measure.js';

const MS = 1e6;
const FROM_NS = 200 * MS;
const TO_NS = 300 * MS;
const SWITCH = 's1';
const BOTTLENECK_PORT = 8;
const POLL_MS = 10;

interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text format, just enough for our own counters (no escapes inside label values). */
export function parsePrometheus(text: string): PromSample[] {
  const out: PromSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (m === null) continue;
    const labels: Record<string, string> = {};
    for (const kv of (m[2] ?? '').split(',')) {
      const e = /^\s*(\w+)="([^"]*)"\s*$/.exec(kv);
      if (e !== null) labels[e[1]] = e[2];
    }
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

function sum(samples: PromSample[], name: string, where: Record<string, string> = {}): number {
  let s = 0;
  for (const x of samples)
    if (x.name === name && Object.entries(where).every(([k, v]) => x.labels[k] === v)) s += x.value;
  return s;
}

interface Scrape {
  tNs: number;
  txBytes: number;
  xoff: number;
  pauseFrames: number;
}

async function scrape(url: string, nowNs: () => number | null): Promise<Scrape> {
  const before = nowNs() ?? 0;
  const res = await fetch(url);
  const text = await res.text();
  const after = nowNs() ?? before;
  const s = parsePrometheus(text);
  return {
    tNs: (before + after) / 2,
    txBytes: sum(s, 'rocelab_port_tx_bytes_total', { port: String(BOTTLENECK_PORT) }),
    xoff: sum(s, 'rocelab_pfc_xoff_transitions_total'),
    pauseFrames: sum(s, 'rocelab_pfc_pause_frames_total', { dir: 'tx' }),
  };
}

export interface RtMeasure {
  alg: string;
  meanQueueBytes: number;
  xoff: number;
  pauseFrames: number;
  throughput: number;
  windowNs: [number, number];
  keepUpWarnings: string[];
  wallMs: number;
}

export async function rtRun(alg: string, ctx: ReproContext): Promise<RtMeasure> {
  const scenario = paperScenario('rt-incast-100m.yaml', [`defaults.nic.cc=${alg}`]);
  let metricsAddr: string | null = null;
  const run = await LocalRun.create({
    scenario,
    runtime: 'local',
    outDir: join(ctx.outDir, `${alg}-rt`),
    seed: ctx.seed,
    print: null,
    onMessage(m: NodeMessage) {
      if (m.t === 'ready' && m.node === SWITCH) metricsAddr = m.metrics;
    },
  });
  const now = () => run.coordinator.emulatedNowNs();
  const done = run.run();
  let finished = false;
  done.then(
    () => {
      finished = true;
    },
    () => {
      finished = true;
    },
  );
  let a: Scrape | null = null;
  let b: Scrape | null = null;
  let scrapeError: string | null = null;
  while (!finished && b === null) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    const t = now();
    if (t === null || metricsAddr === null) continue;
    const url = `http://${metricsAddr}/metrics`;
    try {
      if (a === null && t >= FROM_NS) a = await scrape(url, now);
      else if (a !== null && t >= TO_NS) b = await scrape(url, now);
    } catch (err) {
      scrapeError = err instanceof Error ? err.message : String(err);
      break;
    }
  }
  const out = await done;
  if (a === null || b === null)
    throw new Error(
      `no /metrics of ${SWITCH} at the window edges${scrapeError === null ? '' : `: ${scrapeError}`}`,
    );
  const series = out.results.series.queue[`${SWITCH}:${BOTTLENECK_PORT}`] ?? [];
  const inWindow = series.filter(([t]) => t >= FROM_NS && t < TO_NS).map(([, q]) => q);
  const dt = b.tNs - a.tNs;
  const lineRateBps = scenario.defaults.link.rateBps;
  return {
    alg,
    meanQueueBytes: inWindow.length > 0 ? inWindow.reduce((x, y) => x + y, 0) / inWindow.length : Number.NaN,
    xoff: b.xoff - a.xoff,
    pauseFrames: b.pauseFrames - a.pauseFrames,
    throughput: ((b.txBytes - a.txBytes) * 8e9) / (lineRateBps * dt),
    windowNs: [a.tNs, b.tNs],
    // Lag first: it says why the emulation was not faithful; missing reports follow from it.
    keepUpWarnings: [
      ...out.results.warnings.filter((w) => /keep up/.test(w)),
      ...out.results.warnings.filter((w) => /no report/.test(w)),
    ],
    wallMs: out.wallMs,
  };
}

function describe(m: RtMeasure): string {
  const name = m.alg === 'dcqcn' ? 'DCQCN' : 'DCQCN+';
  const lag =
    m.keepUpWarnings.length > 0
      ? ` [${m.keepUpWarnings.length} keep-up warnings: ${m.keepUpWarnings[0]}]`
      : '';
  return `${name}: mean ${fmtKB(m.meanQueueBytes)}, ${m.xoff} XOFF (${m.pauseFrames} pause frames), throughput ${m.throughput.toFixed(3)}, wall ${(m.wallMs / 1000).toFixed(0)} s${lag}`;
}

export const realTimeCheck: ReproCheck = {
  id: 'A7',
  title: 'Real time: 128 flows, 100 Mbit/s real links (local runtime)',
  paper: 'same physics as A1/A2 (DCQCN pinned at the PFC cap, DCQCN+ drained), scaled by §3.8',
  expected:
    'in [20, 30) s real: DCQCN mean queue ≥ 3.5 MB and ≥ 50 XOFF; DCQCN+ mean ≤ 300 KB, 0 XOFF, throughput ≥ 0.70',
  tier: 'paper',
  async run(ctx) {
    const base = await rtRun('dcqcn', ctx);
    const plus = await rtRun('dcqcn-plus', ctx);
    const r3 = (x: number) => Math.round(x * 1000) / 1000;
    return {
      measured: `${describe(base)}; ${describe(plus)}`,
      pass:
        base.meanQueueBytes >= 3.5e6 &&
        base.xoff >= 50 &&
        plus.meanQueueBytes <= 300e3 &&
        plus.xoff === 0 &&
        plus.throughput >= 0.7,
      values: {
        dcqcn_meanQueueKB: Math.round(base.meanQueueBytes / 1e3),
        dcqcn_xoff: base.xoff,
        dcqcn_throughput: r3(base.throughput),
        dcqcn_keepUpWarnings: base.keepUpWarnings.length,
        plus_meanQueueKB: Math.round(plus.meanQueueBytes / 1e3),
        plus_xoff: plus.xoff,
        plus_throughput: r3(plus.throughput),
        plus_keepUpWarnings: plus.keepUpWarnings.length,
      },
    };
  },
};
