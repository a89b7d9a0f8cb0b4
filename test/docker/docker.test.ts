/**
 * Acceptance c (`npm run test:docker`): the docker mini testbed of docker-compose.yml, end to end,
 * on a machine without any container registry.
 *
 * 1. docker.io, docker-compose and prometheus are apt-get installed when missing; dockerd is
 *    started in the background when no engine runs.
 * 2. The image is built locally: a base from the host's node (deploy/local-base-image.sh, `docker
 *    import`), then deploy/Dockerfile with --build-arg NODE_IMAGE=rocelab-base:local.
 * 3. `docker compose up -d` (or docker-compose 1.29) starts the 2 switches, 4 hosts (mixed
 *    algorithms from their services' CC variables) and the traffic job. The compose file's own
 *    prometheus/grafana services need images from a registry, so instead Debian's Prometheus runs
 *    on the host with a static scrape config of every node's ip:port (from docker-compose.yml).
 * 4. Prometheus's HTTP API must show every node up, queue-depth series of every switch port, and
 *    a non-zero flow-completion count (on a dcqcn host and on the `none` host); the traffic job
 *    must exit 0 (all flows complete); tc must shape the containers' links.
 * 5. Everything is torn down: compose down -v, Prometheus stopped, temp dirs removed, and the
 *    docker engine stopped again if this suite started it.
 * 6. Then a generated testbed: `rocelab deploy compose` of the 10-node leaf-spine with mixed
 *    algorithms (deploy/scenarios/leafspine-mixed.yaml) runs end to end with the generated
 *    Prometheus config scraping every node.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  composeCommand,
  type Engine,
  ensureDockerd,
  ensureTools,
  freePort,
  getJson,
  must,
  type PromVector,
  sh,
  until,
} from './harness.js';

const ROOT = join(import.meta.dirname, '..', '..');
const PROJECT = `rocelabtest${process.pid}`;
const NODE_SERVICES = ['s1', 's2', 'h1', 'h2', 'h3', 'h4'];
const tmp = mkdtempSync(join(tmpdir(), 'rocelab-docker-test-'));
const log = (s: string) => process.stdout.write(`[docker test] ${s}\n`);

let engine: Engine | null = null;
let compose: string[] | null = null;
let composeStarted = false;
let prom: ChildProcess | null = null;

function composeArgs(...args: string[]): [string, string[]] {
  const [cmd, ...pre] = compose!;
  return [cmd, [...pre, '-p', PROJECT, '-f', join(ROOT, 'docker-compose.yml'), ...args]];
}

function containerId(service: string): string {
  const [cmd, args] = composeArgs('ps', '-q', service);
  return must(cmd, args, { cwd: ROOT }).trim();
}

afterAll(() => {
  if (composeStarted && compose !== null) {
    const [cmd, args] = composeArgs('logs', '--no-color', '--tail', '40');
    const logs = sh(cmd, args, { cwd: ROOT });
    writeFileSync(join(tmp, 'compose.log'), logs.stdout + logs.stderr);
    const [dcmd, dargs] = composeArgs('down', '-v', '--remove-orphans', '-t', '5');
    const r = sh(dcmd, dargs, { cwd: ROOT });
    if (r.status !== 0) log(`compose down failed: ${r.stderr.trim()}`);
  }
  if (prom !== null && prom.exitCode === null) prom.kill('SIGTERM');
  // Untagged rocelab images: build-stage intermediates and what earlier builds left (labelled in
  // deploy/Dockerfile and local-base-image.sh); the tagged rocelab:local and its base stay.
  if (engine !== null) sh('docker', ['image', 'prune', '-f', '--filter', 'label=org.rocelab.image']);
  engine?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

interface ComposeService {
  environment?: Record<string, string | null>;
  networks?: Record<string, { ipv4_address?: string }>;
}

/** Every rocelab node of docker-compose.yml with its metrics address. */
function scrapeTargets(): { node: string; target: string }[] {
  const doc = parseYaml(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  const out: { node: string; target: string }[] = [];
  for (const [name, svc] of Object.entries(doc.services)) {
    const env = svc.environment ?? {};
    if (env.NODE === undefined || env.NODE === null) continue;
    const ip = svc.networks?.fabric?.ipv4_address;
    if (ip === undefined) throw new Error(`service ${name} has no fixed address`);
    out.push({ node: env.NODE, target: `${ip}:${env.METRICS_PORT}` });
  }
  return out;
}

/** The last log lines of the traffic job and of every node, for failure messages. */
function diagnostics(traffic: string): string {
  const parts = [`traffic:\n${sh('docker', ['logs', '--tail', '8', traffic]).stdout}`];
  for (const svc of NODE_SERVICES) {
    const r = sh('docker', ['logs', '--tail', '4', containerId(svc)]);
    parts.push(`${svc}:\n${(r.stdout + r.stderr).slice(-1500)}`);
  }
  return parts.join('\n');
}

async function query(base: string, q: string): Promise<PromVector['data']['result']> {
  const r = await getJson<PromVector>(`${base}/api/v1/query?query=${encodeURIComponent(q)}`);
  if (r.status !== 'success') throw new Error(`query ${q}: ${JSON.stringify(r).slice(0, 200)}`);
  return r.data.result;
}

describe('docker testbed (docker compose + Prometheus)', () => {
  it('builds without a registry, runs mixed algorithms, and Prometheus sees queues and completed flows', async () => {
    // 1. tools and engine
    ensureTools(log);
    engine = await ensureDockerd(tmp, log);
    compose = composeCommand();
    log(
      `engine ${must('docker', ['info', '--format', '{{.ServerVersion}}']).trim()}, compose: ${compose.join(' ')}`,
    );

    // 2. images, no registry
    const t0 = Date.now();
    must('sh', [join(ROOT, 'deploy', 'local-base-image.sh'), 'rocelab-base:local'], { cwd: ROOT });
    must(
      'docker',
      [
        'build',
        '-q',
        '-f',
        'deploy/Dockerfile',
        '--build-arg',
        'NODE_IMAGE=rocelab-base:local',
        '-t',
        'rocelab:local',
        '.',
      ],
      { cwd: ROOT, timeoutMs: 400_000 },
    );
    log(`images built in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    // 3. the testbed (without the compose file's prometheus/grafana: their images need a registry)
    composeStarted = true;
    const [cmd, args] = composeArgs('up', '-d', '--no-build', ...NODE_SERVICES, 'traffic');
    must(cmd, args, { cwd: ROOT, timeoutMs: 180_000 });
    log('compose up done');

    // Debian's Prometheus on the host, scraping every node on the docker network directly.
    const targets = scrapeTargets();
    expect(targets.map((t) => t.node).sort()).toEqual([...NODE_SERVICES].sort());
    const promPort = await freePort();
    const promCfg = join(tmp, 'prometheus.yml');
    writeFileSync(
      promCfg,
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s }',
        'scrape_configs:',
        '  - job_name: rocelab',
        '    static_configs:',
        `      - targets: [${targets.map((t) => `'${t.target}'`).join(', ')}]`,
        '',
      ].join('\n'),
    );
    const promLog = openSync(join(tmp, 'prometheus.log'), 'a');
    prom = spawn(
      'prometheus',
      [
        `--config.file=${promCfg}`,
        `--storage.tsdb.path=${join(tmp, 'prom-data')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
      ],
      { stdio: ['ignore', promLog, promLog] },
    );
    closeSync(promLog);
    const base = `http://127.0.0.1:${promPort}`;

    // 4. every node scraped
    await until('Prometheus to scrape all 6 nodes', 120_000, async () => {
      const r = await getJson<{ data: { activeTargets: { health: string; scrapeUrl: string }[] } }>(
        `${base}/api/v1/targets`,
      );
      const up = r.data.activeTargets.filter((t) => t.health === 'up');
      return up.length === targets.length ? true : undefined;
    });
    log('Prometheus scrapes every node');

    // The traffic job starts the run and exits 0 once every flow completed.
    const traffic = containerId('traffic');
    // (The job gives up by itself after the scenario's duration × timeScale + 60 s = 300 s.)
    let code: number;
    try {
      code = await until('the traffic job to finish', 330_000, async () => {
        const s = must('docker', ['inspect', '-f', '{{.State.Status}} {{.State.ExitCode}}', traffic])
          .trim()
          .split(' ');
        return s[0] === 'exited' ? Number(s[1]) : undefined;
      });
    } catch (err) {
      throw new Error(`${(err as Error).message}\n${diagnostics(traffic)}`);
    }
    const jobLog = sh('docker', ['logs', traffic]).stdout.trim().split('\n');
    log(`traffic job: ${jobLog.slice(-2).join(' | ')}`);
    expect(code, `${jobLog.join('\n')}\n${diagnostics(traffic)}`).toBe(0);

    // Queue-depth series of every switch port and non-zero flow completions, from Prometheus.
    const queues = await until('queue-depth series of both switches', 60_000, async () => {
      const r = await query(base, 'rocelab_port_queue_bytes');
      return r.length >= 6 ? r : undefined;
    });
    const switchPorts = queues.map((s) => `${s.metric.node}:${s.metric.port}`).sort();
    log(`rocelab_port_queue_bytes: ${queues.length} series (${switchPorts.join(', ')})`);
    expect(new Set(queues.map((s) => s.metric.node))).toEqual(new Set(['s1', 's2']));
    const peak = await query(base, 'max(max_over_time(rocelab_port_queue_max_bytes[10m]))');
    const peakBytes = Number(peak[0]?.value[1] ?? 0);
    log(`largest switch queue seen: ${peakBytes} bytes`);
    expect(peakBytes).toBeGreaterThan(0);

    const done = await until('a non-zero flow-completion count', 60_000, async () => {
      const r = await query(base, 'sum by (node) (rocelab_fct_seconds_count)');
      const total = r.reduce((s, x) => s + Number(x.value[1]), 0);
      return total >= 3 ? r : undefined;
    });
    const byNode = Object.fromEntries(done.map((x) => [x.metric.node, Number(x.value[1])]));
    log(`rocelab_fct_seconds_count by node: ${JSON.stringify(byNode)}`);
    // Mixed algorithms: h1, h2 run dcqcn, h3 runs none (docker-compose.yml); all three finished.
    expect(byNode.h1).toBeGreaterThan(0);
    expect(byNode.h3).toBeGreaterThan(0);
    expect(byNode.h1 + byNode.h2 + byNode.h3).toBe(3);
    const cnps = await query(base, 'sum(rocelab_host_events_total{event="cnpRx"})');
    log(`CNPs received by senders: ${cnps[0]?.value[1]}`);

    // Every metric the Grafana dashboard plots is exported by the nodes (no drift from
    // docs/metrics.md). Prometheus's metadata API knows every metric a scrape declared, including
    // counters that have no sample yet (PFC pauses in a run without pauses).
    const dashboard = readFileSync(join(ROOT, 'deploy', 'grafana', 'rocelab-dashboard.json'), 'utf8');
    const names = [...new Set(dashboard.match(/rocelab_[a-z_]+/g) ?? [])].sort();
    const meta = await getJson<{ data: Record<string, unknown> }>(`${base}/api/v1/metadata`);
    const declared = new Set(Object.keys(meta.data));
    const missing = names.filter(
      (n) => !declared.has(n.replace(/_(bucket|sum|count)$/, '')) && !declared.has(n),
    );
    log(`dashboard metrics: ${names.length - missing.length}/${names.length} exported`);
    expect(missing).toEqual([]);

    // The shipped configs parse.
    if (sh('sh', ['-c', 'command -v promtool']).status === 0)
      must('promtool', ['check', 'config', join(ROOT, 'deploy', 'prometheus.yml')]);
    const [ccmd, cargs] = composeArgs('config', '-q');
    must(ccmd, cargs, { cwd: ROOT });

    // No node crashed or reported a fatal error.
    for (const svc of NODE_SERVICES) {
      const nodeLog = sh('docker', ['logs', containerId(svc)]);
      const text = nodeLog.stdout + nodeLog.stderr;
      expect(text, `${svc} log`).not.toMatch(/internal error|"msg":"fatal"/);
      expect(text, `${svc} log`).toMatch(/"msg":"started"/);
    }

    // tc shapes the links inside the containers (NET_ADMIN): htb per peer on switches, tbf on hosts.
    const s1tc = must('docker', ['exec', containerId('s1'), 'tc', 'qdisc', 'show', 'dev', 'eth0']);
    const h1tc = must('docker', ['exec', containerId('h1'), 'tc', 'qdisc', 'show', 'dev', 'eth0']);
    expect(s1tc).toMatch(/qdisc htb 1: root/);
    expect(h1tc).toMatch(/qdisc tbf .* root .*rate 25Mbit/);
  });
});

describe('rocelab deploy compose on every shipped scenario', () => {
  it('writes a project docker-compose config accepts', () => {
    ensureTools(log);
    const tool = composeCommand();
    const dirs = join(tmp, 'generated');
    const walk = (d: string): string[] =>
      readdirSync(d, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith('.yaml') ? [join(d, e.name)] : [],
      );
    const all = [...walk(join(ROOT, 'scenarios')), ...walk(join(ROOT, 'deploy', 'scenarios'))];
    for (const [i, f] of all.entries()) {
      const out = join(dirs, String(i));
      must(process.execPath, [join(ROOT, 'bin', 'rocelab.js'), 'deploy', 'compose', f, '--out', out], {
        cwd: ROOT,
      });
      const r = sh(tool[0], [...tool.slice(1), '-f', join(out, 'docker-compose.yml'), 'config', '-q'], {
        cwd: out,
      });
      expect(r.status, `${f}: ${r.stderr}`).toBe(0);
    }
    log(`docker-compose config accepts the generated project of all ${all.length} shipped scenarios`);
  }, 1_200_000);
});

describe('a generated leaf-spine testbed (rocelab deploy compose)', () => {
  it('runs 10 nodes with mixed algorithms end to end while Prometheus scrapes every node', async () => {
    // Needs the engine and the rocelab:local image of the test above.
    expect(engine, 'the mini-testbed test must run first (engine, image)').not.toBeNull();
    const dir = join(tmp, 'leafspine');
    // Its own subnet, apart from the mini testbed's 198.18.200.0/24.
    must(
      process.execPath,
      [
        join(ROOT, 'bin', 'rocelab.js'),
        'deploy',
        'compose',
        'deploy/scenarios/leafspine-mixed.yaml',
        '--out',
        dir,
        '--subnet',
        '198.18.201.0/24',
      ],
      { cwd: ROOT },
    );
    const file = join(dir, 'docker-compose.yml');
    const project = `${PROJECT}ls`;
    const [cmd, ...pre] = compose!;
    const args = (...a: string[]) => [...pre, '-p', project, '-f', file, ...a];
    const doc = parseYaml(readFileSync(file, 'utf8'), { merge: true }) as {
      services: Record<string, ComposeService>;
    };
    const nodes = Object.entries(doc.services)
      .filter(([, s]) => s.environment?.NODE !== undefined)
      .map(([name, s]) => ({ name, target: `${s.networks!.fabric!.ipv4_address}:9464` }));
    expect(nodes.length).toBeGreaterThanOrEqual(8);
    let promLs: ChildProcess | null = null;
    try {
      must(cmd, args('up', '-d', '--no-build', ...nodes.map((n) => n.name), 'traffic'), {
        cwd: dir,
        timeoutMs: 180_000,
      });
      const promPort = await freePort();
      const promCfg = join(dir, 'prometheus-host.yml');
      // The generated prometheus.yml, as is: every node with its role label.
      writeFileSync(promCfg, readFileSync(join(dir, 'prometheus.yml'), 'utf8'));
      const promLog = openSync(join(dir, 'prometheus.log'), 'a');
      promLs = spawn(
        'prometheus',
        [
          `--config.file=${promCfg}`,
          `--storage.tsdb.path=${join(dir, 'prom-data')}`,
          `--web.listen-address=127.0.0.1:${promPort}`,
        ],
        { stdio: ['ignore', promLog, promLog] },
      );
      closeSync(promLog);
      const base = `http://127.0.0.1:${promPort}`;
      const traffic = must(cmd, args('ps', '-q', 'traffic'), { cwd: dir }).trim();
      const code = await until('the leaf-spine traffic job to finish', 330_000, async () => {
        const s = must('docker', ['inspect', '-f', '{{.State.Status}} {{.State.ExitCode}}', traffic])
          .trim()
          .split(' ');
        return s[0] === 'exited' ? Number(s[1]) : undefined;
      });
      const jobLog = sh('docker', ['logs', traffic]).stdout;
      log(`leaf-spine traffic job: ${jobLog.trim().split('\n').slice(-1)[0]}`);
      expect(code, jobLog).toBe(0);
      const up = await until(`Prometheus to scrape all ${nodes.length} nodes`, 120_000, async () => {
        const r = await getJson<{
          data: { activeTargets: { health: string; labels: Record<string, string> }[] };
        }>(`${base}/api/v1/targets`);
        const ok = r.data.activeTargets.filter((t) => t.health === 'up');
        return ok.length === nodes.length ? ok : undefined;
      });
      expect(up.filter((t) => t.labels.role === 'switch')).toHaveLength(4);
      const done = await until('flow completions of h1 (dcqcn), h2 (dctcp), h3 (none)', 60_000, async () => {
        const r = await query(base, 'sum by (node) (rocelab_fct_seconds_count)');
        const by = Object.fromEntries(r.map((x) => [x.metric.node, Number(x.value[1])]));
        return (by.h1 ?? 0) + (by.h2 ?? 0) + (by.h3 ?? 0) >= 3 ? by : undefined;
      });
      expect([done.h1, done.h2, done.h3]).toEqual([1, 1, 1]);
    } finally {
      if (promLs !== null && promLs.exitCode === null) promLs.kill('SIGTERM');
      const r = sh(cmd, args('down', '-v', '--remove-orphans', '-t', '5'), { cwd: dir });
      if (r.status !== 0) log(`leaf-spine compose down failed: ${r.stderr.trim()}`);
    }
  });
});
