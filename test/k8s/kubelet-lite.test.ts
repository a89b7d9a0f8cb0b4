/**
 * `rocelab deploy k8s` end to end without a cluster (root; runs in `npm test` as root, like
 * test/netns). The leaf-spine testbed with mixed algorithms (deploy/scenarios/leafspine-mixed.yaml,
 * 10 nodes) is rendered to manifests, and kubelet-lite (./kubelet-lite.ts) runs every pod of them
 * as a process in its own network namespace with the Service's DNS names, the pod's env and
 * ConfigMap, and only the capabilities the manifest grants. Debian's Prometheus scrapes the pods
 * it finds through file-based discovery built from their `prometheus.io/*` annotations.
 *
 * Checked: the traffic job exits 0 (every flow completed), every node passes its readiness probe
 * and is scraped (up == 1), each algorithm's sender completed its flow, node processes hold
 * NET_ADMIN and nothing else (the job nothing at all), switches shape by VNI; afterwards no
 * namespace, link, hosts file or process of the run remains.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, ROOT } from '../deploy/support.js';
import { freePort, getJson, until } from '../docker/harness.js';
import { ensureBuilt } from '../realtime/helpers.js';
import { KubeletLite, loadManifests, type RunningPod, sweepPrefix } from './kubelet-lite.js';

const PREFIX = 'rkl';
const tmp = mkdtempSync(join(tmpdir(), 'rocelab-kubelet-lite-'));
let lite: KubeletLite | null = null;
let prom: ChildProcess | null = null;

function ensurePrometheus(): void {
  if (spawnSync('sh', ['-c', 'command -v prometheus']).status === 0) return;
  const r = spawnSync(
    'sh',
    [
      '-c',
      'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus',
    ],
    {
      stdio: 'inherit',
    },
  );
  if (r.status !== 0) throw new Error('prometheus is missing and apt-get could not install it');
}

/** A /24 in 198.19.64–79 that no route uses yet. */
function freeSubnet(): string {
  const routes = spawnSync('ip', ['-4', 'route'], { encoding: 'utf8' }).stdout;
  for (let c = 64; c < 80; c++) if (!routes.includes(`198.19.${c}.`)) return `198.19.${c}`;
  throw new Error('no free /24 in 198.19.64.0/20');
}

function capEff(pid: number): string {
  return /^CapEff:\s+([0-9a-f]+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1];
}

beforeAll(() => {
  if (process.getuid?.() !== 0) throw new Error('the kubelet-lite suite needs root (CI runs as root)');
  ensureBuilt();
  ensurePrometheus();
  sweepPrefix(PREFIX);
});

afterAll(async () => {
  prom?.kill('SIGTERM');
  if (lite !== null) {
    const problems = await lite.down();
    expect(problems).toEqual([]);
  }
  const left = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((l) => l.startsWith(`${PREFIX}-`));
  expect(left).toEqual([]);
  expect(
    existsSync('/etc/netns') ? readdirSync('/etc/netns').filter((d) => d.startsWith(`${PREFIX}-`)) : [],
  ).toEqual([]);
  expect(spawnSync('ip', ['link', 'show', `${PREFIX}br`]).status).not.toBe(0);
  rmSync(tmp, { recursive: true, force: true });
});

describe('kubelet-lite: the Kubernetes manifests of a leaf-spine testbed, run without a cluster', () => {
  it('completes every flow with mixed algorithms while Prometheus scrapes every node', async () => {
    const out = join(tmp, 'manifests');
    const r = await cli([
      'deploy',
      'k8s',
      'deploy/scenarios/leafspine-mixed.yaml',
      '--out',
      out,
      '--namespace',
      'lab',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const m = loadManifests(out);
    const nodePods = m.pods.filter((p) => p.kind === 'Pod');
    expect(nodePods).toHaveLength(10);
    expect(
      new Set(nodePods.map((p) => p.container.env.find((e: { name: string }) => e.name === 'CC')?.value)),
    ).toEqual(new Set([undefined, 'dcqcn', 'dctcp', 'none']));

    const subnet = freeSubnet();
    lite = new KubeletLite({ prefix: PREFIX, subnet, repoRoot: ROOT, workDir: join(tmp, 'pods') });
    await lite.up(m);
    const nodes = lite.pods.filter((p) => p.pod.kind === 'Pod');
    const job = lite.pods.find((p) => p.pod.kind === 'Job')!;

    // Prometheus: file-based discovery from the pods' annotations, as kubernetes_sd + relabeling would.
    const sd = nodes
      .filter((p) => p.pod.annotations['prometheus.io/scrape'] === 'true')
      .map((p) => ({
        targets: [`${p.ip}:${p.pod.annotations['prometheus.io/port']}`],
        labels: {
          role: p.pod.labels['rocelab.dev/role'],
          pod: p.pod.name,
          __metrics_path__: p.pod.annotations['prometheus.io/path'],
        },
      }));
    writeFileSync(join(tmp, 'targets.json'), JSON.stringify(sd));
    const promPort = await freePort();
    writeFileSync(
      join(tmp, 'prometheus.yml'),
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s }',
        'scrape_configs:',
        '  - job_name: rocelab',
        '    file_sd_configs:',
        `      - files: ['${join(tmp, 'targets.json')}']`,
        '',
      ].join('\n'),
    );
    const promLog = openSync(join(tmp, 'prometheus.log'), 'a');
    prom = spawn(
      'prometheus',
      [
        `--config.file=${join(tmp, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(tmp, 'prom-data')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
      ],
      { stdio: ['ignore', promLog, promLog] },
    );
    closeSync(promLog);
    const base = `http://127.0.0.1:${promPort}`;
    const diag = () =>
      [job, ...nodes]
        .map((p: RunningPod) => `--- ${p.pod.hostname}\n${lite!.log(p).split('\n').slice(-6).join('\n')}`)
        .join('\n');

    // The traffic job gates the start, follows the run, and exits 0 when every flow completed.
    const code = await Promise.race([
      job.exit,
      new Promise<'timeout'>((res) => setTimeout(() => res('timeout'), 240_000)),
    ]);
    expect(code, diag()).toBe(0);
    const jobLog = lite.log(job);
    expect(jobLog).toMatch(/all nodes ready/);
    expect(jobLog).toMatch(/done: 3 flows/);

    // Every node is ready by its own probe, and scraped.
    for (const p of nodes) expect(await lite.ready(p), `${p.pod.hostname} readiness\n${diag()}`).toBe(true);
    const up = await until('Prometheus to scrape all 10 nodes', 60_000, async () => {
      const t = await getJson<{
        data: { activeTargets: { health: string; labels: Record<string, string> }[] };
      }>(`${base}/api/v1/targets`);
      const ok = t.data.activeTargets.filter((x) => x.health === 'up');
      return ok.length === nodes.length ? ok : undefined;
    });
    expect(new Set(up.map((x) => x.labels.pod))).toEqual(new Set(nodes.map((p) => p.pod.name)));
    expect(up.filter((x) => x.labels.role === 'switch')).toHaveLength(4);
    const fct = await until('flow completions in Prometheus', 60_000, async () => {
      const q = await getJson<{
        data: { result: { metric: Record<string, string>; value: [number, string] }[] };
      }>(`${base}/api/v1/query?query=${encodeURIComponent('sum by (node) (rocelab_fct_seconds_count)')}`);
      const byNode = Object.fromEntries(q.data.result.map((x) => [x.metric.node, Number(x.value[1])]));
      return (byNode.h1 ?? 0) + (byNode.h2 ?? 0) + (byNode.h3 ?? 0) >= 3 ? byNode : undefined;
    });
    // h1 dcqcn, h2 dctcp, h3 none: each completed its flow.
    expect(fct.h1).toBe(1);
    expect(fct.h2).toBe(1);
    expect(fct.h3).toBe(1);

    // Only the capabilities the manifests grant: NET_ADMIN (bit 12) for nodes, none for the job.
    for (const p of nodes) expect(capEff(p.proc.pid!), p.pod.hostname).toBe('0000000000001000');
    // Switches shape each port by its VNI, whatever the peers' addresses.
    const spine = nodes.find((p) => p.pod.labels['rocelab.dev/role'] === 'switch')!;
    const filters = spawnSync('tc', ['-n', spine.ns, 'filter', 'show', 'dev', 'eth0'], {
      encoding: 'utf8',
    }).stdout;
    expect(filters, lite.log(spine)).toMatch(/match 00000100\/ffffff00 at 32/);
    // The container entry resolved the names through the Service's records before the node
    // started: the node's own environment holds addresses, the start, and the pod's MTU.
    const environ = Object.fromEntries(
      readFileSync(`/proc/${spine.proc.pid}/environ`, 'utf8')
        .split('\0')
        .filter((x) => x.includes('='))
        .map((x) => [x.slice(0, x.indexOf('=')), x.slice(x.indexOf('=') + 1)]),
    );
    const resolved = JSON.parse(environ.ADDRESS_MAP) as Record<string, string>;
    expect(Object.keys(resolved).sort()).toEqual(nodes.map((p) => p.pod.hostname).sort());
    for (const p of nodes) expect(resolved[p.pod.hostname]).toBe(`${p.ip}:6081`);
    expect(environ.ADDRESS_MAP_NAMES).toContain('.leafspine-mixed:6081');
    expect(Number(environ.START_AT_MONO_NS)).toBeGreaterThan(0);
    expect(environ.POD_MTU).toBe('1500');
    // Names were resolved through the Service's records, not given as addresses.
    expect(m.pods[0].container.env.find((e: { name: string }) => e.name === 'ADDRESS_MAP').value).toContain(
      '.leafspine-mixed:6081',
    );
  });
});
