/**
 * AC7 in real time (docs/algorithms/dolce-rc.md: "or S = 1000 real time"), as far as the test machine
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
 * Both arms ask the scenario for probe bins (docs/results.md "probes"): the bottleneck port's
 * and every sender's transmitted bytes and the senders' bandit iteration counts (qpInspect
 * `mabIter`), binned by each node on its emulated clock, so the real run is measured exactly
 * as the virtual one.
 */
import { localRun, observedRun } from '../observed-run.js';
import { keepUpWarnings, retransmits } from '../run-health.js';
import { inDir, type ReproCheck, type ReproContext } from '../types.js';
import { dolceScenario, windowOf, withProbes } from './probe.js';

const MS = 1e6;
const FROM_NS = 0.5 * MS;
const TO_NS = 2 * MS;
const TIME_SCALE = 50_000;
const N = 4;
/** s1 port 8 leads to h9 (the star has h1..h9 on ports 0..8). */
const BOTTLENECK = { node: 's1', port: 8 };

const SCENARIO_OVERRIDES = [
  'defaults.nic.cc=dolce-rc',
  `workload[0].senders=h1..h${N}`,
  `timeScale=${TIME_SCALE}`,
  `duration=${(TO_NS + 0.2 * MS) / MS}ms`,
];
const SENDERS = Array.from({ length: N }, (_, i) => `h${i + 1}`);

const BIN_NS = 50_000;

/** E2's start in `runtime`, measured from the run's probe bins over [FROM_NS, TO_NS). */
async function measuredStart(ctx: ReproContext, runtime: 'virtual' | 'local') {
  const scenario = dolceScenario('e2-incast.yaml', SCENARIO_OVERRIDES);
  const probed = withProbes(scenario, BIN_NS, BOTTLENECK, ['mabIter']);
  const out = await (runtime === 'local'
    ? localRun(probed, ctx, 'rt')
    : observedRun(probed, inDir(ctx, 'vt')).out);
  const r = out.results;
  const w = windowOf(r, SENDERS, FROM_NS, TO_NS, scenario.defaults.link.rateBps);
  return {
    utilisation: w.utilisation,
    jain: w.jain,
    // Bandit iterations of the senders' QPs by the window's end.
    banditUpdates: r.probes!.flows.reduce((x, f) => x + (f.senderState?.mabIter?.[w.endBin - 1] ?? 0), 0),
    cnps: r.hosts.reduce((x, h) => x + h.cnpRx, 0),
    drops: r.summary.drops,
    retransmits: retransmits(r),
    warnings: keepUpWarnings(out),
    wallMs: out.wallMs,
  };
}

export const AC7_RT: ReproCheck = {
  id: 'AC7-RT',
  title: 'Incast in real time vs virtual time (E2 start, N = 4, local runtime, S = 50 000)',
  paper: 'as AC7; Dolce-RC runs on commodity smart NICs in real time (§IV-B)',
  expected:
    "first 2 ms of E2 (N = 4) as OS processes: no loss or retransmission, Jain ≥ 0.95 and bottleneck utilisation within ± 0.10 of virtual time over [0.5, 2] ms, the bandit iterating (≥ half the virtual-time updates); the spec's S = 1000 over [10, 40] ms does not fit the test machine (see docs)",
  async run(ctx) {
    const rt = await measuredStart(ctx, 'local');
    const vt = await measuredStart(ctx, 'virtual');
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
