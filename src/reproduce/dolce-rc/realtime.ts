/**
 * AC7 in real time (dolce-rc.md §7.2, "or S = 1000 real time"): E2 as OS processes over UDP on
 * 127.x (`--runtime local`), time dilated by S = 1000 (100 Gbps emulated = 100 Mbit/s real, 1 µs
 * links = 1 ms), N = 8, once per algorithm; the window [10, 40] ms emulated is [10, 40] s real.
 * Dolce-RC's CNP counts travel as the BTH reserved bits and a Geneve option on the real wire.
 *
 * Window counters come from the nodes' /metrics, scraped when the launcher's emulated clock
 * passes the window edges: the bottleneck port's transmitted bytes (utilisation) and every
 * sender port's (per-flow shares for Jain's index).
 */
import { join } from 'node:path';
import { LocalRun } from '../../runtime/local/launcher.js';
import type { NodeMessage } from '../../runtime/real/protocol.js';
import type { ReproCheck, ReproContext } from '../types.js';
import { incastRun } from './incast.js';
import { dolceScenario, jainIndex } from './probe.js';

const MS = 1e6;
const FROM_NS = 10 * MS;
const TO_NS = 40 * MS;
const N = 8;
const SWITCH = 's1';
const BOTTLENECK_PORT = N;
const POLL_MS = 10;

/** Sum of a counter in Prometheus text (our own metrics: no escapes inside label values). */
function promSum(text: string, name: string, where: Record<string, string>): number {
  let s = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (m === null || m[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const kv of (m[2] ?? '').split(',')) {
      const e = /^\s*(\w+)="([^"]*)"\s*$/.exec(kv);
      if (e !== null) labels[e[1]] = e[2];
    }
    if (Object.entries(where).every(([k, v]) => labels[k] === v)) s += Number(m[3]);
  }
  return s;
}

interface Scrape {
  tNs: number;
  bottleneckTx: number;
  senderTx: number[];
}

export interface RtIncastMeasure {
  alg: string;
  utilisation: number;
  jain: number;
  drops: number;
  retransmits: number;
  warnings: string[];
  wallMs: number;
}

const rtRuns = new Map<string, Promise<RtIncastMeasure>>();

async function rtIncast(alg: 'dcqcn' | 'dolce-rc', ctx: ReproContext): Promise<RtIncastMeasure> {
  const key = `${alg}|${ctx.seed ?? ''}`;
  let p = rtRuns.get(key);
  if (p !== undefined) return p;
  p = (async () => {
    const scenario = dolceScenario('e2-incast.yaml', [
      `defaults.nic.cc=${alg}`,
      `workload[0].senders=h1..h${N}`,
      'timeScale=1000',
    ]);
    const senders = Array.from({ length: N }, (_, i) => `h${i + 1}`);
    const metrics = new Map<string, string>();
    const run = await LocalRun.create({
      scenario,
      runtime: 'local',
      outDir: join(ctx.outDir, `${alg}-rt`),
      seed: ctx.seed,
      print: null,
      onMessage(m: NodeMessage) {
        if (m.t === 'ready' && m.metrics !== null) metrics.set(m.node, m.metrics);
      },
    });
    const now = () => run.coordinator.emulatedNowNs();
    const scrape = async (): Promise<Scrape> => {
      const before = now() ?? 0;
      const get = async (node: string) => (await fetch(`http://${metrics.get(node)}/metrics`)).text();
      const [sw, ...hosts] = await Promise.all([get(SWITCH), ...senders.map(get)]);
      const after = now() ?? before;
      return {
        tNs: (before + after) / 2,
        bottleneckTx: promSum(sw, 'rocelab_port_tx_bytes_total', { port: String(BOTTLENECK_PORT) }),
        senderTx: hosts.map((t) => promSum(t, 'rocelab_port_tx_bytes_total', { port: '0' })),
      };
    };
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
      if (t === null || metrics.size < N + 1) continue;
      try {
        if (a === null && t >= FROM_NS) a = await scrape();
        else if (a !== null && t >= TO_NS) b = await scrape();
      } catch (err) {
        scrapeError = err instanceof Error ? err.message : String(err);
        break;
      }
    }
    const out = await done;
    if (a === null || b === null)
      throw new Error(`no /metrics at the window edges${scrapeError === null ? '' : `: ${scrapeError}`}`);
    const dtNs = b.tNs - a.tNs;
    const r = out.results;
    const senderBytes = b.senderTx.map((x, i) => x - (a as Scrape).senderTx[i]);
    return {
      alg,
      utilisation: ((b.bottleneckTx - a.bottleneckTx) * 8e9) / (scenario.defaults.link.rateBps * dtNs),
      jain: jainIndex(senderBytes),
      drops: r.summary.drops,
      retransmits: r.hosts.reduce((s, h) => s + h.retransmits, 0),
      warnings: r.warnings.filter((w) => /keep up|no report|lag/.test(w)),
      wallMs: out.wallMs,
    };
  })();
  rtRuns.set(key, p);
  return p;
}

export const AC7_RT: ReproCheck = {
  id: 'AC7-RT',
  title: 'Incast stability in real time (E2, N = 8, local runtime, S = 1000)',
  paper: 'as AC7; Dolce-RC was built on commodity smart NICs (§IV-B), i.e. it runs in real time',
  expected:
    'in [10, 40] s real ([10, 40] ms emulated): Dolce-RC utilisation ≥ 0.85 and ≥ DCQCN − 0.05, Jain ≥ 0.95, no data-packet loss; reported next to virtual time',
  tier: 'paper',
  async run(ctx) {
    const d = await rtIncast('dolce-rc', ctx);
    const b = await rtIncast('dcqcn', ctx);
    const vd = incastRun('dolce-rc', N, ctx);
    const vb = incastRun('dcqcn', N, ctx);
    const warn = (m: RtIncastMeasure) =>
      m.warnings.length > 0 ? ` [${m.warnings.length} keep-up warnings]` : '';
    return {
      measured: `real time: utilisation Dolce-RC ${d.utilisation.toFixed(3)} vs DCQCN ${b.utilisation.toFixed(3)}, Jain ${d.jain.toFixed(4)} / ${b.jain.toFixed(4)}, drops ${d.drops}, retransmits ${d.retransmits}${warn(d)}${warn(b)}; virtual time: ${vd.utilisation.toFixed(3)} vs ${vb.utilisation.toFixed(3)}; wall ${((d.wallMs + b.wallMs) / 1000).toFixed(0)} s`,
      pass:
        d.utilisation >= 0.85 &&
        d.utilisation >= b.utilisation - 0.05 &&
        d.jain >= 0.95 &&
        d.drops === 0 &&
        d.retransmits === 0,
      values: {
        rtDolceUtil: d.utilisation,
        rtDcqcnUtil: b.utilisation,
        rtDolceJain: d.jain,
        rtDcqcnJain: b.jain,
        vtDolceUtil: vd.utilisation,
        vtDcqcnUtil: vb.utilisation,
        rtDolceDrops: d.drops,
        keepUpWarnings: d.warnings.length + b.warnings.length,
      },
    };
  },
};
