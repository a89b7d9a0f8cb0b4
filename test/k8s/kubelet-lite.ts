/**
 * kubelet-lite: runs the pods of a rendered `rocelab deploy k8s` directory without a cluster,
 * each as a process in its own network namespace, as faithfully as the manifests allow:
 *
 * - Network: one bridge, a veth per pod (`eth0` inside its namespace) with an address from a
 *   198.18.0.0/15 subnet, default route via the bridge (the host's address on it).
 * - Names: `/etc/netns/<ns>/hosts` (which `ip netns exec` mounts over /etc/hosts) answers what
 *   the headless Service would: `<hostname>.<subdomain>` and the fully qualified form, for every
 *   pod the Service selects, ready or not (publishNotReadyAddresses).
 * - Process: the container's command + args with its env (plus PATH, as an image's ENV would
 *   give it), under `setpriv` with exactly the capabilities the manifest grants (it must drop
 *   ALL; only `add` is granted) and no_new_privs when allowPrivilegeEscalation is false.
 * - Files: ConfigMap volumes are written to a directory per pod. The processes see host paths,
 *   so the image's /app and each mountPath are mapped onto the repository and those directories
 *   in command, args and env values (the one liberty this harness takes; docs/deploy.md).
 * - Probes: readiness is an HTTP GET like the kubelet's, on demand.
 *
 * Everything it creates carries its prefix, and down() removes it all, processes first.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, parse as parseYaml } from 'yaml';

// biome-ignore lint/suspicious/noExplicitAny: manifests are plain parsed YAML
type Obj = any;

export interface LitePod {
  /** Object name (Pod name, or the Job's name for its template). */
  name: string;
  kind: 'Pod' | 'Job';
  hostname: string;
  subdomain: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  container: Obj;
  volumes: Obj[];
}

export interface Manifests {
  namespace: string;
  service: { name: string; selector: Record<string, string>; publishNotReadyAddresses: boolean };
  pods: LitePod[];
  /** ConfigMap name → file name → content (from the configMapGenerator). */
  configMaps: Map<string, Map<string, string>>;
}

/** Read a kustomize directory as `rocelab deploy k8s` writes it (resources + configMapGenerator). */
export function loadManifests(dir: string): Manifests {
  const kust = parseYaml(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as Obj;
  const objs: Obj[] = (kust.resources as string[]).flatMap((f) =>
    parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJS()),
  );
  const configMaps = new Map<string, Map<string, string>>();
  for (const g of kust.configMapGenerator ?? [])
    configMaps.set(
      g.name,
      new Map((g.files as string[]).map((f) => [f, readFileSync(join(dir, f), 'utf8')])),
    );
  const svc = objs.find((o) => o.kind === 'Service');
  if (svc === undefined) throw new Error('no Service in the manifests');
  const pods: LitePod[] = [];
  for (const o of objs) {
    const spec = o.kind === 'Pod' ? o.spec : o.kind === 'Job' ? o.spec.template.spec : null;
    if (spec === null) continue;
    const meta = o.kind === 'Pod' ? o.metadata : o.spec.template.metadata;
    if (spec.containers.length !== 1)
      throw new Error(`${o.metadata.name}: kubelet-lite runs one container per pod`);
    pods.push({
      name: o.metadata.name,
      kind: o.kind,
      hostname: spec.hostname,
      subdomain: spec.subdomain,
      labels: meta.labels ?? {},
      annotations: meta.annotations ?? {},
      container: spec.containers[0],
      volumes: spec.volumes ?? [],
    });
  }
  return {
    namespace: kust.namespace ?? 'default',
    service: {
      name: svc.metadata.name,
      selector: svc.spec.selector,
      publishNotReadyAddresses: svc.spec.publishNotReadyAddresses === true,
    },
    pods,
    configMaps,
  };
}

/** `setpriv` arguments for a container's securityContext. */
export function setprivArgs(container: Obj): string[] {
  const sc = container.securityContext ?? {};
  if (sc.privileged === true) throw new Error(`${container.name}: privileged containers are refused`);
  const drop: string[] = sc.capabilities?.drop ?? [];
  if (!drop.includes('ALL')) throw new Error(`${container.name}: kubelet-lite needs capabilities.drop [ALL]`);
  const add: string[] = sc.capabilities?.add ?? [];
  const caps = ['-all', ...add.map((c) => `+${c.toLowerCase()}`)].join(',');
  return [
    '--bounding-set',
    caps,
    '--inh-caps',
    caps,
    ...(sc.allowPrivilegeEscalation === false ? ['--no-new-privs'] : []),
    '--',
  ];
}

function sh(cmd: string, args: string[]): { status: number; out: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  return { status: r.status ?? 1, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

function must(cmd: string, args: string[]): string {
  const r = sh(cmd, args);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.out.trim()}`);
  return r.out;
}

export interface RunningPod {
  pod: LitePod;
  ns: string;
  ip: string;
  proc: ChildProcess;
  logFile: string;
  exit: Promise<number | null>;
}

export class KubeletLite {
  readonly bridge: string;
  /** An iptables FORWARD accept rule for the bridge was added (removed at the end). */
  private forwardRule = false;
  readonly gatewayIp: string;
  readonly pods: RunningPod[] = [];
  private readonly nsList: string[] = [];
  private readonly veths: string[] = [];

  /**
   * @param prefix short tag for every namespace, link and /etc/netns dir (≤ 6 chars)
   * @param subnet a /24 base inside 198.18.0.0/15, e.g. "198.19.64"
   */
  constructor(private readonly o: { prefix: string; subnet: string; repoRoot: string; workDir: string }) {
    this.bridge = `${o.prefix}br`;
    this.gatewayIp = `${o.subnet}.1`;
  }

  /** Namespaces, veths, bridge and hosts files for every pod; then start them all. */
  async up(m: Manifests): Promise<void> {
    must('ip', ['link', 'add', this.bridge, 'type', 'bridge']);
    must('ip', ['addr', 'add', `${this.gatewayIp}/24`, 'dev', this.bridge]);
    must('ip', ['link', 'set', this.bridge, 'up']);
    // A docker engine that ran on this host leaves iptables' FORWARD policy at DROP, which (with
    // br_netfilter) drops traffic between the pods on our bridge: accept it, as a CNI would.
    if (sh('iptables', ['-S', 'FORWARD']).status === 0) {
      sh('iptables', ['-I', 'FORWARD', '-i', this.bridge, '-o', this.bridge, '-j', 'ACCEPT']);
      this.forwardRule = true;
    }
    const ips = m.pods.map((_, i) => `${this.o.subnet}.${10 + i}`);
    // What the headless Service publishes: every selected pod, ready or not.
    const selected = (p: LitePod) => Object.entries(m.service.selector).every(([k, v]) => p.labels[k] === v);
    if (!m.service.publishNotReadyAddresses)
      throw new Error('the Service does not publish not-ready pods: peers would not resolve at the gate');
    const hosts = ['127.0.0.1 localhost'];
    m.pods.forEach((p, i) => {
      if (p.subdomain !== m.service.name || !selected(p)) return;
      const fq = `${p.hostname}.${p.subdomain}`;
      hosts.push(`${ips[i]} ${fq} ${fq}.${m.namespace}.svc.cluster.local`);
    });
    for (const [i, p] of m.pods.entries()) {
      const ns = `${this.o.prefix}-${p.hostname}`;
      const hostSide = `${this.o.prefix}v${i}`;
      must('ip', ['netns', 'add', ns]);
      this.nsList.push(ns);
      must('ip', ['link', 'add', hostSide, 'type', 'veth', 'peer', 'name', `${hostSide}p`]);
      this.veths.push(hostSide);
      must('ip', ['link', 'set', hostSide, 'master', this.bridge, 'up']);
      must('ip', ['link', 'set', `${hostSide}p`, 'netns', ns]);
      must('ip', ['-n', ns, 'link', 'set', `${hostSide}p`, 'name', 'eth0']);
      must('ip', ['-n', ns, 'addr', 'add', `${ips[i]}/24`, 'dev', 'eth0']);
      must('ip', ['-n', ns, 'link', 'set', 'eth0', 'up']);
      must('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
      must('ip', ['-n', ns, 'route', 'add', 'default', 'via', this.gatewayIp]);
      mkdirSync(`/etc/netns/${ns}`, { recursive: true });
      // The pod's own name is its hostname (as a kubelet writes the pod's /etc/hosts).
      writeFileSync(`/etc/netns/${ns}/hosts`, `${[...hosts, `${ips[i]} ${p.hostname}`].join('\n')}\n`);
    }
    for (const [i, p] of m.pods.entries()) this.start(p, `${this.o.prefix}-${p.hostname}`, ips[i], m);
  }

  private start(p: LitePod, ns: string, ip: string, m: Manifests): void {
    const c = p.container;
    const podDir = join(this.o.workDir, p.hostname);
    mkdirSync(podDir, { recursive: true });
    // Volume mounts → host directories; /app → the repository (the image's WORKDIR).
    const mapping: [string, string][] = [['/app', this.o.repoRoot]];
    for (const vm of c.volumeMounts ?? []) {
      const vol = p.volumes.find((v) => v.name === vm.name);
      const files = vol?.configMap !== undefined ? m.configMaps.get(vol.configMap.name) : undefined;
      if (files === undefined) throw new Error(`${p.name}: volume ${vm.name} is not a generated ConfigMap`);
      const dir = join(podDir, vm.name);
      mkdirSync(dir, { recursive: true });
      for (const [f, text] of files) writeFileSync(join(dir, f), text);
      mapping.push([vm.mountPath, dir]);
    }
    const mapPath = (s: string) => {
      for (const [from, to] of mapping)
        if (s === from || s.startsWith(`${from}/`)) return to + s.slice(from.length);
      return s;
    };
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOSTNAME: p.hostname };
    for (const e of c.env ?? []) env[e.name] = mapPath(String(e.value ?? ''));
    const argv = [...(c.command ?? []), ...(c.args ?? [])].map(mapPath);
    const logFile = join(podDir, 'log');
    const fd = openSync(logFile, 'a');
    const proc = spawn('ip', ['netns', 'exec', ns, 'setpriv', ...setprivArgs(c), ...argv], {
      env,
      stdio: ['ignore', fd, fd],
      detached: true,
    });
    closeSync(fd);
    const exit = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    this.pods.push({ pod: p, ns, ip, proc, logFile, exit });
  }

  /** The kubelet's readiness check: HTTP GET on the probe's path and (named) port. */
  async ready(rp: RunningPod): Promise<boolean> {
    const probe = rp.pod.container.readinessProbe?.httpGet;
    if (probe === undefined) return true;
    const port =
      typeof probe.port === 'number'
        ? probe.port
        : (rp.pod.container.ports as Obj[]).find((x) => x.name === probe.port)?.containerPort;
    try {
      const r = await fetch(`http://${rp.ip}:${port}${probe.path}`, { signal: AbortSignal.timeout(2000) });
      await r.arrayBuffer();
      return r.ok;
    } catch {
      return false;
    }
  }

  log(rp: RunningPod): string {
    return existsSync(rp.logFile) ? readFileSync(rp.logFile, 'utf8') : '';
  }

  /** Stop every process (SIGTERM, then SIGKILL), delete namespaces, veths, bridge and hosts files. */
  async down(): Promise<string[]> {
    const problems: string[] = [];
    for (const rp of this.pods) {
      try {
        if (rp.proc.exitCode === null && rp.proc.pid !== undefined) process.kill(-rp.proc.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    const deadline = Date.now() + 5000;
    for (const rp of this.pods) {
      await Promise.race([rp.exit, new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now())))]);
      try {
        if (rp.proc.exitCode === null && rp.proc.pid !== undefined) process.kill(-rp.proc.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    for (const ns of this.nsList) {
      // Anything left inside the namespace (a process that left the group).
      for (const pid of sh('ip', ['netns', 'pids', ns])
        .out.split(/\s+/)
        .filter((x) => /^\d+$/.test(x)))
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {
          // gone
        }
      const r = sh('ip', ['netns', 'del', ns]);
      if (r.status !== 0) problems.push(`netns del ${ns}: ${r.out.trim()}`);
      rmSync(`/etc/netns/${ns}`, { recursive: true, force: true });
    }
    for (const v of this.veths) sh('ip', ['link', 'del', v]);
    if (this.forwardRule)
      sh('iptables', ['-D', 'FORWARD', '-i', this.bridge, '-o', this.bridge, '-j', 'ACCEPT']);
    const b = sh('ip', ['link', 'del', this.bridge]);
    if (b.status !== 0 && !/Cannot find device/.test(b.out))
      problems.push(`link del ${this.bridge}: ${b.out.trim()}`);
    return problems;
  }
}

/** Leftovers of an earlier run with this prefix (a crashed test): removed before starting. */
export function sweepPrefix(prefix: string): void {
  for (const line of sh('ip', ['netns', 'list']).out.split('\n')) {
    const ns = line.split(' ')[0];
    if (ns.startsWith(`${prefix}-`)) {
      sh('ip', ['netns', 'del', ns]);
      rmSync(`/etc/netns/${ns}`, { recursive: true, force: true });
    }
  }
  sh('ip', ['link', 'del', `${prefix}br`]);
}
