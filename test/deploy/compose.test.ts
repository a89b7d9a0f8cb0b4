/**
 * `rocelab deploy compose`: the shipped docker-compose.yml is the generator's output for the mini
 * testbed (drift fails here), every shipped scenario gives a project docker-compose accepts, and
 * the addresses, roles and algorithms come from the scenario.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { renderCompose } from '../../src/deploy/compose.js';
import { allocateAddresses, deployPlan, paramEnvName } from '../../src/deploy/model.js';
import { cli, ROOT, shippedScenarios } from './support.js';

const tmp = mkdtempSync(join(tmpdir(), 'rocelab-deploy-compose-'));
/** `${NAME:-default}` as compose writes it. */
const shellVar = (name: string, def: string) => `\${${name}:-${def}}`;
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function composeTool(): string[] | null {
  if (spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0) return ['docker-compose'];
  if (spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0)
    return ['docker', 'compose'];
  return null;
}

interface Svc {
  environment?: Record<string, string | null>;
  networks?: { fabric?: { ipv4_address?: string } };
}

describe('deploy compose', () => {
  it('generates exactly the shipped docker-compose.yml, deploy/prometheus.yml and Grafana files for the mini testbed', () => {
    const plan = deployPlan(join(ROOT, 'deploy', 'scenarios', 'mini-testbed.yaml'));
    const files = renderCompose(plan, { outDir: ROOT, assetsDir: 'deploy' });
    expect([...files.keys()].sort()).toEqual(
      [
        'docker-compose.yml',
        'deploy/prometheus.yml',
        'deploy/grafana/provisioning/datasources/prometheus.yml',
        'deploy/grafana/provisioning/dashboards/rocelab.yml',
        'deploy/grafana/rocelab-dashboard.json',
      ].sort(),
    );
    for (const [rel, text] of files)
      expect(
        text,
        `${rel} drifted from the generator: rerun rocelab deploy compose deploy/scenarios/mini-testbed.yaml --out . --assets deploy`,
      ).toBe(readFileSync(join(ROOT, rel), 'utf8'));
  });

  it('takes each host’s algorithm from the scenario, with a shell override and CC_<PARAM> passthrough', () => {
    const text = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
    const doc = parseYaml(text, { merge: true }) as { services: Record<string, Svc> };
    const cc = Object.fromEntries(['h1', 'h2', 'h3', 'h4'].map((h) => [h, doc.services[h].environment?.CC]));
    expect(cc).toEqual({
      h1: shellVar('H1_CC', 'dcqcn'),
      h2: shellVar('H2_CC', 'dcqcn'),
      h3: shellVar('H3_CC', 'none'),
      h4: shellVar('H4_CC', 'dcqcn'),
    });
    // dcqcn's rateAiBps passes through on the dcqcn hosts (null: taken from the shell), not on h3.
    expect(paramEnvName('rateAiBps')).toBe('CC_RATE_AI_BPS');
    expect(doc.services.h1.environment).toHaveProperty('CC_RATE_AI_BPS', null);
    expect(doc.services.h3.environment).not.toHaveProperty('CC_RATE_AI_BPS');
    expect(doc.services.s1.environment).not.toHaveProperty('CC');
  });

  it('gives every shipped scenario unique addresses inside 198.18.0.0/15 and role-labelled scrape targets; docker-compose accepts a sample', async () => {
    // `docker-compose config` on all of them (376-node files included) takes minutes on a busy
    // machine: npm run test:docker runs it on every shipped scenario; here on a sample.
    const tool = composeTool();
    const sample = new Set([
      'deploy/scenarios/mini-testbed.yaml',
      'deploy/scenarios/leafspine-mixed.yaml',
      'scenarios/websearch-leafspine.yaml',
    ]);
    for (const rel of shippedScenarios()) {
      const plan = deployPlan(join(ROOT, rel));
      const addr = allocateAddresses(plan);
      const ips = [addr.prometheus, addr.grafana, addr.traffic, ...addr.nodes.values()];
      expect(new Set(ips).size, rel).toBe(ips.length);
      for (const ip of ips) expect(ip, rel).toMatch(/^198\.1[89]\./);
      const out = join(tmp, rel.replace(/\//g, '_'));
      const r = await cli(['deploy', 'compose', rel, '--out', out]);
      expect(r.code, r.stderr).toBe(0);
      const doc = parseYaml(readFileSync(join(out, 'docker-compose.yml'), 'utf8'), {
        merge: true,
        maxAliasCount: -1,
      }) as {
        services: Record<string, Svc>;
      };
      const nodeSvcs = Object.entries(doc.services).filter(([, s]) => s.environment?.NODE !== undefined);
      expect(nodeSvcs.length, rel).toBe(plan.nodes.length);
      for (const [name, s] of nodeSvcs)
        expect(s.networks?.fabric?.ipv4_address, rel).toBe(addr.nodes.get(name));
      const prom = parseYaml(readFileSync(join(out, 'prometheus.yml'), 'utf8')) as {
        scrape_configs: { static_configs: { targets: string[]; labels: { role: string } }[] }[];
      };
      const byRole = new Map<string, number>();
      for (const sc of prom.scrape_configs[0].static_configs)
        byRole.set(sc.labels.role, (byRole.get(sc.labels.role) ?? 0) + sc.targets.length);
      expect(byRole.get('host'), rel).toBe(plan.nodes.filter((n) => n.role === 'host').length);
      expect(byRole.get('switch'), rel).toBe(plan.nodes.filter((n) => n.role === 'switch').length);
      if (tool !== null && sample.has(rel)) {
        const c = spawnSync(
          tool[0],
          [...tool.slice(1), '-f', join(out, 'docker-compose.yml'), 'config', '-q'],
          {
            encoding: 'utf8',
          },
        );
        expect(c.status, `${rel}: ${c.stderr}`).toBe(0);
      }
    }
    if (tool === null) console.warn('deploy compose: no docker-compose here; `config` not checked');
  }, 600_000);

  it('mounts a scenario the image does not ship, and applies --set', async () => {
    const out = join(tmp, 'custom');
    const src = join(tmp, 'custom.yaml');
    const text = readFileSync(join(ROOT, 'scenarios', 'dumbbell-2flows.yaml'), 'utf8');
    writeFileSync(src, text);
    const r = await cli(['deploy', 'compose', src, '--out', out, '--set', 'timeScale=5000']);
    expect(r.code, r.stderr).toBe(0);
    const compose = readFileSync(join(out, 'docker-compose.yml'), 'utf8');
    expect(compose).toContain('- ./scenario.yaml:/etc/rocelab/scenario.yaml:ro');
    expect(compose).toContain('ROCELAB_SET: "timeScale=5000"');
    expect(readFileSync(join(out, 'scenario.yaml'), 'utf8')).toBe(text);
  });

  it('bad input exits 2 with one line', async () => {
    for (const argv of [
      ['deploy', 'compose', 'no-such.yaml'],
      ['deploy', 'compose'],
      ['deploy'],
      ['deploy', 'swarm', 'scenarios/incast-8to1.yaml'],
      ['deploy', 'compose', 'scenarios/incast-8to1.yaml', '--subnet', '10.0.0.0/24'],
      ['deploy', 'compose', 'scenarios/incast-8to1.yaml', '--bogus'],
      ['deploy', 'compose', 'scenarios/incast-8to1.yaml', '--set', 'topology.kind=ring'],
    ]) {
      const r = await cli(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), argv.join(' ')).toHaveLength(1);
      expect(r.stderr).toMatch(/^rocelab: /);
    }
  });
});
