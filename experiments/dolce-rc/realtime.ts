/**
 * AC7 in real time (dolce-rc.md §7.2 "or S = 1000 real time"), as far as the test machine
 * carries it: the E2 incast with N = 4 as OS processes over UDP on 127.x (`--runtime local`),
 * Dolce-RC's CNP counts in the BTH reserved bits and a Geneve option on the real wire, compared
 * with the same scenario in virtual time.
 *
 * Why not S = 1000 and [10, 40] ms: on the shared 2-core machine ten node processes carried only
 * 20-34 % of 100 Mbit/s (S = 1000) and at S = 5000 lost datagrams stalled flows; the real-time
 * suite's other incast check runs at S = 50 000 for the same reason. At S = 50 000 (2 Mbit/s
 * real, 1 µs links = 50 ms) 2 ms emulated take 100 s real, so this check covers E2's first 2 ms
 * (the incast's start, cuts, PFC and the first bandit windows) and asks the real-time run to
 * agree with virtual time, lossless, fair and with the bandit iterating.
 *
 * Window counters come from the nodes' /metrics, scraped when the launcher's emulated clock
 * passes the window edges: the bottleneck port's transmitted bytes, every sender port's bytes
 * and the senders' bandit iteration counts (qpInspect `mabIter`).
 */
import { join } from 'node:path';
import { LocalRun } from '../../src/runtime/local/launcher.js';
import type { NodeMessage } from '../../src/runtime/real/protocol.js';
import type { ReproCheck, ReproContext } from '../types.js';
import { dolceScenario, jain, runProbed } from './probe.js';

const MS = 1e6;
const FROM_NS = 0.5 * MS;
const TO_NS = 2 * MS;
const TIME_SCALE = 50_000;
const N = 4;
const SWITCH = 's1';
/** s1 port 8 leads to h9 (the star has h1..h9 on ports 0..8). */
const BOTTLENECK_PORT = 8;
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
  /** Bandit iterations summed over the senders' QPs (qpInspect `mabIter`). */
  mabIters: number;
}

export interface StartMeasure {
  utilisation: number;
  jain: number;
  banditUpdates: number;
  cnps: number;
  drops: number;
  retransmits: number;
  warnings: string[];
  wallMs: number;
}

const SCENARIO_OVERRIDES = [
  'defaults.nic.cc=dolce-rc',
  `workload[0].senders=h1..h${N}`,
  `timeScale=${TIME_SCALE}`,
  `duration=${(TO_NS + 0.2 * MS) / MS}ms`,
];
const SENDERS = Array.from({ length: N }, (_, i) => `h${i + 1}`);

let rtRun: Promise<StartMeasure> | null = null;

function realTimeStart(ctx: ReproContext): Promise<StartMeasure> {
  rtRun ??= (async () => {
    const scenario = dolceScenario('e2-incast.yaml', SCENARIO_OVERRIDES);
    const metrics = new Map<string, string>();
    const run = await LocalRun.create({
      scenario,
      runtime: 'local',
      outDir: join(ctx.outDir, 'rt'),
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
      const [sw, ...hosts] = await Promise.all([get(SWITCH), ...SENDERS.map(get)]);
      const after = now() ?? before;
      return {
        tNs: (before + after) / 2,
        bottleneckTx: promSum(sw, 'rocelab_port_tx_bytes_total', { port: String(BOTTLENECK_PORT) }),
        senderTx: hosts.map((t) => promSum(t, 'rocelab_port_tx_bytes_total', { port: '0' })),
        mabIters: hosts.reduce((x, t) => x + promSum(t, 'rocelab_qp_state', { var: 'mabIter' }), 0),
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
    const first = a;
    const r = out.results;
    return {
      utilisation:
        ((b.bottleneckTx - first.bottleneckTx) * 8e9) /
        (scenario.defaults.link.rateBps * (b.tNs - first.tNs)),
      jain: jain(b.senderTx.map((x, i) => x - first.senderTx[i])),
      banditUpdates: b.mabIters,
      cnps: r.hosts.reduce((x, h) => x + h.cnpRx, 0),
      drops: r.summary.drops,
      retransmits: r.hosts.reduce((x, h) => x + h.retransmits, 0),
      warnings: r.warnings.filter((w) => /keep up|no report|lag/.test(w)),
      wallMs: out.wallMs,
    };
  })();
  return rtRun;
}

function virtualStart(ctx: ReproContext): StartMeasure {
  const { out, windows, nics } = runProbed(
    dolceScenario('e2-incast.yaml', SCENARIO_OVERRIDES),
    {
      bottleneck: { switchName: SWITCH, port: BOTTLENECK_PORT },
      senders: SENDERS,
      windows: [{ fromNs: FROM_NS, toNs: TO_NS }],
    },
    { outDir: join(ctx.outDir, 'vt'), seed: ctx.seed },
  );
  const r = out.results;
  return {
    utilisation: windows[0].utilisation,
    jain: windows[0].jain,
    banditUpdates: SENDERS.reduce((x, h) => x + (nics.get(h)?.ccCounters().dolceRcUpdates ?? 0), 0),
    cnps: r.hosts.reduce((x, h) => x + h.cnpRx, 0),
    drops: r.summary.drops,
    retransmits: r.hosts.reduce((x, h) => x + h.retransmits, 0),
    warnings: [],
    wallMs: out.wallMs,
  };
}

export const AC7_RT: ReproCheck = {
  id: 'AC7-RT',
  title: 'Incast in real time vs virtual time (E2 start, N = 4, local runtime, S = 50 000)',
  paper: 'as AC7; Dolce-RC runs on commodity smart NICs in real time (§IV-B)',
  expected:
    "first 2 ms of E2 (N = 4) as OS processes: no loss or retransmission, Jain ≥ 0.95 and bottleneck utilisation within ± 0.10 of virtual time over [0.5, 2] ms, the bandit iterating (≥ half the virtual-time updates); the spec's S = 1000 over [10, 40] ms does not fit the test machine (see docs)",
  tier: 'paper',
  async run(ctx) {
    const rt = await realTimeStart(ctx);
    const vt = virtualStart(ctx);
    const lag = rt.warnings.length > 0 ? ` [${rt.warnings.length} keep-up warnings: ${rt.warnings[0]}]` : '';
    return {
      measured: `real time vs virtual: utilisation ${rt.utilisation.toFixed(3)} vs ${vt.utilisation.toFixed(3)}, Jain ${rt.jain.toFixed(4)} vs ${vt.jain.toFixed(4)}, bandit updates ${rt.banditUpdates} vs ${vt.banditUpdates}, CNPs ${rt.cnps} vs ${vt.cnps}, drops ${rt.drops}, retransmits ${rt.retransmits}${lag}; wall ${(rt.wallMs / 1000).toFixed(0)} s`,
      pass:
        rt.drops === 0 &&
        rt.retransmits === 0 &&
        rt.jain >= 0.95 &&
        Math.abs(rt.utilisation - vt.utilisation) <= 0.1 &&
        rt.banditUpdates > 0 &&
        rt.banditUpdates >= 0.5 * vt.banditUpdates,
      values: {
        rtUtil: rt.utilisation,
        vtUtil: vt.utilisation,
        rtJain: rt.jain,
        vtJain: vt.jain,
        rtUpdates: rt.banditUpdates,
        vtUpdates: vt.banditUpdates,
        rtCnps: rt.cnps,
        vtCnps: vt.cnps,
        rtDrops: rt.drops,
        rtRetransmits: rt.retransmits,
        keepUpWarnings: rt.warnings.length,
      },
    };
  },
};
