/**
 * The container side of the docker testbed without docker: tc plans for a container's links,
 * the start gate between nodes and the traffic job, and the job's progress from /metrics.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  containerShapeCommands,
  prepareContainerNode,
  readStartGate,
} from '../../src/runtime/netns/container.js';
import { parseMetrics, runTrafficJob } from '../../src/runtime/netns/traffic-job.js';
import { nodeConfigFromEnv } from '../../src/runtime/real/node.js';
import { hostMonotonicNs } from '../../src/runtime/real/protocol.js';

const ROOT = join(import.meta.dirname, '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'rocelab-container-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The environment docker-compose.yml gives service `svc`. */
function composeEnv(svc: string): Record<string, string> {
  const doc = parseYaml(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, { environment: Record<string, string | null> }>;
  };
  const env: Record<string, string | null> = { ...doc.services[svc].environment };
  env.SCENARIO = join(ROOT, 'deploy', 'scenarios', 'mini-testbed.yaml');
  for (const [k, v] of Object.entries(env))
    if (v === null)
      delete env[k]; // a variable passed through from the shell, unset there
    else if (v.startsWith('${')) env[k] = v.replace(/^\$\{[A-Z0-9_]+:-(.*)\}$/, '$1');
  return env as Record<string, string>;
}

describe('docker-compose.yml and the container-side shaping', () => {
  it('gives every node service an address inside 198.18.0.0/15 and mixes algorithms', () => {
    const cc = new Map<string, string>();
    for (const svc of ['s1', 's2', 'h1', 'h2', 'h3', 'h4']) {
      const env = composeEnv(svc);
      const cfg = nodeConfigFromEnv(env);
      expect(cfg.bind.host).toMatch(/^198\.1[89]\./);
      if (env.CC !== undefined) cc.set(svc, env.CC);
    }
    expect(new Set(cc.values()).size).toBeGreaterThan(1);
  });

  it('shapes a host with tbf and a switch with one htb class per peer, at rate ÷ timeScale', () => {
    const devOf = () => 'eth0';
    const h1 = containerShapeCommands(nodeConfigFromEnv(composeEnv('h1')), devOf).commands.map((c) =>
      c.join(' '),
    );
    expect(h1).toHaveLength(1);
    expect(h1[0]).toMatch(/^qdisc replace dev eth0 stab .* root tbf rate 25000000bit/);
    const s1 = containerShapeCommands(nodeConfigFromEnv(composeEnv('s1')), devOf).commands.map((c) =>
      c.join(' '),
    );
    const classes = s1.filter((c) => c.startsWith('class') && c.includes('ceil'));
    expect(classes).toHaveLength(3);
    for (const c of classes) expect(c).toContain('rate 25000000bit');
    const filters = s1.filter((c) => c.startsWith('filter')).map((c) => /dst (\S+)\/32/.exec(c)?.[1]);
    expect(filters.sort()).toEqual(['198.18.200.11', '198.18.200.12', '198.18.200.22']);
  });
});

describe('start gate and traffic job', () => {
  it('a node says ready, ignores a stale start and takes the job’s', async () => {
    const gate = join(tmp, 'gate1');
    mkdirSync(gate, { recursive: true });
    // Stale: a run that ended long ago.
    writeFileSync(join(gate, 'start'), JSON.stringify({ t0MonoNs: 1, runRealNs: 1, writtenBy: 'old' }));
    const env = { ...composeEnv('h2'), START_GATE: gate, SHAPE: '0' };
    const logs: string[] = [];
    const p = prepareContainerNode(env, { log: (l) => logs.push(l), pollMs: 10 });
    const until = Date.now() + 5000;
    while (!existsSync(join(gate, 'ready', 'h2')) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 10));
    expect(existsSync(join(gate, 'ready', 'h2'))).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
    const t0 = hostMonotonicNs() + 2e9;
    writeFileSync(
      join(gate, 'start'),
      JSON.stringify({ t0MonoNs: t0, runRealNs: 60e9, writtenBy: 'traffic' }),
    );
    expect(await p).toBe(Math.round(t0));
    expect(logs.join('\n')).toContain('waiting for the traffic job');
  });

  it('the job starts everyone once all are ready and ends when /metrics count every flow', async () => {
    const gate = join(tmp, 'gate2');
    mkdirSync(join(gate, 'ready'), { recursive: true });
    for (const n of ['s1', 's2', 'h1', 'h2', 'h3', 'h4']) writeFileSync(join(gate, 'ready', n), '{}');
    let polls = 0;
    const get = async (url: string) => {
      const host = /\/\/([\d.]+):/.exec(url)![1];
      const node = { '198.18.200.11': 'h1', '198.18.200.12': 'h2', '198.18.200.13': 'h3' }[host];
      if (node === undefined) return `rocelab_port_queue_max_bytes{port="0",node="s"} ${polls * 1000}\n`;
      polls++;
      return `# HELP x\nrocelab_fct_seconds_count{node="${node}"} ${polls > 6 ? 1 : 0}\nrocelab_fct_seconds_sum{node="${node}"} 0.001\n`;
    };
    const lines: string[] = [];
    const r = await runTrafficJob(
      { ...composeEnv('traffic'), START_GATE: gate, START_LEAD_MS: '100' },
      {
        log: (l) => lines.push(l),
        get,
        pollMs: 5,
      },
    );
    expect(r.ok).toBe(true);
    expect(r.flowsTotal).toBe(3);
    expect(r.flowsCompleted).toBe(3);
    const start = readStartGate(gate);
    expect(start).not.toBeNull();
    expect(start!.runRealNs).toBe(60e6 * 4000);
    expect(lines.at(-1)).toMatch(/^traffic: done: 3 flows/);
  });

  it('parses the Prometheus text format', () => {
    const s = parseMetrics(
      '# HELP a b\n# TYPE a gauge\nrocelab_port_queue_bytes{port="1",node="s1"} 1500\nrocelab_time_scale 4000\nbad line\n',
    );
    expect(s).toEqual([
      { name: 'rocelab_port_queue_bytes', labels: { port: '1', node: 's1' }, value: 1500 },
      { name: 'rocelab_time_scale', labels: {}, value: 4000 },
    ]);
  });
});
