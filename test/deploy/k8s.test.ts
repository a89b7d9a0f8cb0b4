/**
 * `rocelab deploy k8s`: every shipped scenario renders to objects that validate against the
 * kubernetes-models schemas, with the properties docs/deploy.md promises (headless Service that
 * publishes not-ready pods, one pod per node named <node>.<service>, NET_ADMIN only, Guaranteed
 * QoS, readiness on /metrics, Prometheus annotations and PodMonitor, topology spread).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pod } from 'kubernetes-models/v1/Pod';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { renderK8s } from '../../src/deploy/k8s.js';
import { deployPlan } from '../../src/deploy/model.js';
import { parseAddressMap } from '../../src/runtime/real/addresses.js';
import { cli, ROOT, shippedScenarios } from './support.js';

const tmp = mkdtempSync(join(tmpdir(), 'rocelab-deploy-k8s-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// biome-ignore lint/suspicious/noExplicitAny: manifests are checked field by field below
type Obj = any;

function docs(file: string): Obj[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS());
}

describe('deploy k8s', () => {
  it('renders every shipped scenario to objects that pass the kubernetes-models schemas', () => {
    for (const rel of shippedScenarios()) {
      const plan = deployPlan(join(ROOT, rel));
      const m = renderK8s(plan, { namespace: 'lab' });
      // renderK8s validated each object; validate again to make the claim explicit here.
      for (const o of m.objects) expect(() => o.validate(), rel).not.toThrow();
      const pods = m.objects.filter((o) => (o as Obj).kind === 'Pod');
      expect(pods.length, rel).toBe(plan.nodes.length);
    }
  });

  it('the schemas do reject a broken object (validation is not a no-op)', () => {
    const bad = new Pod({
      metadata: { name: 'x' },
      spec: { containers: [{ name: 'n', ports: [{ containerPort: 'six' as never }] }] },
    });
    expect(() => bad.validate()).toThrow(/containerPort/);
  });

  it('writes a kustomize directory with the promised properties', async () => {
    const out = join(tmp, 'ls');
    const r = await cli([
      'deploy',
      'k8s',
      'scenarios/websearch-leafspine.yaml',
      '--out',
      out,
      '--namespace',
      'lab',
      '--image',
      'registry.example:5000/rocelab:1.2',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const kust = parseYaml(readFileSync(join(out, 'kustomization.yaml'), 'utf8')) as Obj;
    expect(kust.kind).toBe('Kustomization');
    expect(kust.namespace).toBe('lab');
    expect(kust.configMapGenerator).toEqual([
      { name: 'websearch-leafspine-scenario', files: ['scenario.yaml'] },
    ]);
    expect(readFileSync(join(out, 'scenario.yaml'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'scenarios', 'websearch-leafspine.yaml'), 'utf8'),
    );
    const all = (kust.resources as string[]).flatMap((f) => docs(join(out, f)));
    const kinds = all.map((o) => o.kind);
    expect(kinds.filter((k) => k === 'Pod')).toHaveLength(24);
    expect(kinds).toEqual(expect.arrayContaining(['Namespace', 'Service', 'Job', 'PodMonitor']));
    expect(kinds).not.toContain('StatefulSet');

    const svc = all.find((o) => o.kind === 'Service');
    expect(svc.spec.clusterIP).toBe('None');
    expect(svc.spec.publishNotReadyAddresses).toBe(true);
    const matches = (labels: Record<string, string>) =>
      Object.entries(svc.spec.selector).every(([k, v]) => labels[k] === v);

    for (const pod of all.filter((o) => o.kind === 'Pod')) {
      const node = pod.metadata.labels['rocelab.dev/node'];
      expect(pod.spec.hostname).toBe(node);
      expect(pod.spec.subdomain).toBe(svc.metadata.name);
      expect(matches(pod.metadata.labels)).toBe(true);
      expect(pod.metadata.annotations['prometheus.io/scrape']).toBe('true');
      expect(pod.metadata.annotations['prometheus.io/port']).toBe('9464');
      expect(pod.spec.topologySpreadConstraints[0].topologyKey).toBe('kubernetes.io/hostname');
      const [c] = pod.spec.containers;
      expect(c.image).toBe('registry.example:5000/rocelab:1.2');
      expect(c.securityContext.privileged).toBe(false);
      expect(c.securityContext.capabilities).toEqual({ drop: ['ALL'], add: ['NET_ADMIN'] });
      expect(c.resources.requests).toEqual(c.resources.limits); // Guaranteed QoS
      expect(c.resources.requests.cpu).toBeDefined();
      expect(c.resources.requests.memory).toBeDefined();
      expect(c.readinessProbe.httpGet).toEqual({ path: '/metrics', port: 'metrics' });
      const env = Object.fromEntries(c.env.map((e: Obj) => [e.name, e.value]));
      expect(env.NODE).toBe(node);
      expect(env.START_GATE).toBe(`http://traffic.${svc.metadata.name}:9470`);
      const map = parseAddressMap(env.ADDRESS_MAP);
      expect(map[node]).toBe(`${node}.${svc.metadata.name}:6081`);
      if (pod.metadata.labels['rocelab.dev/role'] === 'host') expect(env.CC).toBe('dcqcn');
      else expect(env.CC).toBeUndefined();
    }
    const job = all.find((o) => o.kind === 'Job');
    const tpl = job.spec.template;
    expect(tpl.spec.hostname).toBe('traffic');
    expect(tpl.spec.subdomain).toBe(svc.metadata.name);
    expect(matches(tpl.metadata.labels)).toBe(true);
    expect(tpl.spec.containers[0].securityContext.capabilities).toEqual({ drop: ['ALL'] });
    const pm = all.find((o) => o.kind === 'PodMonitor');
    expect(pm.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(pm.spec.podMetricsEndpoints[0].port).toBe('metrics');

    // Where a kubectl with kustomize is installed, it builds the directory offline.
    const k = spawnSync('kubectl', ['kustomize', out], { encoding: 'utf8' });
    if (k.error === undefined && k.status === 0) {
      const built = parseAllDocuments(k.stdout).map((d) => d.toJS() as Obj);
      const cm = built.find((o) => o.kind === 'ConfigMap');
      expect(cm.metadata.name).toMatch(/^websearch-leafspine-scenario-/);
      const pod = built.find((o) => o.kind === 'Pod');
      expect(pod.metadata.namespace).toBe('lab');
      expect(pod.spec.volumes[0].configMap.name).toBe(cm.metadata.name);
    }
  });

  it('ships the workload CDF a scenario names beside itself in the ConfigMap', async () => {
    const out = join(tmp, 'cdf');
    const r = await cli(['deploy', 'k8s', 'scenarios/papers/dolce-rc/e3-dynamic.yaml', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const kust = parseYaml(readFileSync(join(out, 'kustomization.yaml'), 'utf8')) as Obj;
    expect(kust.configMapGenerator[0].files).toEqual(['scenario.yaml', 'short-256k.cdf']);
    expect(readFileSync(join(out, 'short-256k.cdf'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'scenarios', 'papers', 'dolce-rc', 'short-256k.cdf'), 'utf8'),
    );
  });

  it('takes mixed algorithms per host from the scenario', () => {
    const plan = deployPlan(join(ROOT, 'deploy', 'scenarios', 'mini-testbed.yaml'));
    const m = renderK8s(plan);
    const cc = Object.fromEntries(
      m.objects
        .map((o) => (o as Obj).toJSON())
        .filter((o: Obj) => o.kind === 'Pod' && o.metadata.labels['rocelab.dev/role'] === 'host')
        .map((o: Obj) => [o.spec.hostname, o.spec.containers[0].env.find((e: Obj) => e.name === 'CC').value]),
    );
    expect(cc).toEqual({ h1: 'dcqcn', h2: 'dcqcn', h3: 'none', h4: 'dcqcn' });
    expect(m.namespace).toBeNull();
  });

  it('unknown topology, bad scenario or bad flags exit 2 with one line', async () => {
    const bad = join(tmp, 'bad.yaml');
    writeFileSync(bad, 'name: x\ntopology: { kind: torus, hosts: 4 }\n');
    for (const argv of [
      ['deploy', 'k8s', bad],
      ['deploy', 'k8s', 'no-such.yaml'],
      ['deploy', 'k8s', 'scenarios/incast-8to1.yaml', '--namespace', 'Not_OK'],
      ['deploy', 'k8s', 'scenarios/incast-8to1.yaml', '--image', 'UPPER CASE'],
      ['deploy', 'k8s', 'scenarios/incast-8to1.yaml', '--subnet', '198.18.0.0/24'],
    ]) {
      const r = await cli(argv);
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr.trim().split('\n'), argv.join(' ')).toHaveLength(1);
    }
  });
});
