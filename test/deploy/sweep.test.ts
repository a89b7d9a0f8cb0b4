/**
 * `rocelab sweep`: points from a grid × seeds, a local pool, cluster tasks that run the point
 * their index variable names (and write the same results.json as the local sweep), the emitted
 * Indexed Job and sbatch script, collect, and one-line errors for bad sweep files.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { loadSweep, taskIndex } from '../../src/sweep/spec.js';
import { cli, ROOT } from './support.js';

const tmp = mkdtempSync(join(tmpdir(), 'rocelab-sweep-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const MINI = join(ROOT, 'deploy', 'scenarios', 'mini-testbed.yaml');

function sweepFile(name: string, body: string): string {
  const f = join(tmp, `${name}.yaml`);
  writeFileSync(f, body);
  return f;
}

describe('sweep files', () => {
  it('expands grid × seeds in a fixed order with base overrides first', () => {
    const f = sweepFile(
      'grid',
      `scenario: ${MINI}\nset: { duration: 1ms }\ngrid: { cc: [dcqcn, none], defaults.link.delay: [1us, 2us] }\nseeds: [3, 4]\n`,
    );
    const s = loadSweep(f);
    expect(s.points).toHaveLength(8);
    expect(s.points.map((p) => p.label).slice(0, 3)).toEqual([
      'cc=dcqcn seed=3 defaults.link.delay=1us',
      'cc=dcqcn seed=4 defaults.link.delay=1us',
      'cc=dcqcn seed=3 defaults.link.delay=2us',
    ]);
    expect(s.points[7]).toMatchObject({
      index: 7,
      cc: 'none',
      seed: 4,
      sets: ['duration=1ms', 'defaults.link.delay=2us'],
    });
    expect(new Set(s.points.map((p) => p.dir)).size).toBe(8);
  });

  it('takes the task index from ROCELAB_RUN_INDEX, else JOB_COMPLETION_INDEX, else SLURM_ARRAY_TASK_ID', () => {
    expect(
      taskIndex({ ROCELAB_RUN_INDEX: '2', JOB_COMPLETION_INDEX: '1', SLURM_ARRAY_TASK_ID: '0' }, 4),
    ).toBe(2);
    expect(taskIndex({ JOB_COMPLETION_INDEX: '1', SLURM_ARRAY_TASK_ID: '0' }, 4)).toBe(1);
    expect(taskIndex({ SLURM_ARRAY_TASK_ID: '3' }, 4)).toBe(3);
    expect(() => taskIndex({ SLURM_ARRAY_TASK_ID: '4' }, 4)).toThrow(/0…3/);
    expect(() => taskIndex({}, 4)).toThrow(/ROCELAB_RUN_INDEX/);
  });

  it('bad sweep files exit 2 with one line', async () => {
    const cases = {
      nofile: join(tmp, 'missing.yaml'),
      notyaml: sweepFile('notyaml', 'scenario: [unclosed\n'),
      unknownKey: sweepFile('unknownKey', `scenario: ${MINI}\ngrids: {}\n`),
      noScenario: sweepFile('noScenario', 'grid: { cc: [dcqcn] }\n'),
      missingScenario: sweepFile('missingScenario', 'scenario: nowhere.yaml\n'),
      badCc: sweepFile('badCc', `scenario: ${MINI}\ngrid: { cc: [dcqnc] }\n`),
      badSet: sweepFile('badSet', `scenario: ${MINI}\ngrid: { defaults.link.rate: [fast] }\n`),
      both: sweepFile('both', `scenario: ${MINI}\ngrid: { cc: [dcqcn] }\npoints: [ { cc: none } ]\n`),
      badSeeds: sweepFile('badSeeds', `scenario: ${MINI}\nseeds: -1\n`),
      badRuntime: sweepFile('badRuntime', `scenario: ${MINI}\nruntime: docker\n`),
    };
    for (const [what, f] of Object.entries(cases)) {
      const r = await cli(['sweep', f, '--out', join(tmp, `o-${what}`)]);
      expect(r.code, `${what}: ${r.stderr}`).toBe(2);
      expect(r.stderr.trim().split('\n'), what).toHaveLength(1);
      expect(r.stderr, what).toMatch(/^rocelab: /);
    }
    const f = sweepFile('ok', `scenario: ${MINI}\n`);
    for (const argv of [
      ['sweep', f, '--jobs', '0'],
      ['sweep', f, '--emit', 'argo'],
      ['sweep', f, '--task'],
      ['sweep', 'collect', join(tmp, 'nowhere')],
    ]) {
      const r = await cli(argv, tmp);
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('running a sweep', () => {
  it('runs every point on a local pool, collects one report, and a task with only the index variable writes the same results.json', async () => {
    const f = sweepFile(
      'run',
      `name: mini\nscenario: ${MINI}\nset: { duration: 600us }\ngrid: { cc: [dcqcn, none] }\nseeds: 2\n`,
    );
    const out = join(tmp, 'run-out');
    const r = await cli(['sweep', f, '--out', out, '--jobs', '2']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/4 points on 2 workers/);
    expect(r.stdout).toMatch(/mini: 4\/4 points with results/);
    const summary = JSON.parse(readFileSync(join(out, 'sweep-summary.json'), 'utf8'));
    expect(summary.points).toHaveLength(4);
    for (const p of summary.points) expect(p.summary, p.label).not.toBeNull();
    expect(existsSync(join(out, 'report.html'))).toBe(true);
    const compare = JSON.parse(readFileSync(join(out, 'compare.json'), 'utf8'));
    expect(JSON.stringify(compare)).toContain('cc=none seed=2');

    // A cluster task: a fresh process, only JOB_COMPLETION_INDEX set, its own output directory.
    const taskOut = join(tmp, 'task-out');
    const env = { PATH: process.env.PATH ?? '', JOB_COMPLETION_INDEX: '3' };
    const t = spawnSync(
      process.execPath,
      [join(ROOT, 'bin', 'rocelab.js'), 'sweep', f, '--task', '--out', taskOut],
      {
        env,
        encoding: 'utf8',
      },
    );
    expect(t.status, t.stderr).toBe(0);
    const dir = summary.points[3].dir;
    expect(readFileSync(join(taskOut, dir, 'results.json'), 'utf8')).toBe(
      readFileSync(join(out, dir, 'results.json'), 'utf8'),
    );
    // collect on a directory with one of four points: merges it, says which are missing, exit 1.
    const c = await cli(['sweep', 'collect', taskOut]);
    expect(c.code).toBe(1);
    expect(c.stdout).toMatch(/1\/4 points with results/);
    expect(c.stderr).toMatch(/3 points have no results.json/);

    // A point's results.json cut short, or not of this schema: refused by name (exit 2, one
    // line), not merged as if it were a run's.
    const pointFile = join(taskOut, dir, 'results.json');
    const good = readFileSync(pointFile, 'utf8');
    for (const [text, says] of [
      [good.slice(0, 200), /not a readable results\.json/],
      [
        JSON.stringify({ ...JSON.parse(good), summary: undefined }),
        /not a results\.json of this rocelab at summary/,
      ],
    ] as const) {
      writeFileSync(pointFile, text);
      const bad = await cli(['sweep', 'collect', taskOut]);
      expect(bad.code, bad.stderr).toBe(2);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
      expect(bad.stderr).toContain(pointFile);
      expect(bad.stderr).toMatch(says);
    }
    writeFileSync(pointFile, good);
    expect((await cli(['sweep', 'collect', taskOut])).code).toBe(1);
  });

  it('emits an Indexed Job that validates and an sbatch --array script', async () => {
    const f = sweepFile('emit', `name: emit\nscenario: ${MINI}\ngrid: { cc: [dcqcn, none] }\nseeds: 4\n`);
    const out = join(tmp, 'emit-out');
    const k = await cli([
      'sweep',
      f,
      '--emit',
      'k8s',
      '--out',
      out,
      '--jobs',
      '3',
      '--image',
      'reg.example/rocelab:2',
    ]);
    expect(k.code, k.stderr).toBe(0);
    const [jobDoc] = parseAllDocuments(readFileSync(join(out, 'k8s', 'job.yaml'), 'utf8')).map((d) =>
      d.toJS(),
    );
    expect(() => new Job(jobDoc).validate()).not.toThrow();
    expect(jobDoc.spec).toMatchObject({ completionMode: 'Indexed', completions: 8, parallelism: 3 });
    const c = jobDoc.spec.template.spec.containers[0];
    expect(c.image).toBe('reg.example/rocelab:2');
    expect(c.args).toEqual(['sweep', '/etc/rocelab-sweep/sweep.yaml', '--task', '--out', '/results']);
    expect(parseYaml(readFileSync(join(out, 'k8s', 'sweep.yaml'), 'utf8')).scenario).toBe('scenario.yaml');
    expect(readFileSync(join(out, 'k8s', 'scenario.yaml'), 'utf8')).toBe(readFileSync(MINI, 'utf8'));
    // The copied sweep file loads beside its scenario, with the same points.
    const copy = join(tmp, 'emit-copy');
    mkdirSync(copy);
    writeFileSync(join(copy, 'sweep.yaml'), readFileSync(join(out, 'k8s', 'sweep.yaml')));
    writeFileSync(join(copy, 'scenario.yaml'), readFileSync(join(out, 'k8s', 'scenario.yaml')));
    expect(loadSweep(join(copy, 'sweep.yaml')).points).toEqual(loadSweep(f).points.map((p) => ({ ...p })));

    const s = await cli(['sweep', f, '--emit', 'slurm', '--out', out, '--jobs', '2']);
    expect(s.code, s.stderr).toBe(0);
    const script = readFileSync(join(out, 'sweep.sbatch'), 'utf8');
    expect(script).toMatch(/^#SBATCH --array=0-7%2$/m);
    expect(script).toContain('--task --out');
    expect(spawnSync('bash', ['-n', join(out, 'sweep.sbatch')]).status).toBe(0);
    expect(existsSync(join(out, 'sweep.json'))).toBe(true);
  });
});
