#!/usr/bin/env node
/**
 * The UEC reference simulator's validation suite as data (docs/parity.md): reads the suite's
 * experiment plans (htsim/sim/datacenter/validate_*.txt, the format of its validate.py), and
 *   --recorded   parses the results the repository recorded (validate_outputs/*.out);
 *   --run        runs each experiment with the built htsim_uec (niced), timing it.
 * Both reduce a run the way validate.py does: tail FCT = the last "finished at" time, spread =
 * last ÷ first, connection count, and the closing counters (New, Rtx, RTS, Bounced, ACKs, NACKs,
 * Pulls). Prints JSON on stdout. The reference is never needed by `npm run parity`: this script
 * only (re)produces parity/uet/reference.json's recorded and measured values.
 *
 *   node scripts/uet-reference.mjs --dir /work/ref/uet-htsim/htsim/sim/datacenter --recorded
 *   node scripts/uet-reference.mjs --dir … --run [--plan parity/uet/cut-suite.txt] [--only SUBSTR]
 *   node scripts/uet-reference.mjs --assemble RECORDED.json MEASURED.json CUT.json > parity/uet/reference.json
 *
 * --assemble joins the three outputs into the harness's data file: one entry per experiment with
 * a stable id (`<suite>/<nn>-<slug>`), the plan (matrix, options, the suite's targets), the
 * recorded and the measured reduction; the cut cases (k = 8) as entries of their own that name
 * the 1024-node experiment they stand for.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';

const SUITE = [
  'validate_uec_sender.txt',
  'validate_uec_rcv.txt',
  'validate_uec_both.txt',
  'validate_load_balancing_snd.txt',
  'validate_load_balancing_rcv.txt',
  'validate_load_balancing_failed_snd.txt',
  'validate_load_balancing_failed_rcv.txt',
  'validate_uec_connreuse.txt',
];

function parseArgs(argv) {
  const o = { dir: null, mode: null, plans: [], only: null, inputs: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--assemble') {
      o.mode = 'assemble';
      o.inputs = argv.slice(i + 1, i + 4);
      i += 3;
    } else if (a === '--dir') o.dir = argv[++i];
    else if (a === '--recorded') o.mode = 'recorded';
    else if (a === '--run') o.mode = 'run';
    else if (a === '--plan') o.plans.push(argv[++i]);
    else if (a === '--only') o.only = argv[++i];
    else throw new Error(`unknown argument ${a}`);
  }
  if (o.mode === 'assemble') return o;
  if (o.dir === null || o.mode === null)
    throw new Error('usage: --dir DATACENTER_DIR (--recorded | --run) [--plan FILE]… [--only SUBSTR]');
  return o;
}

/** validate.py's reading of a plan: a matrix line, then `!Key value` lines. */
export function parsePlan(text, suite) {
  const lines = text.split('\n');
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const matrix = lines[i].trim();
    i++;
    if (matrix === '' || matrix.startsWith('#') || matrix.startsWith('!')) continue;
    const e = {
      suite,
      name: '',
      matrix,
      binary: './htsim_eqds',
      params: [],
      targets: { tailFctUs: 0, flowFctUs: {} },
    };
    while (i < lines.length && lines[i].startsWith('!')) {
      const p = lines[i].trim();
      i++;
      const rest = p.split(' ').slice(1).join(' ').trim();
      if (p.includes('Binary')) e.binary = rest;
      else if (p.includes('Param')) e.params.push(...rest.split(/\s+/));
      else if (p.includes('tailFCT')) e.targets.tailFctUs = Number(rest);
      else if (p.includes('FCT')) {
        const [, flow, us] = p.split(/\s+/);
        e.targets.flowFctUs[flow] = Number(us);
      } else if (p.includes('Experiment')) e.name = rest;
    }
    out.push(e);
  }
  return out;
}

/** validate.py's reduction of one run's output. */
export function reduceOutput(text) {
  let first = 0;
  let tail = 0;
  let connections = 0;
  const flows = {};
  let summary = null;
  for (const line of text.split('\n')) {
    if (line.includes('finished')) {
      const items = line.trim().split(/\s+/);
      const t = Number(items[8]);
      if (items[9] === 'total' && items[10] === 'messages') connections += Number(items[11]);
      else connections += 1;
      tail = t;
      if (first === 0) first = t;
      flows[items[1]] = t;
    } else if (line.includes('New:') && line.includes('Rtx:')) summary = line.trim();
  }
  const counters = {};
  if (summary !== null) {
    const m = summary.match(/(\w+): (\d+)/g) ?? [];
    for (const kv of m) {
      const [k, v] = kv.split(': ');
      counters[k] = Number(v);
    }
  }
  return {
    tailFctUs: tail,
    firstFctUs: first,
    spread: first > 0 ? tail / first : null,
    connections,
    newPkts: counters.New ?? null,
    rtx: counters.Rtx ?? null,
    rts: counters.RTS ?? null,
    bounced: counters.Bounced ?? null,
    acks: counters.ACKs ?? null,
    nacks: counters.NACKs ?? null,
    pulls: counters.Pulls ?? null,
    flows,
  };
}

/** The recorded .out file: the same reduction per "Experiment:" block. */
function parseRecorded(text) {
  const blocks = text.split(/\n(?=Experiment: )/).filter((b) => b.startsWith('Experiment: '));
  return blocks.map((b) => {
    const name = b.split('\n')[0].slice('Experiment: '.length).trim();
    const cmd = (b.match(/^Running (.*)$/m) ?? [])[1]?.trim() ?? '';
    const tail = b.match(/Tail FCT ([\d.]+) us/);
    const spread = b.match(/FCT Spread ([\d.]+) -> ([\d.]+) ratio ([\d.e+-]+)/);
    const conn = b.match(/Connection count (\d+)/) ?? b.match(/only\s+(\d+) finished/);
    const flowFct = {};
    for (const m of b.matchAll(/FCT ([\d.]+) us for flow\s+(\S+)/g)) flowFct[m[2]] = Number(m[1]);
    const red = reduceOutput(
      b
        .split('\n')
        .find((l) => l.startsWith('Summary:'))
        ?.slice('Summary: '.length) ?? '',
    );
    return {
      name,
      cmd,
      tailFctUs: tail ? Number(tail[1]) : null,
      firstFctUs: spread ? Number(spread[1]) : null,
      spread: spread ? Number(spread[3]) : null,
      connections: conn ? Number(conn[1]) : null,
      newPkts: red.newPkts,
      rtx: red.rtx,
      rts: red.rts,
      bounced: red.bounced,
      acks: red.acks,
      nacks: red.nacks,
      pulls: red.pulls,
      flows: flowFct,
    };
  });
}

/** A plan outside the reference's folder names its matrices and topologies relative to itself. */
function localPaths(e, planDir) {
  const params = e.params.map((v, k) => (e.params[k - 1] === '-topo' ? resolve(planDir, v) : v));
  return { ...e, matrix: resolve(planDir, e.matrix), params };
}

function runOne(dir, e) {
  const args = ['-f', '%e %U %S', 'nice', '-n', '10', resolve(dir, e.binary), '-tm', e.matrix, ...e.params];
  const r = spawnSync('/usr/bin/time', args, { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 30 });
  const timeLine = r.stderr.trim().split('\n').pop() ?? '';
  const [wallS, userS, sysS] = timeLine.split(' ').map(Number);
  if (r.status !== 0)
    return { error: `exit ${r.status}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}` };
  const red = reduceOutput(r.stdout);
  const flowFct = {};
  for (const f of Object.keys(e.targets.flowFctUs)) if (f in red.flows) flowFct[f] = red.flows[f];
  const times = Object.values(red.flows).sort((a, b) => a - b);
  return {
    ...red,
    flows: flowFct,
    medianFctUs: times.length ? times[Math.floor(times.length / 2)] : null,
    wallS,
    cpuS: Math.round((userS + sysS) * 100) / 100,
  };
}

const SHORT = {
  'validate_uec_sender.txt': 'sender',
  'validate_uec_rcv.txt': 'receiver',
  'validate_uec_both.txt': 'both',
  'validate_load_balancing_snd.txt': 'lb-sender',
  'validate_load_balancing_rcv.txt': 'lb-receiver',
  'validate_load_balancing_failed_snd.txt': 'lb-failed-sender',
  'validate_load_balancing_failed_rcv.txt': 'lb-failed-receiver',
  'validate_uec_connreuse.txt': 'connreuse',
};

const slug = (s) =>
  s
    .toLowerCase()
    .replace(/\(1024 nodes\)|1024 nodes|\[cut of .*\]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

function reduced(r) {
  if (r === null || r === undefined || r.error !== undefined) return r ?? null;
  const { flows, cmd, name, ...rest } = r;
  return { ...rest, flowFctUs: flows };
}

/** The three runs as one data file (see the header). */
function assemble([recordedFile, measuredFile, cutFile]) {
  const read = (f) => JSON.parse(readFileSync(f, 'utf8'));
  const recorded = read(recordedFile);
  const measured = read(measuredFile);
  const cut = read(cutFile);
  const copies = resolve(import.meta.dirname, '..', 'parity', 'uet', 'matrices');
  const nodesOf = (matrix) =>
    Number((readFileSync(resolve(copies, basename(matrix)), 'utf8').match(/Nodes\s+(\d+)/) ?? [])[1]);
  const counters = new Map();
  const id = (suite, name) => {
    const s = SHORT[suite] ?? suite;
    const n = (counters.get(s) ?? 0) + 1;
    counters.set(s, n);
    return `${s}/${String(n).padStart(2, '0')}-${slug(name)}`;
  };
  // Runs not measured (yet) get measured: null; a measured run must match its plan entry.
  const experiments = recorded.map((e, k) => {
    const m = measured[k];
    if (m !== undefined && (m.name !== e.name || m.suite !== e.suite))
      throw new Error(`measured run ${k} does not match ${e.name}`);
    return {
      id: id(e.suite, e.name),
      suite: e.suite,
      name: e.name,
      matrix: basename(e.matrix),
      nodes: nodesOf(e.matrix),
      params: e.params,
      targets: e.targets,
      recorded: reduced(e.recorded),
      measured: reduced(m?.measured),
      cutOf: null,
    };
  });
  // A cut stands for the 1024-node experiment of the same suite at the same position.
  const originals = experiments.filter((e) => e.nodes === 1024);
  const bySuite = new Map();
  for (const e of originals) bySuite.set(e.suite, [...(bySuite.get(e.suite) ?? []), e]);
  const cuts = cut.map((c) => {
    const suite = c.name.match(/\[cut of (.*)\]/)[1];
    const of = bySuite.get(suite).shift();
    return {
      id: `${of.id}@k8`,
      suite,
      name: c.name,
      matrix: basename(c.matrix),
      nodes: 128,
      params: c.params,
      targets: { tailFctUs: 0, flowFctUs: {} },
      recorded: null,
      measured: reduced(c.measured),
      cutOf: of.id,
    };
  });
  return {
    source: {
      repo: 'ultraethernet/uet-htsim',
      commit: '40ccb0526bb6297eeb22ab33f9934fb35278dbaf',
      plans: 'htsim/sim/datacenter/validate_*.txt (the files commit_check.sh runs)',
      recorded: 'htsim/sim/datacenter/validate_outputs/*.out',
      matrices: 'htsim/sim/datacenter/connection_matrices (copies in parity/uet/matrices)',
      license: 'BSD-2-Clause (parity/uet/NOTICE.md)',
    },
    measured: {
      how: 'scripts/uet-reference.mjs --run: htsim_uec built with cmake (Release, -O3), run under nice -n 10; wallS/cpuS from /usr/bin/time',
      machine:
        "2 cores shared with other work: wall times are upper bounds, cpuS is the simulator's own time",
      cutPlan: 'parity/uet/cut-suite.txt',
    },
    reduction:
      "validate.py's: tailFctUs = the last 'finished at' time, firstFctUs = the first, spread = tail/first; counters from the closing New/Rtx/RTS/Bounced/ACKs/NACKs/Pulls line",
    experiments: [...experiments, ...cuts],
  };
}

const o = parseArgs(process.argv.slice(2));
if (o.mode === 'assemble') {
  process.stdout.write(`${JSON.stringify(assemble(o.inputs), null, 1)}\n`);
  process.exit(0);
}
const plans = o.plans.length > 0 ? o.plans : SUITE.map((f) => resolve(o.dir, f));
const out = [];
for (const plan of plans) {
  const suite = basename(plan);
  const experiments = parsePlan(readFileSync(plan, 'utf8'), suite).filter(
    (e) => o.only === null || `${suite} ${e.name}`.includes(o.only),
  );
  if (o.mode === 'recorded') {
    const outFile = resolve(o.dir, 'validate_outputs', suite.replace(/\.txt$/, '.out'));
    const rec = existsSync(outFile) ? parseRecorded(readFileSync(outFile, 'utf8')) : [];
    experiments.forEach((e, k) => {
      out.push({ ...e, recorded: rec[k] ?? null });
    });
  } else {
    const planDir = dirname(resolve(plan));
    const local = planDir !== resolve(o.dir);
    for (const e of experiments) {
      process.stderr.write(`${suite}: ${e.name} … `);
      const measured = runOne(o.dir, local ? localPaths(e, planDir) : e);
      process.stderr.write(`${measured.error ?? `${measured.tailFctUs} us, ${measured.wallS} s`}\n`);
      out.push({ ...e, measured });
    }
  }
}
process.stdout.write(`${JSON.stringify(out, null, 1)}\n`);
