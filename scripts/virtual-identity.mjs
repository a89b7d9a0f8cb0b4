#!/usr/bin/env node
// Behaviour-preservation check for refactors and engine work: runs every shipped and paper
// scenario (scenarios/**/*.yaml) on the virtual runtime with its own algorithm and seed and
// prints one sha256 of results.json per scenario, as JSON, so two checkouts can be compared:
//
//   node scripts/virtual-identity.mjs --out /tmp/before.json        # on the old commit
//   node scripts/virtual-identity.mjs --out /tmp/after.json --against /tmp/before.json
//
// --jobs N runs N scenarios at once (default 2); --only SUBSTR keeps matching paths;
// --skip SUBSTR[,SUBSTR] drops them. Exit 1 when --against finds a difference. With --against,
// scenarios the earlier record does not have are not run (nothing to compare them with; the
// 1024-host fat tree alone takes many minutes): --all runs them too.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const jobs = Number(opt('--jobs') ?? 2);
const only = opt('--only');
const skip = opt('--skip');

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (name.endsWith('.yaml')) out.push(p);
  }
  return out;
}
let scenarios = walk(join(root, 'scenarios')).map((p) => relative(root, p));
if (only) scenarios = scenarios.filter((s) => s.includes(only));
if (skip) {
  const skipped = skip.split(',');
  scenarios = scenarios.filter((s) => !skipped.some((k) => s.includes(k)));
}

const againstFile = opt('--against');
if (againstFile && !args.includes('--all')) {
  const known = JSON.parse(readFileSync(againstFile, 'utf8'));
  const absent = scenarios.filter((s) => !(s in known));
  if (absent.length > 0) process.stderr.write(`not in ${againstFile}, not run: ${absent.join(', ')}\n`);
  scenarios = scenarios.filter((s) => s in known);
}

const work = mkdtempSync(join(tmpdir(), 'rocelab-identity-'));
function runOne(scenario) {
  const out = join(work, scenario.replace(/[/.]/g, '_'));
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [join(root, 'bin/rocelab.js'), 'run', scenario, '--runtime', 'virtual', '--out', out, '--json'],
      { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      const wallS = (Date.now() - started) / 1000;
      let sha = null;
      try {
        sha = createHash('sha256')
          .update(readFileSync(join(out, 'results.json')))
          .digest('hex');
      } catch {}
      process.stderr.write(
        `${scenario}: exit ${code}, ${wallS.toFixed(1)} s${sha ? '' : ` ${err.trim().split('\n').pop()}`}\n`,
      );
      resolve({ scenario, exit: code, sha });
    });
  });
}

const results = {};
const queue = [...scenarios];
await Promise.all(
  Array.from({ length: Math.max(1, jobs) }, async () => {
    while (queue.length > 0) {
      const s = queue.shift();
      const r = await runOne(s);
      results[r.scenario] = { exit: r.exit, sha: r.sha };
    }
  }),
);
rmSync(work, { recursive: true, force: true });
const sorted = Object.fromEntries(
  Object.keys(results)
    .sort()
    .map((k) => [k, results[k]]),
);
const text = `${JSON.stringify(sorted, null, 2)}\n`;
if (opt('--out')) writeFileSync(opt('--out'), text);
else process.stdout.write(text);

const against = opt('--against');
if (against) {
  const before = JSON.parse(readFileSync(against, 'utf8'));
  let diffs = 0;
  for (const [s, r] of Object.entries(sorted)) {
    const b = before[s];
    if (!b) continue;
    if (b.sha !== r.sha || b.exit !== r.exit) {
      diffs++;
      console.error(`DIFFERS ${s}: ${b.exit}/${b.sha?.slice(0, 12)} -> ${r.exit}/${r.sha?.slice(0, 12)}`);
    }
  }
  console.error(
    diffs === 0 ? `identical: ${Object.keys(sorted).length} scenarios` : `${diffs} scenario(s) differ`,
  );
  process.exit(diffs === 0 ? 0 : 1);
}
