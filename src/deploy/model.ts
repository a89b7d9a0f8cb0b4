/**
 * What every deployment generator (docker compose, Kubernetes) starts from: the scenario's nodes
 * in a fixed order with their roles, each host's algorithm and the `CC_<PARAM>` names it accepts,
 * and address allocation inside 198.18.0.0/15 (docs/deploy.md).
 */
import { existsSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { listAlgorithms } from '../cc/registry.js';
import { ConfigError } from '../config/errors.js';
import { loadScenario } from '../config/load.js';
import { nicFor, type Scenario } from '../config/scenario.js';
import { packageRoot } from '../package-root.js';
import { setupRun } from '../runtime/scenario-setup.js';

export type Role = 'host' | 'switch';

export interface DeployNode {
  name: string;
  role: Role;
  /** Hosts: the algorithm the scenario gives this host. */
  cc?: string;
  /** Hosts: `CC_<PARAM>` variable names of that algorithm (upper snake case of each parameter). */
  ccParamEnv?: string[];
}

export interface DeployPlan {
  scenario: Scenario;
  /** The scenario file as given, absolute. */
  scenarioPath: string;
  /** Path inside the rocelab image when the image ships the file (scenarios/, deploy/scenarios/). */
  imagePath: string | null;
  /** Switches first, then hosts, each in topology order. */
  nodes: DeployNode[];
  /** `--set` overrides the deployment applies on top of the file. */
  sets: string[];
  /**
   * Files the scenario names relative to itself (workload CDFs): name beside the scenario →
   * absolute path. A deployment that copies the scenario copies these next to it.
   */
  sideFiles: Map<string, string>;
}

/** Where the image keeps the repository (deploy/Dockerfile WORKDIR). */
export const IMAGE_APP_DIR = '/app';
/** Where a generated deployment mounts a scenario the image does not ship. */
export const SCENARIO_MOUNT_DIR = '/etc/rocelab';
export const GENEVE_PORT = 6081;
export const METRICS_PORT = 9464;
/** The traffic job's HTTP start gate (Kubernetes). */
export const GATE_PORT = 9470;

/** `rateAiBps` → `RATE_AI_BPS`: the node matches CC_* names case- and underscore-blind. */
export function paramEnvName(param: string): string {
  return `CC_${param.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}`;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export function deployPlan(scenarioPath: string, sets: readonly string[] = []): DeployPlan {
  const abs = resolve(scenarioPath);
  if (!existsSync(abs)) throw new ConfigError('', `no such scenario file: ${scenarioPath}`);
  const scenario = loadScenario(abs, sets);
  const setup = setupRun(scenario);
  const params = new Map(listAlgorithms().map((a) => [a.name, a.params.map((p) => paramEnvName(p.name))]));
  const nodes: DeployNode[] = [];
  for (const n of [...setup.topo.switches, ...setup.topo.hosts]) {
    if (!DNS_LABEL.test(n.name))
      throw new ConfigError(
        'topology',
        `node name "${n.name}" cannot be a service or DNS name (lower-case letters, digits, inner "-")`,
      );
    if (n.kind === 'switch') nodes.push({ name: n.name, role: 'switch' });
    else {
      const cc = nicFor(scenario, n.name).cc;
      nodes.push({ name: n.name, role: 'host', cc, ccParamEnv: params.get(cc) ?? [] });
    }
  }
  const sideFiles = new Map<string, string>();
  for (const [i, w] of scenario.workload.entries()) {
    if (w.kind !== 'poisson' || w.cdfFile === null || isAbsolute(w.cdf)) continue;
    if (w.cdf.includes('/') || w.cdf === 'scenario.yaml')
      throw new ConfigError(
        `workload[${i}].cdf`,
        `${w.cdf}: a deployment copies files named beside the scenario only; move it next to the scenario file`,
      );
    sideFiles.set(w.cdf, w.cdfFile);
  }
  const rel = relative(packageRoot(), abs);
  const shipped = !rel.startsWith('..') && /^(deploy\/)?scenarios\//.test(rel);
  return {
    scenario,
    scenarioPath: abs,
    imagePath: shipped ? `${IMAGE_APP_DIR}/${rel}` : null,
    nodes,
    sets: [...sets],
    sideFiles,
  };
}

/** A Kubernetes / compose friendly name from the scenario's name. */
export function projectName(s: Scenario): string {
  const n = s.name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return n === '' ? 'rocelab' : n;
}

// --------------------------------------------------------------------------------------------
// Addresses

export interface Subnet {
  base: number;
  prefix: number;
}

export function ipToInt(ip: string): number {
  return ip.split('.').reduce((a, b) => a * 256 + Number(b), 0);
}

export function intToIp(x: number): string {
  return [x >>> 24, (x >>> 16) & 255, (x >>> 8) & 255, x & 255].join('.');
}

export function parseSubnet(cidr: string): Subnet {
  const m = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/.exec(cidr.trim());
  if (m === null) throw new ConfigError('--subnet', `expected a.b.c.d/len, got ${JSON.stringify(cidr)}`);
  const prefix = Number(m[2]);
  const base = ipToInt(m[1]);
  const lo = ipToInt('198.18.0.0');
  const size = 2 ** (32 - prefix);
  if (prefix < 15 || prefix > 29 || base % size !== 0 || base < lo || base + size > lo + 2 ** 17)
    throw new ConfigError('--subnet', `${cidr} must be an aligned /15…/29 inside 198.18.0.0/15`);
  return { base, prefix };
}

export interface AddressPlan {
  subnet: string;
  prometheus: string;
  grafana: string;
  traffic: string;
  /** Node name → address. */
  nodes: Map<string, string>;
}

const decadeAfter = (x: number) => Math.ceil((x + 1) / 10) * 10;

/**
 * Fixed addresses: .2 Prometheus, .3 Grafana; hosts from .11, switches from the next ten after
 * the last host, the traffic job on the ten after the last switch (the mini testbed's h1–h4 =
 * .11–.14, s1, s2 = .21, .22, traffic .30). Default subnet 198.18.200.0/24, or the /20
 * 198.18.208.0/20 when the nodes do not fit in a /24.
 */
export function allocateAddresses(plan: DeployPlan, subnet?: string): AddressPlan {
  const hosts = plan.nodes.filter((n) => n.role === 'host');
  const switches = plan.nodes.filter((n) => n.role === 'switch');
  const lastHost = 10 + hosts.length;
  const firstSwitch = decadeAfter(lastHost) + 1;
  const lastSwitch = firstSwitch + switches.length - 1;
  const traffic = decadeAfter(lastSwitch);
  const sn = parseSubnet(subnet ?? (traffic < 254 ? '198.18.200.0/24' : '198.18.208.0/20'));
  const size = 2 ** (32 - sn.prefix);
  if (traffic >= size - 1)
    throw new ConfigError('--subnet', `${plan.nodes.length} nodes do not fit in /${sn.prefix}`);
  const at = (off: number) => intToIp(sn.base + off);
  const nodes = new Map<string, string>();
  for (const [i, h] of hosts.entries()) nodes.set(h.name, at(11 + i));
  for (const [i, s] of switches.entries()) nodes.set(s.name, at(firstSwitch + i));
  return {
    subnet: `${intToIp(sn.base)}/${sn.prefix}`,
    prometheus: at(2),
    grafana: at(3),
    traffic: at(traffic),
    nodes,
  };
}
