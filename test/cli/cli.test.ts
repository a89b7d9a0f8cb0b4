import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliDeps, type CliIo, type CliRegistry, main } from '../../src/cli/app.js';
import type { RunOptions } from '../../src/cli/run-options.js';
import { ConfigError } from '../../src/config/errors.js';

const ROOT = join(import.meta.dirname, '..', '..');

const GOOD = `name: tiny
duration: 1ms
topology: { kind: star, hosts: 3 }
workload:
  - { kind: incast, senders: [h1, h2], receiver: h3, size: 64KB }
`;

function tmp(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-cli-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const fakeRegistry: CliRegistry = {
  listAlgorithms: () => [
    {
      name: 'dcqcn',
      summary: 'DCQCN',
      profiles: ['paper', 'hpcc-sim'],
      defaultProfile: 'hpcc-sim',
      aliases: { rai: 'rateAiBps' },
      params: [
        { name: 'rateAiBps', description: 'additive increase', default: 40e6 },
        { name: 'alphaPeriodNs', description: 'alpha timer', default: 55_000 },
        { name: 'alphaGain', description: 'g', default: 1 / 256 },
      ],
    },
    { name: 'none', summary: 'no congestion control', params: [] },
  ],
  resolveParams: (name, overrides) => {
    for (const k of Object.keys(overrides))
      if (!(name === 'dcqcn' && (k === 'rai' || k === 'rateAiBps')))
        throw new Error(`cc ${name}: unknown parameter "${k}" (known: rateAiBps)`);
    return { ...overrides };
  },
};

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  calls: RunOptions[];
}

async function cli(
  argv: string[],
  opts: {
    cwd?: string;
    env?: Record<string, string>;
    deps?: Partial<CliDeps>;
    runner?: (o: RunOptions) => unknown;
  } = {},
): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const calls: RunOptions[] = [];
  const deps: Partial<CliDeps> = {
    registry: fakeRegistry,
    runScenario: (o: RunOptions) => {
      calls.push(o);
      return opts.runner?.(o);
    },
    ...opts.deps,
  };
  const io: CliIo = {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: opts.env ?? {},
    cwd: opts.cwd ?? ROOT,
    deps,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr, calls };
}

/** Bad input: exit 2, exactly this one line on stderr, nothing on stdout. */
async function expectBadInput(argv: string[], line: string, opts: Parameters<typeof cli>[1] = {}) {
  const r = await cli(argv, opts);
  expect(r.stderr).toBe(`${line}\n`);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.calls).toEqual([]);
}

describe('help and version', () => {
  it('--help prints usage with every command', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    for (const c of [
      'rocelab run',
      'rocelab compare',
      'rocelab list',
      'rocelab node',
      '--runtime virtual|local|netns',
    ])
      expect(r.stdout).toContain(c);
    expect(r.stderr).toBe('');
    expect((await cli(['-h'])).stdout).toBe(r.stdout);
    expect((await cli(['help'])).stdout).toBe(r.stdout);
  });

  it('command help', async () => {
    const r = await cli(['run', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: rocelab run <scenario.yaml>');
    expect(r.stdout).toContain('--pcap');
    const c = await cli(['help', 'compare']);
    expect(c.stdout).toContain('--cc a,b');
    expect(c.stdout).not.toContain('--pcap');
  });

  it('--version prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = await cli(['--version']);
    expect(r).toMatchObject({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });
});

describe('list', () => {
  it('shows algorithms with parameter defaults in units, and shipped scenarios', async () => {
    const r = await cli(['list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('dcqcn — DCQCN');
    expect(r.stdout).toContain('profiles: paper, hpcc-sim (default)');
    expect(r.stdout).toMatch(/rateAiBps \(rai\) +40Mbps +additive increase/);
    expect(r.stdout).toMatch(/alphaPeriodNs +55us +alpha timer/);
    expect(r.stdout).toMatch(/alphaGain +0\.00390625 +g/);
    expect(r.stdout).toContain('Scenarios:');
  });

  it('--json', async () => {
    const r = await cli(['list', '--json']);
    const j = JSON.parse(r.stdout) as {
      algorithms: Array<{ name: string }>;
      scenarios: Array<{ file: string }>;
    };
    expect(j.algorithms.map((a) => a.name)).toEqual(['dcqcn', 'none']);
    expect(Array.isArray(j.scenarios)).toBe(true);
  });
});

describe('run', () => {
  it('hands the validated scenario and flags to the runner', async () => {
    const dir = tmp({ 'tiny.yaml': GOOD });
    const r = await cli(
      [
        'run',
        'tiny.yaml',
        '--runtime',
        'virtual',
        '--cc',
        'dcqcn',
        '--seed',
        '42',
        '--set',
        'workload[0].size=1MB',
        '--set',
        'cc.dcqcn.rai=10Mbps',
        '--pcap',
        '--out',
        'o',
      ],
      { cwd: dir },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.calls.length).toBe(1);
    const o = r.calls[0];
    expect(o).toMatchObject({
      runtime: 'virtual',
      cc: 'dcqcn',
      seed: 42,
      outDir: join(dir, 'o'),
      pcap: true,
      json: false,
    });
    expect(o.scenario.seed).toBe(42);
    expect(o.scenario.workload[0]).toMatchObject({ sizeBytes: 1e6 });
    expect(o.scenario.cc.dcqcn.params).toEqual({ rai: '10Mbps' });
  });

  it('defaults: virtual runtime, results/<name>, ROCELAB_SET applied before --set', async () => {
    const dir = tmp({ 'tiny.yaml': GOOD });
    const r = await cli(['run', 'tiny.yaml', '--json', '--set', 'seed=9'], {
      cwd: dir,
      env: { ROCELAB_SET: 'seed=5; duration=2ms' },
    });
    expect(r.code).toBe(0);
    const o = r.calls[0];
    expect(o).toMatchObject({
      runtime: 'virtual',
      outDir: join(dir, 'results', 'tiny'),
      pcap: false,
      json: true,
    });
    expect(o.scenario.seed).toBe(9);
    expect(o.scenario.durationNs).toBe(2e6);
  });

  it('bad input found by the runner exits 2 with its line', async () => {
    const dir = tmp({ 'tiny.yaml': GOOD });
    const r = await cli(['run', 'tiny.yaml', '--runtime', 'local'], {
      cwd: dir,
      runner: () => {
        throw new ConfigError('runtime', 'the local runtime is not available in this build (use virtual)');
      },
    });
    expect(r).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'rocelab: tiny.yaml: runtime: the local runtime is not available in this build (use virtual)\n',
    });
    const t = await cli(['run', 'tiny.yaml'], {
      cwd: dir,
      runner: () => {
        const e = new Error('host h1 is not connected');
        e.name = 'TopologyError';
        throw e;
      },
    });
    expect(t).toMatchObject({ code: 2, stderr: 'rocelab: host h1 is not connected\n' });
  });

  it('an internal error exits 1 with one line and a debug hint; ROCELAB_DEBUG=1 adds the stack', async () => {
    const dir = tmp({ 'tiny.yaml': GOOD });
    const boom = () => {
      throw new TypeError('cannot read properties of undefined\n    at somewhere');
    };
    const r = await cli(['run', 'tiny.yaml'], { cwd: dir, runner: boom });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'rocelab: internal error: cannot read properties of undefined (rerun with ROCELAB_DEBUG=1 for the stack trace)\n',
    );
    const d = await cli(['run', 'tiny.yaml'], { cwd: dir, runner: boom, env: { ROCELAB_DEBUG: '1' } });
    expect(d.code).toBe(1);
    expect(d.stderr).toContain('TypeError: cannot read properties of undefined');
    expect(d.stderr.split('\n').length).toBeGreaterThan(3);
  });
});

describe('compare', () => {
  it('runs once per algorithm into OUT/<cc> and tabulates the summaries', async () => {
    const dir = tmp({ 'tiny.yaml': GOOD });
    const r = await cli(['compare', 'tiny.yaml', '--cc', 'dcqcn,none', '--out', 'cmp'], {
      cwd: dir,
      runner: (o) => ({
        results: {
          summary: {
            flowsTotal: 2,
            flowsCompleted: 2,
            slowdownP50: o.cc === 'none' ? 1.5 : 1.25,
            slowdownP99: 2,
            maxQueueBytes: o.cc === 'none' ? 16_030_900 : 2_048_600,
            pfcPauseTx: o.cc === 'none' ? 1980 : 0,
            drops: 0,
            goodputBps: 79.37e9,
            jain: 0.993,
          },
        },
      }),
    });
    expect(r.code).toBe(0);
    expect(r.calls.map((c) => [c.cc, c.outDir, c.print])).toEqual([
      ['dcqcn', join(dir, 'cmp', 'dcqcn'), null],
      ['none', join(dir, 'cmp', 'none'), null],
    ]);
    expect(r.stdout).toMatch(/ +dcqcn +none\n/);
    expect(r.stdout).toMatch(/slowdown p50 +1\.25 +1\.50/);
    expect(r.stdout).toMatch(/max queue +2\.05 MB +16 MB/);
    expect(r.stdout).toMatch(/PFC pauses sent +0 +1980/);
    expect(r.stdout).toMatch(/goodput +79\.4 Gbit\/s +79\.4 Gbit\/s/);
  });
});

describe('compare reads FILE and the run options as run does', () => {
  it('defaults: virtual runtime, results/<name>/<cc>, ROCELAB_SET before --set, --seed replaces the seed', async () => {
    const dir = tmp({ 'tiny.yaml': GOOD });
    const r = await cli(['compare', 'tiny.yaml', '--cc', 'dcqcn,none', '--json', '--seed', '11'], {
      cwd: dir,
      env: { ROCELAB_SET: 'seed=5; duration=2ms' },
    });
    expect(r.code).toBe(0);
    expect(
      r.calls.map((c) => [c.runtime, c.outDir, c.seed, c.json, c.scenario.seed, c.scenario.durationNs]),
    ).toEqual([
      ['virtual', join(dir, 'results', 'tiny', 'dcqcn'), 11, true, 11, 2e6],
      ['virtual', join(dir, 'results', 'tiny', 'none'), 11, true, 11, 2e6],
    ]);
  });

  it('--help prints its usage and runs nothing', async () => {
    const r = await cli(['compare', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: rocelab compare <scenario.yaml> --cc a,b/);
    expect(r.calls).toEqual([]);
  });
});

describe('compare --set-for', () => {
  it("changes only that algorithm's scenario, and says so", async () => {
    const dir = tmp({ 'tiny.yaml': GOOD });
    const r = await cli(
      [
        'compare',
        'tiny.yaml',
        '--cc',
        'dcqcn,none',
        '--set',
        'duration=3ms',
        '--set-for',
        'none:duration=5ms',
        '--set-for',
        'none:seed=7',
        '--out',
        'cmp',
      ],
      { cwd: dir },
    );
    expect(r.code).toBe(0);
    expect(r.calls.map((c) => [c.cc, c.scenario.durationNs, c.scenario.seed])).toEqual([
      ['dcqcn', 3_000_000, 1],
      ['none', 5_000_000, 7],
    ]);
    expect(r.stdout).toContain('none ran with: duration=5ms, seed=7\n');
  });

  it('is checked before any run starts', async () => {
    const dir = tmp({ 'tiny.yaml': GOOD });
    const r = await cli(['compare', 'tiny.yaml', '--cc', 'dcqcn,none', '--set-for', 'none:duration=-1ms'], {
      cwd: dir,
    });
    expect(r.code).toBe(2);
    expect(r.calls).toEqual([]);
  });
});

describe('compare named variants', () => {
  const VARIANTS = `${GOOD}variants:
  fast: [defaults.nic.cc=none, duration=3ms]
  slow: ["defaults.nic.cc=dcqcn"]
`;

  it("runs the scenario's variants by name, each with its overrides, and says so", async () => {
    const dir = tmp({ 'v.yaml': VARIANTS });
    const r = await cli(['compare', 'v.yaml', '--out', 'cmp', '--variant', 'slow:seed=5'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(
      r.calls.map((c) => [
        c.cc,
        c.scenario.defaults.nic.cc,
        c.scenario.durationNs,
        c.scenario.seed,
        c.outDir,
      ]),
    ).toEqual([
      [undefined, 'none', 3_000_000, 1, join(dir, 'cmp', 'fast')],
      [undefined, 'dcqcn', 1_000_000, 5, join(dir, 'cmp', 'slow')],
    ]);
    expect(r.stdout).toContain('fast ran with: defaults.nic.cc=none, duration=3ms\n');
    expect(r.stdout).toContain('slow ran with: defaults.nic.cc=dcqcn, seed=5\n');
  });

  it('--variants picks and orders them; --variant defines new ones; --set-for adds to one', async () => {
    const dir = tmp({ 'v.yaml': VARIANTS });
    const r = await cli(
      [
        'compare',
        'v.yaml',
        '--variants',
        'slow,extra',
        '--variant',
        'extra:defaults.nic.cc=none',
        '--set-for',
        'extra:seed=9',
      ],
      { cwd: dir },
    );
    expect(r.code).toBe(0);
    expect(r.calls.map((c) => [c.scenario.defaults.nic.cc, c.scenario.seed])).toEqual([
      ['dcqcn', 1],
      ['none', 9],
    ]);
  });

  it('refuses unknown variants, mixing with --cc and bad overrides, before any run', async () => {
    const dir = tmp({ 'v.yaml': VARIANTS, 'bad.yaml': `${GOOD}variants:\n  a: [nokey]\n  b: [seed=2]\n` });
    const one = async (args: string[]) => {
      const r = await cli(args, { cwd: dir });
      expect(r.code).toBe(2);
      expect(r.calls).toEqual([]);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      return r.stderr.trim();
    };
    expect(await one(['compare', 'v.yaml', '--variants', 'fast,nope'])).toBe(
      'rocelab: --variants: no variant "nope" (known: fast, slow)',
    );
    expect(await one(['compare', 'v.yaml', '--cc', 'dcqcn,none', '--variants', 'fast,slow'])).toMatch(
      /use one or the other/,
    );
    expect(await one(['compare', 'bad.yaml'])).toMatch(
      /^rocelab: bad.yaml(:\d+)?: variants\.a\[0\]: expects key=value, got "nokey"$/,
    );
    expect(await one(['compare', 'v.yaml', '--variant', 'fast:defaults.nic.cc=nosuch'])).toMatch(
      /unknown algorithm "nosuch"/,
    );
  });
});

describe('bad input: exit 2 with one line', () => {
  const dir = tmp({
    'tiny.yaml': GOOD,
    'bad.yaml':
      'topology: { kind: star, hosts: 3 }\nworkload:\n  - { kind: incast, senders: [h1], receiver: h3, size: -5 }\n',
    'ring.yaml': 'topology: { kind: ring }\n',
    'broken.yaml': 'topology: { kind: star, hosts: 3\n',
  });
  const cases: Array<[string[], string]> = [
    [[], 'rocelab: no command given (try rocelab --help)'],
    [
      ['frobnicate'],
      'rocelab: unknown command "frobnicate"; commands: run, compare, reproduce, list, node, deploy, sweep, help',
    ],
    [
      ['rnu', 'tiny.yaml'],
      'rocelab: unknown command "rnu" (did you mean run?); commands: run, compare, reproduce, list, node, deploy, sweep, help',
    ],
    [['--frob'], 'rocelab: unknown option --frob (see rocelab --help)'],
    [
      ['run', 'tiny.yaml', '--sed', '1'],
      'rocelab: unknown option --sed for run (did you mean --set?) (see rocelab run --help)',
    ],
    [
      ['compare', 'tiny.yaml', '--cc', 'a,b', '--pcap'],
      'rocelab: unknown option --pcap for compare (see rocelab compare --help)',
    ],
    [
      ['run', 'tiny.yaml', '--keep-logs'],
      'rocelab: --keep-logs needs a real runtime (--runtime local or netns): virtual time has no node processes',
    ],
    [['run'], 'rocelab: run needs a scenario file (rocelab run FILE)'],
    [['run', 'tiny.yaml', 'extra'], 'rocelab: unexpected argument "extra" for run (see rocelab run --help)'],
    [['run', 'missing.yaml'], 'rocelab: missing.yaml: file not found'],
    [['compare'], 'rocelab: compare needs a scenario file (rocelab compare FILE)'],
    [
      ['compare', 'tiny.yaml', 'extra', '--cc', 'dcqcn,none'],
      'rocelab: unexpected argument "extra" for compare (see rocelab compare --help)',
    ],
    [['compare', 'missing.yaml', '--cc', 'dcqcn,none'], 'rocelab: missing.yaml: file not found'],
    [
      ['run', 'bad.yaml'],
      'rocelab: bad.yaml:3: workload[0].size: expected a flow size like 64KB or inf, got -5',
    ],
    [
      ['run', 'ring.yaml'],
      'rocelab: ring.yaml:1: topology.kind: expected one of star|dumbbell|leafspine|fattree|explicit, got "ring"',
    ],
    [
      ['run', 'broken.yaml'],
      'rocelab: broken.yaml: line 2, column 1: malformed YAML: Flow map in block collection must be sufficiently indented and end with a }',
    ],
    [
      ['run', 'tiny.yaml', '--runtime', 'docker'],
      'rocelab: unknown runtime "docker" (expected virtual|local|netns)',
    ],
    [
      ['run', 'tiny.yaml', '--runtime', 'locl'],
      'rocelab: unknown runtime "locl" (expected virtual|local|netns; did you mean local?)',
    ],
    [
      ['run', 'tiny.yaml', '--seed', 'abc'],
      'rocelab: --seed expects an integer in [0, 4294967295], got "abc"',
    ],
    [
      ['compare', 'tiny.yaml', '--cc', 'dcqcn,none', '--runtime', 'locl'],
      'rocelab: unknown runtime "locl" (expected virtual|local|netns; did you mean local?)',
    ],
    [
      ['compare', 'tiny.yaml', '--cc', 'dcqcn,none', '--seed', 'x1'],
      'rocelab: --seed expects an integer in [0, 4294967295], got "x1"',
    ],
    [
      ['run', 'tiny.yaml', '--seed', '1.5'],
      'rocelab: --seed expects an integer in [0, 4294967295], got "1.5"',
    ],
    [['run', 'tiny.yaml', '--seed'], 'rocelab: --seed needs a value'],
    [['run', 'tiny.yaml', '--json=yes'], 'rocelab: --json does not take a value'],
    [
      ['run', 'tiny.yaml', '--cc', 'dcqnc'],
      'rocelab: --cc: unknown algorithm "dcqnc" (did you mean dcqcn? known: dcqcn, none)',
    ],
    [
      ['run', 'tiny.yaml', '--cc', 'dcqcn,none'],
      'rocelab: --cc expects one algorithm name, got "dcqcn,none"',
    ],
    [['run', 'tiny.yaml', '--set', 'seed'], 'rocelab: tiny.yaml: --set expects key=value, got "seed"'],
    [
      ['run', 'tiny.yaml', '--set', 'defaults.switch.bufer=1MB'],
      'rocelab: tiny.yaml: defaults.switch.bufer: unknown key (did you mean buffer?)',
    ],
    [
      ['run', 'tiny.yaml', '--set', 'cc.dcqcn.raii=1'],
      'rocelab: tiny.yaml: cc.dcqcn: unknown parameter "raii" (known: rateAiBps)',
    ],
    [
      ['run', 'tiny.yaml', '--set', 'defaults.nic.cc=hpcc'],
      'rocelab: tiny.yaml: defaults.nic.cc: unknown algorithm "hpcc" (known: dcqcn, none)',
    ],
    [
      ['compare', 'tiny.yaml'],
      "rocelab: compare needs --cc with at least two algorithms (e.g. --cc dcqcn,hpcc) or at least two variants (the scenario's `variants`, --variant)",
    ],
    [['compare', 'tiny.yaml', '--cc', 'dcqcn,dcqcn'], 'rocelab: --cc lists dcqcn twice'],
    [
      ['compare', 'tiny.yaml', '--cc', 'dcqcn,none', '--set-for', 'dcqcn=duration=2ms'],
      'rocelab: --set-for expects NAME:key=value, got "dcqcn=duration=2ms"',
    ],
    [
      ['compare', 'tiny.yaml', '--cc', 'dcqcn,none', '--set-for', 'hpcc:duration=2ms'],
      'rocelab: --set-for hpcc: hpcc is not one of the compared algorithms (--cc dcqcn,none)',
    ],
    [
      ['compare', 'tiny.yaml', '--cc', 'dcqcn,none', '--set-for', 'none:cc.dcqcn.raii=1'],
      'rocelab: tiny.yaml: cc.dcqcn: unknown parameter "raii" (known: rateAiBps)',
    ],
    [['list', 'x'], 'rocelab: unexpected argument "x" for list (see rocelab list --help)'],
    [
      ['reproduce', 'dcqcn-plus', '--check', 'A1,A77'],
      'rocelab: --check: no check "A77" (did you mean A7?); known: A1, A2, A3, A4, A5, A6, A7',
    ],
    [['reproduce', 'dcqcn-plus', '--check', ','], 'rocelab: --check needs at least one check id'],
    [
      ['help', 'frob'],
      'rocelab: no help for "frob"; commands: run, compare, reproduce, list, node, deploy, sweep',
    ],
  ];
  it.each(cases)('rocelab %j', async (argv, line) => {
    await expectBadInput(argv, line, { cwd: dir });
  });
});

describe('node', () => {
  it('a node without its environment exits 2 with one line naming the missing variable', async () => {
    const r = await cli(['node'], { env: {} });
    expect(r).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'rocelab: NODE: required: the name of the node to run\n',
    });
  });

  it('runs the node module with the environment', async () => {
    let seen: Record<string, string | undefined> | undefined;
    const r = await cli(['node'], {
      env: { ROCELAB_NODE: 'h1' },
      deps: {
        runNode: (o) => {
          seen = o.env;
        },
      },
    });
    expect(r.code).toBe(0);
    expect(seen).toEqual({ ROCELAB_NODE: 'h1' });
  });
});
