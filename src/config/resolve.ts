/**
 * Stage 2 of scenario loading: fill defaults that depend on other keys and check that the
 * scenario makes sense as a whole. Throws ConfigError naming the key at fault.
 */
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { checkCollectiveJobs, resolveCollective } from './collective.js';
import { ConfigError, formatPath, suggest } from './errors.js';
import {
  BUILTIN_CDFS,
  type CcSection,
  type EcnConfig,
  type LinkOverride,
  type LinkOverrideParams,
  type LinkParams,
  type LinkTrimOverride,
  type NicParams,
  type ParsedScenario,
  type PfcConfig,
  type Scenario,
  type ScenarioProbes,
  type TopologySpec,
  type TrimParams,
  type WorkloadSpec,
} from './scenario.js';
import { checkUetCombinations, rcccSettings } from './uet.js';
import { formatDuration, formatSize, parseRate, showValue } from './units.js';

type Path = ReadonlyArray<string | number>;

function fail(path: Path, detail: string): never {
  throw new ConfigError(formatPath(path), detail);
}

export interface ResolveOptions {
  /** Scenario file (for the default name and relative paths); null for inline text. */
  file: string | null;
  /** Directory relative paths are resolved against. */
  dir: string;
  /** Whether a file exists (CDF files); default: do not check. */
  fileExists?: (path: string) => boolean;
}

type RawLink = { rate?: number; delay?: number; loss?: number } | undefined;
type RawLinkEntry = ParsedScenario['links'][number];

function overlay(base: LinkParams, o: RawLink): LinkParams {
  return {
    rateBps: o?.rate ?? base.rateBps,
    delayNs: o?.delay ?? base.delayNs,
    loss: o?.loss ?? base.loss,
  };
}

function overrideParams(o: RawLink): LinkOverrideParams {
  const out: LinkOverrideParams = {};
  if (o?.rate !== undefined) out.rateBps = o.rate;
  if (o?.delay !== undefined) out.delayNs = o.delay;
  if (o?.loss !== undefined) out.loss = o.loss;
  return out;
}

/** Host and switch names of a resolved topology, in the builders' order (src/topology/build.ts). */
export function topologyNodeNames(t: TopologySpec): { hosts: string[]; switches: string[] } {
  const seq = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);
  switch (t.kind) {
    case 'star':
      return { hosts: seq('h', t.hosts), switches: ['s1'] };
    case 'dumbbell':
      return { hosts: seq('h', t.left + t.right), switches: ['s1', 's2'] };
    case 'leafspine':
      return { hosts: seq('h', t.leaves * t.hostsPerLeaf), switches: seq('s', t.leaves + t.spines) };
    case 'fattree': {
      const tors = t.pods * t.torsPerPod;
      const aggs = t.pods * t.aggsPerPod;
      const cores = t.aggsPerPod * t.coreUplinksPerAgg;
      return { hosts: seq('h', tors * t.hostsPerTor), switches: seq('s', tors + aggs + cores) };
    }
    case 'explicit':
      return {
        hosts: t.nodes.filter((n) => n.kind === 'host').map((n) => n.name),
        switches: t.nodes.filter((n) => n.kind === 'switch').map((n) => n.name),
      };
  }
}

/** The HPCC simulator's mix/fat.txt shape (used when a fattree gives neither k nor a shape). */
const HPCC_FAT = { pods: 5, torsPerPod: 4, aggsPerPod: 4, hostsPerTor: 16, coreUplinksPerAgg: 4 };
/** Guard against typos like `k: 640` that would build millions of nodes. */
const MAX_HOSTS = 1_000_000;

function resolveTopology(p: ParsedScenario, base: LinkParams): TopologySpec {
  const t = p.topology;
  switch (t.kind) {
    case 'star':
      return { kind: 'star', hosts: t.hosts, link: overlay(base, t.link) };
    case 'dumbbell': {
      const link = overlay(base, t.link);
      return {
        kind: 'dumbbell',
        left: t.left,
        right: t.right,
        link,
        bottleneck: overlay(link, t.bottleneck),
      };
    }
    case 'leafspine': {
      const hostLink = overlay(base, t.link);
      return {
        kind: 'leafspine',
        leaves: t.leaves,
        spines: t.spines,
        hostsPerLeaf: t.hostsPerLeaf,
        hostLink,
        fabricLink: overlay(hostLink, t.uplink),
      };
    }
    case 'fattree': {
      const hostLink = overlay(base, t.link);
      const fabricLink = overlay(hostLink, t.fabric);
      const shapeKeys = ['pods', 'torsPerPod', 'aggsPerPod', 'hostsPerTor', 'coreUplinksPerAgg'] as const;
      if (t.k !== undefined) {
        if (t.k % 2 !== 0) fail(['topology', 'k'], `expected an even integer ≥ 2, got ${t.k}`);
        const given = shapeKeys.find((key) => t[key] !== undefined);
        if (given !== undefined) fail(['topology', given], 'give either k or an explicit shape, not both');
        const h = t.k / 2;
        return {
          kind: 'fattree',
          k: t.k,
          pods: t.k,
          torsPerPod: h,
          aggsPerPod: h,
          hostsPerTor: h,
          coreUplinksPerAgg: h,
          hostLink,
          fabricLink,
        };
      }
      return {
        kind: 'fattree',
        k: null,
        pods: t.pods ?? HPCC_FAT.pods,
        torsPerPod: t.torsPerPod ?? HPCC_FAT.torsPerPod,
        aggsPerPod: t.aggsPerPod ?? HPCC_FAT.aggsPerPod,
        hostsPerTor: t.hostsPerTor ?? HPCC_FAT.hostsPerTor,
        coreUplinksPerAgg: t.coreUplinksPerAgg ?? HPCC_FAT.coreUplinksPerAgg,
        hostLink,
        fabricLink,
      };
    }
    case 'explicit':
      return resolveExplicit(t, overlay(base, t.link));
  }
}

function resolveExplicit(
  t: Extract<ParsedScenario['topology'], { kind: 'explicit' }>,
  link: LinkParams,
): TopologySpec {
  const kinds = new Map<string, 'host' | 'switch'>();
  const nodes = t.nodes.map((n, i) => {
    let kind = n.kind;
    if (kind === undefined) {
      if (/^h\d/.test(n.name)) kind = 'host';
      else if (/^s\d|^sw/.test(n.name)) kind = 'switch';
      else
        fail(
          ['topology', 'nodes', i],
          `cannot tell whether "${n.name}" is a host or a switch; write { name: ${n.name}, kind: host }`,
        );
    }
    if (kinds.has(n.name)) fail(['topology', 'nodes', i], `duplicate node name "${n.name}"`);
    kinds.set(n.name, kind);
    return { name: n.name, kind };
  });
  const degree = new Map<string, number>();
  const adj = new Map<string, string[]>();
  const links = t.links.map((l, i) => {
    for (const end of ['a', 'b'] as const) {
      if (!kinds.has(l[end]))
        fail(['topology', 'links', i, end], unknownName('node', l[end], [...kinds.keys()]));
    }
    if (l.a === l.b) fail(['topology', 'links', i], `a node cannot link to itself (${l.a})`);
    for (const end of [l.a, l.b]) {
      const d = (degree.get(end) ?? 0) + 1;
      degree.set(end, d);
      if (kinds.get(end) === 'host' && d > 1)
        fail(['topology', 'links', i], `host ${end} has more than one link (hosts have exactly one port)`);
    }
    adj.set(l.a, [...(adj.get(l.a) ?? []), l.b]);
    adj.set(l.b, [...(adj.get(l.b) ?? []), l.a]);
    return { a: l.a, b: l.b, ...overlay(link, l) };
  });
  const hosts = nodes.filter((n) => n.kind === 'host');
  for (const n of nodes) {
    if (!degree.has(n.name)) fail(['topology', 'nodes', nodes.indexOf(n)], `${n.kind} ${n.name} has no link`);
  }
  // Every host must reach every other host.
  if (hosts.length > 0) {
    const seen = new Set([hosts[0].name]);
    const stack = [hosts[0].name];
    while (stack.length > 0) {
      for (const next of adj.get(stack.pop()!) ?? []) {
        if (!seen.has(next)) {
          seen.add(next);
          stack.push(next);
        }
      }
    }
    const cut = hosts.find((h) => !seen.has(h.name));
    if (cut !== undefined) fail(['topology'], `host ${cut.name} cannot reach host ${hosts[0].name}`);
  }
  return { kind: 'explicit', nodes, links, link };
}

function unknownName(what: string, name: string, known: string[]): string {
  const s = suggest(name, known);
  return `unknown ${what} "${name}"${s !== undefined ? ` (did you mean ${s}?)` : ''}`;
}

/** `h1..h9`, or the first few names. */
function describeHosts(hosts: string[]): string {
  if (hosts.length === 0) return 'no hosts';
  const generated = hosts.every((h, i) => h === `h${i + 1}`);
  if (generated) return hosts.length === 1 ? 'h1' : `h1..h${hosts.length}`;
  return hosts.length <= 6 ? hosts.join(', ') : `${hosts.slice(0, 5).join(', ')}, …`;
}

const RANGE = /^([A-Za-z_-]*)(\d+)\.\.([A-Za-z_-]*)(\d+)$/;

function resolveEcn(p: ParsedScenario['defaults']['switch']['ecn']): EcnConfig {
  const path = ['defaults', 'switch', 'ecn'];
  const check = (kmin: number, kmax: number, at: Path) => {
    if (kmin > kmax) fail(at, `kmin (${formatSize(kmin)}) must not exceed kmax (${formatSize(kmax)})`);
  };
  check(p.kmin, p.kmax, path);
  const byRate = Object.entries(p.byRate).map(([key, v]) => {
    const rateBps = parseRate(key);
    if (rateBps === null || !(rateBps > 0))
      fail([...path, 'byRate', key], `expected a rate like 100Gbps as the key, got ${showValue(key)}`);
    check(v.kmin, v.kmax, [...path, 'byRate', key]);
    return { rateBps, kminBytes: v.kmin, kmaxBytes: v.kmax, pmax: v.pmax };
  });
  return {
    enabled: p.enabled,
    hostPorts: p.hostPorts,
    kminBytes: p.kmin,
    kmaxBytes: p.kmax,
    pmax: p.pmax,
    markAt: p.markAt,
    byRate: byRate.sort((a, b) => a.rateBps - b.rateBps),
  };
}

function resolvePfc(p: ParsedScenario['defaults']['switch']['pfc'], bufferBytes: number): PfcConfig {
  const path = ['defaults', 'switch', 'pfc'];
  const dynamic = p.dynamic ?? p.threshold === undefined;
  if (!dynamic && p.threshold === undefined) fail([...path, 'threshold'], 'required when dynamic is false');
  if (dynamic && p.threshold !== undefined)
    fail([...path, 'threshold'], 'a static threshold cannot be combined with dynamic: true');
  if (p.threshold !== undefined) {
    if (p.resumeOffset >= p.threshold)
      fail(
        [...path, 'resumeOffset'],
        `must be smaller than threshold (${formatSize(p.threshold)}), got ${formatSize(p.resumeOffset)}`,
      );
    if (p.threshold > bufferBytes)
      fail(
        [...path, 'threshold'],
        `${formatSize(p.threshold)} exceeds the switch buffer (${formatSize(bufferBytes)})`,
      );
  }
  return {
    enabled: p.enabled,
    dynamic,
    shift: p.shift,
    thresholdBytes: p.threshold ?? null,
    headroomBytes: p.headroom ?? null,
    resumeOffsetBytes: p.resumeOffset,
    reserveBytes: p.reserve,
    priorities: p.priorities === undefined ? null : [...new Set(p.priorities)].sort((a, b) => a - b),
  };
}

function resolveTrim(p: ParsedScenario['defaults']['switch']['trim']): TrimParams {
  const path = ['defaults', 'switch', 'trim'];
  if (p.kmin !== undefined && p.kmax !== undefined && p.kmin > p.kmax)
    fail([...path, 'kmin'], `kmin (${formatSize(p.kmin)}) must not exceed kmax (${formatSize(p.kmax)})`);
  if (p.kmax !== undefined && p.queueBytes !== undefined && p.kmax > p.queueBytes)
    fail(
      [...path, 'kmax'],
      `kmax (${formatSize(p.kmax)}) exceeds queueBytes (${formatSize(p.queueBytes)}): the queue trims before RED marks everything`,
    );
  return {
    enabled: p.enabled,
    queueBytes: p.queueBytes ?? null,
    headerQueueBytes: p.headerQueueBytes ?? null,
    kminBytes: p.kmin ?? null,
    kmaxBytes: p.kmax ?? null,
    pmax: p.pmax,
  };
}

function nicOverrides(o: ParsedScenario['hosts'][string]): Partial<NicParams> {
  const out: Partial<NicParams> = {};
  if (o.cc !== undefined) out.cc = o.cc;
  if (o.mtu !== undefined) out.mtuBytes = o.mtu;
  if (o.ackEvery !== undefined) out.ackEvery = o.ackEvery;
  if (o.rto !== undefined) out.rtoNs = o.rto;
  if (o.cnpInterval !== undefined) out.cnpIntervalNs = o.cnpInterval;
  if (o.dataPrio !== undefined) out.dataPrio = o.dataPrio;
  if (o.ackPrio !== undefined) out.ackPrio = o.ackPrio;
  if (o.controlPrio !== undefined) out.controlPrio = o.controlPrio;
  if (o.transport !== undefined) out.transport = o.transport;
  if (o.paths !== undefined) out.paths = o.paths;
  if (o.reorderWindow !== undefined) out.reorderWindow = o.reorderWindow;
  if (o.sackBytes !== undefined) out.sackBytes = o.sackBytes;
  if (o.reorderThreshold !== undefined)
    out.reorderThreshold = o.reorderThreshold === 'off' ? null : o.reorderThreshold;
  if (o.rccc !== undefined) out.rccc = rcccSettings(o.rccc);
  return out;
}

/** RTO and reorder threshold of a transport when not set (docs/scenario.md names the sources). */
function transportDefaults(
  transport: NicParams['transport'],
  rto: number | undefined,
  threshold: number | 'bdp' | 'off' | undefined,
): Pick<NicParams, 'rtoNs' | 'reorderThreshold'> {
  return {
    rtoNs: rto ?? (transport === 'uet' ? 100_000 : 1_000_000),
    reorderThreshold:
      threshold === undefined ? (transport === 'uet' ? null : 'bdp') : threshold === 'off' ? null : threshold,
  };
}

function resolveCc(p: ParsedScenario['cc']): Record<string, CcSection> {
  const out: Record<string, CcSection> = {};
  for (const [algo, section] of Object.entries(p)) {
    const { profile, ...params } = section;
    if (profile !== undefined && (typeof profile !== 'string' || profile === ''))
      fail(['cc', algo, 'profile'], `expected a profile name, got ${showValue(profile)}`);
    out[algo] = { profile: (profile as string | undefined) ?? null, params };
  }
  return out;
}

export function resolveScenario(p: ParsedScenario, opts: ResolveOptions): Scenario {
  const durationNs = p.duration;
  const sampleIntervalNs = p.sampleInterval ?? Math.max(1, Math.round(durationNs / 2000));
  if (sampleIntervalNs > durationNs)
    fail(
      ['sampleInterval'],
      `${formatDuration(sampleIntervalNs)} is longer than the run (duration ${formatDuration(durationNs)})`,
    );

  const d = p.defaults;
  const link: LinkParams = { rateBps: d.link.rate, delayNs: d.link.delay, loss: d.link.loss };
  const nic: NicParams = {
    cc: d.nic.cc,
    mtuBytes: d.nic.mtu,
    ackEvery: d.nic.ackEvery,
    cnpIntervalNs: d.nic.cnpInterval,
    dataPrio: d.nic.dataPrio,
    ackPrio: d.nic.ackPrio ?? d.nic.controlPrio,
    controlPrio: d.nic.controlPrio,
    transport: d.nic.transport,
    paths: d.nic.paths,
    reorderWindow: d.nic.reorderWindow,
    sackBytes: d.nic.sackBytes,
    ...transportDefaults(d.nic.transport, d.nic.rto, d.nic.reorderThreshold),
    rccc: rcccSettings(d.nic.rccc),
  };
  const sw = {
    bufferBytes: d.switch.buffer,
    queues: d.switch.queues,
    ecn: resolveEcn(d.switch.ecn),
    pfc: resolvePfc(d.switch.pfc, d.switch.buffer),
    int: d.switch.int,
    intRates: d.switch.intRates,
    trim: resolveTrim(d.switch.trim),
  };
  for (const q of sw.pfc.priorities ?? []) {
    if (q >= sw.queues)
      fail(
        ['defaults', 'switch', 'pfc', 'priorities'],
        `priority ${q} needs at least ${q + 1} switch queues (defaults.switch.queues is ${sw.queues})`,
      );
  }
  for (const key of ['dataPrio', 'ackPrio', 'controlPrio'] as const) {
    if (nic[key] >= sw.queues)
      fail(
        ['defaults', 'nic', key],
        `priority ${nic[key]} needs at least ${nic[key] + 1} switch queues (defaults.switch.queues is ${sw.queues})`,
      );
  }

  const topology = resolveTopology(p, link);
  const { hosts: hostNames, switches } = topologyNodeNames(topology);
  if (hostNames.length < 2) fail(['topology'], `needs at least 2 hosts, got ${hostNames.length}`);
  if (hostNames.length > MAX_HOSTS)
    fail(['topology'], `${hostNames.length} hosts is more than the ${MAX_HOSTS} supported`);
  const hostSet = new Set(hostNames);
  const nodeSet = new Set([...hostNames, ...switches]);

  const checkHost = (h: string, path: Path) => {
    if (!hostSet.has(h)) {
      const s = suggest(h, hostNames.length <= 10_000 ? hostNames : []);
      fail(
        path,
        `unknown host "${h}" (topology has ${describeHosts(hostNames)}${s ? `; did you mean ${s}?` : ''})`,
      );
    }
  };

  const hosts: Record<string, Partial<NicParams>> = {};
  for (const [h, o] of Object.entries(p.hosts)) {
    checkHost(h, ['hosts', h]);
    hosts[h] = nicOverrides(o);
    if (o.transport !== undefined)
      Object.assign(
        hosts[h],
        transportDefaults(o.transport, o.rto ?? d.nic.rto, o.reorderThreshold ?? d.nic.reorderThreshold),
      );
  }
  checkUetCombinations(nic, hosts, hostNames);
  if (sw.trim.enabled && sw.pfc.enabled) {
    // Trimming acts on lossy priorities only: a run where all data is lossless would trim nothing.
    const lossless = new Set(sw.pfc.priorities ?? [0, 1, 2, 3, 4, 5, 6, 7]);
    const dataPrios = new Set(hostNames.map((h) => hosts[h]?.dataPrio ?? nic.dataPrio));
    if ([...dataPrios].every((q) => lossless.has(q)))
      fail(
        ['defaults', 'switch', 'trim'],
        `trims only lossy priorities, but every host sends data on a lossless one (dataPrio ${[...dataPrios].join(', ')}); list the lossless priorities in defaults.switch.pfc.priorities, or set pfc: false`,
      );
  }

  const links: LinkOverride[] = p.links.map((l, i) => {
    for (const end of ['a', 'b'] as const) {
      if (!nodeSet.has(l[end]))
        fail(['links', i, end], unknownName('node', l[end], [...nodeSet].slice(0, 10_000)));
    }
    if (l.a === l.b) fail(['links', i], `a and b are both ${l.a}`);
    if (l.thresholds !== undefined && l.rate === undefined)
      fail(['links', i, 'thresholds'], 'needs rate (the thresholds follow a rate change)');
    const thresholds = l.thresholds !== undefined ? { thresholds: l.thresholds } : {};
    if (l.at === undefined) {
      if (l.down !== undefined) fail(['links', i, 'down'], 'needs at (at: 0 for a link down from the start)');
      if (l.oneWay === true && l.delay !== undefined)
        fail(
          ['links', i, 'delay'],
          'a one-way entry changes rate and loss only (a delay applies to both ways)',
        );
      const trim = l.trim === undefined ? undefined : linkTrim(l.trim, l, i);
      return {
        a: l.a,
        b: l.b,
        ...overrideParams(l),
        ...(l.oneWay === true ? { oneWay: true } : {}),
        ...(trim !== undefined ? { trim } : {}),
        ...thresholds,
      };
    }
    if (l.oneWay !== undefined || l.trim !== undefined)
      fail(['links', i, l.oneWay !== undefined ? 'oneWay' : 'trim'], 'cannot be combined with at');
    // A change at a time: the switches apply it (docs/switch.md "Link events").
    for (const key of ['delay', 'loss'] as const) {
      if (l[key] !== undefined) fail(['links', i, key], 'cannot change at a time (only rate and down can)');
    }
    if (l.rate === undefined && l.down === undefined) fail(['links', i], 'at needs rate or down');
    for (const end of ['a', 'b'] as const) {
      if (hostSet.has(l[end]))
        fail(
          ['links', i, end],
          `${l[end]} is a host: only links between switches change at a time (a NIC's line rate is fixed for the run)`,
        );
    }
    if (l.at >= durationNs)
      fail(
        ['links', i, 'at'],
        `${formatDuration(l.at)} is not before the end of the run (duration ${formatDuration(durationNs)})`,
      );
    return {
      a: l.a,
      b: l.b,
      ...overrideParams(l),
      atNs: l.at,
      ...(l.down !== undefined ? { down: l.down } : {}),
      ...thresholds,
    };
  });

  /** A link's own trimming queue: only where switches trim, only at switch egresses. */
  function linkTrim(t: NonNullable<RawLinkEntry['trim']>, l: RawLinkEntry, i: number): LinkTrimOverride {
    if (!sw.trim.enabled) fail(['links', i, 'trim'], 'needs trimming on (defaults.switch.trim)');
    for (const end of l.oneWay === true ? [l.a] : [l.a, l.b])
      if (hostSet.has(end))
        fail(['links', i, 'trim'], `${end} is a host: only a switch's egress has a trimming queue`);
    const out: LinkTrimOverride = {};
    if (t.queueBytes !== undefined) out.queueBytes = t.queueBytes;
    if (t.headerQueueBytes !== undefined) out.headerQueueBytes = t.headerQueueBytes;
    if (t.kmin !== undefined) out.kminBytes = t.kmin;
    if (t.kmax !== undefined) out.kmaxBytes = t.kmax;
    return out;
  }

  const expand = (sel: 'all' | string[], path: Path, exclude?: string): string[] => {
    if (sel === 'all') return hostNames.filter((h) => h !== exclude);
    const out: string[] = [];
    for (const item of sel) {
      const m = RANGE.exec(item);
      if (m !== null) {
        const [, p1, a, p2, b] = m;
        const lo = Number(a);
        const hi = Number(b);
        if (p1 !== p2 || lo > hi) fail(path, `bad host range "${item}" (write it like h1..h8)`);
        for (let i = lo; i <= hi; i++) out.push(`${p1}${i}`);
      } else out.push(item);
    }
    const seen = new Set<string>();
    for (const h of out) {
      checkHost(h, path);
      if (seen.has(h)) fail(path, `${h} is listed twice`);
      seen.add(h);
    }
    return out;
  };

  const checkStart = (startNs: number, path: Path) => {
    if (startNs >= durationNs)
      fail(
        path,
        `${formatDuration(startNs)} is not before the end of the run (duration ${formatDuration(durationNs)})`,
      );
  };

  const resolveWorkload = (w: ParsedScenario['workload'][number], i: number): WorkloadSpec => {
    const at = (...rest: Array<string | number>): Path => ['workload', i, ...rest];
    const tag = w.tag ?? null;
    switch (w.kind) {
      case 'flows':
        return {
          kind: 'flows',
          tag,
          flows: w.flows.map((f, j) => {
            checkHost(f.src, at('flows', j, 'src'));
            checkHost(f.dst, at('flows', j, 'dst'));
            if (f.src === f.dst) fail(at('flows', j), `src and dst are both ${f.src}`);
            checkStart(f.start, at('flows', j, 'start'));
            if (f.stop !== undefined && f.stop <= f.start)
              fail(at('flows', j, 'stop'), `must be after start (${formatDuration(f.start)})`);
            return {
              src: f.src,
              dst: f.dst,
              sizeBytes: f.size,
              startNs: f.start,
              stopNs: f.stop ?? null,
              verb: f.verb,
              count: f.count,
              messageBytes: f.messageSize ?? null,
              tag: f.tag ?? tag,
            };
          }),
        };
      case 'incast': {
        checkHost(w.receiver, at('receiver'));
        const senders = expand(w.senders, at('senders'), w.receiver);
        if (senders.includes(w.receiver)) fail(at('senders'), `the receiver ${w.receiver} is also a sender`);
        if (senders.length === 0) fail(at('senders'), 'no senders');
        checkStart(w.start, at('start'));
        if (w.count > 1 && w.interval === undefined) fail(at('interval'), 'required when count > 1');
        return {
          kind: 'incast',
          senders,
          receiver: w.receiver,
          sizeBytes: w.size,
          startNs: w.start,
          startSpreadNs: w.startSpread,
          flowsPerSender: w.flowsPerSender,
          count: w.count,
          intervalNs: w.interval ?? 0,
          verb: w.verb,
          messageBytes: w.messageSize ?? null,
          tag,
        };
      }
      case 'permutation': {
        const hs = expand(w.hosts, at('hosts'));
        if (hs.length < 2) fail(at('hosts'), `a permutation needs at least 2 hosts, got ${hs.length}`);
        checkStart(w.start, at('start'));
        return {
          kind: 'permutation',
          hosts: hs,
          sizeBytes: w.size,
          startNs: w.start,
          startSpreadNs: w.startSpread,
          flowsPerPair: w.flowsPerPair,
          verb: w.verb,
          messageBytes: w.messageSize ?? null,
          tag,
        };
      }
      case 'poisson': {
        const hs = expand(w.hosts, at('hosts'));
        const receivers = w.receivers === undefined ? null : expand(w.receivers, at('receivers'));
        if (receivers === null && hs.length < 2)
          fail(at('hosts'), `poisson traffic needs at least 2 hosts, got ${hs.length}`);
        if (receivers !== null) {
          if (hs.length === 0) fail(at('hosts'), 'no senders');
          for (const h of hs)
            if (receivers.every((r) => r === h)) fail(at('receivers'), `no receiver other than ${h} itself`);
        }
        checkStart(w.start, at('start'));
        const stopNs = w.stop ?? durationNs;
        if (stopNs <= w.start) fail(at('stop'), `must be after start (${formatDuration(w.start)})`);
        let cdfFile: string | null = null;
        if (!(BUILTIN_CDFS as readonly string[]).includes(w.cdf)) {
          if (!/[./\\]/.test(w.cdf)) {
            const s = suggest(w.cdf, BUILTIN_CDFS);
            fail(
              at('cdf'),
              `expected ${BUILTIN_CDFS.join(', ')} or a CDF file path, got ${showValue(w.cdf)}${s ? ` (did you mean ${s}?)` : ''}`,
            );
          }
          cdfFile = isAbsolute(w.cdf) ? w.cdf : resolvePath(opts.dir, w.cdf);
          if (opts.fileExists !== undefined && !opts.fileExists(cdfFile))
            fail(at('cdf'), `file not found: ${w.cdf}`);
        }
        return {
          kind: 'poisson',
          cdf: w.cdf,
          cdfFile,
          load: w.load,
          hosts: hs,
          receivers,
          sharedQp: w.sharedQp,
          startNs: w.start,
          stopNs,
          maxFlows: w.flows ?? null,
          verb: w.verb,
          messageBytes: w.messageSize ?? null,
          tag,
        };
      }
      case 'matrix': {
        const matrixFile = isAbsolute(w.file) ? w.file : resolvePath(opts.dir, w.file);
        if (opts.fileExists !== undefined && !opts.fileExists(matrixFile))
          fail(at('file'), `file not found: ${w.file}`);
        return {
          kind: 'matrix',
          file: w.file,
          matrixFile,
          hosts: expand(w.hosts, at('hosts')),
          verb: w.verb,
          messageBytes: w.messageSize ?? null,
          tag,
        };
      }
      case 'alltoall': {
        const hs = expand(w.hosts, at('hosts'));
        if (hs.length < 2) fail(at('hosts'), `alltoall needs at least 2 hosts, got ${hs.length}`);
        checkStart(w.start, at('start'));
        return {
          kind: 'alltoall',
          hosts: hs,
          messageBytes: w.messageSize,
          iterations: w.iterations,
          startNs: w.start,
          gapNs: w.gap,
          qpsPerPair: w.qpsPerPair,
          verb: w.verb,
          tag,
        };
      }
      case 'collective':
        return resolveCollective(w, i, { at, expand: (sel, path) => expand(sel, path), checkStart });
    }
  };
  const workload = p.workload.map(resolveWorkload);
  checkCollectiveJobs(workload);

  const base =
    opts.file === null ? null : (opts.file.split(/[\\/]/).pop() ?? '').replace(/\.(ya?ml|json)$/i, '');
  return {
    name: p.name ?? (base || 'scenario'),
    description: p.description ?? null,
    seed: p.seed,
    durationNs,
    timeScale: p.timeScale,
    sync: p.sync,
    train: p.train,
    timeWindow: p.timeWindow,
    inProcessLinks: p.inProcessLinks,
    processes: p.processes,
    realtimePriority: p.realtimePriority,
    sampleIntervalNs,
    defaults: { link, nic, switch: sw },
    cc: resolveCc(p.cc),
    hosts,
    topology,
    links,
    workload,
    hostNames,
    source: { file: opts.file, dir: opts.dir },
    ...(p.probes === undefined ? {} : { probes: resolveProbes(p.probes, topology) }),
    ...(p.variants === undefined ? {} : { variants: p.variants }),
  };
}

function resolveProbes(p: NonNullable<ParsedScenario['probes']>, topo: TopologySpec): ScenarioProbes {
  const qpState = p.qpState === undefined ? {} : { qpState: p.qpState };
  if (p.ports === 'all') return { binNs: p.bin, ports: 'all', flows: p.flows, ...qpState };
  const switches = topologyNodeNames(topo).switches;
  const ports = p.ports.map((r, i) => {
    if (!switches.includes(r.switch))
      fail(['probes', 'ports', i, 'switch'], unknownName('switch', r.switch, switches));
    return { node: r.switch, port: r.port };
  });
  return { binNs: p.bin, ports, flows: p.flows, ...qpState };
}
