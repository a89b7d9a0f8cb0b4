/**
 * Scenario (src/config) → the pieces every runtime needs: the topology with per-link overrides
 * applied, routes, the flows, and the NIC and switch configurations of every node.
 * Errors found here (bad topology, unknown algorithm or parameter, impossible workload) are
 * ConfigErrors, so the CLI exits 2 with one line.
 */
import type { CcSpec, NicConfig } from '../../nic/api.js';
import type { PortEvent, SwitchConfig, EcnConfig as SwitchEcn } from '../../switch/api.js';
import type { SwitchCpFactory } from '../../switch/cp.js';
import { CcConfigError, resolveCc } from '../cc/registry.js';
import { ConfigError } from '../config/errors.js';
import { nicFor, type Scenario, type TopologySpec } from '../config/scenario.js';
import { CC_TRANSPORTS } from '../config/uet.js';
import { createRng } from '../env/rng.js';
import { buildTopology, overrideLink, TopologyError, type TopologyParams } from '../topology/build.js';
import type { Topology, TopologyNode } from '../topology/model.js';
import { hostPath } from '../topology/path.js';
import { computeRoutes, type Routes } from '../topology/routing.js';
import { WorkloadError } from '../workload/cdf.js';
import { generateWorkload, type Workload } from '../workload/generate.js';
import { checkIntQueueRange, intLayoutOf, runIntMulti, runIntRates } from './int-setup.js';
import { LinkThresholds } from './link-thresholds.js';
import { rcccNicConfigs } from './rccc-setup.js';
import { linkTrimConfigs, switchTrimConfig } from './trim-setup.js';

export interface RunSetup {
  scenario: Scenario;
  topo: Topology;
  routes: Routes;
  workload: Workload;
  /** CC of every host (after a run-wide override). */
  ccByHost: Map<string, CcSpec>;
  /**
   * HPCC's INT_MULTI of the run: switches stamp HPCC-layout INT in its units and the real runtime
   * encodes and decodes the stack with it (docs/wire.md "INT stacks"); 1 when no host reads HPCC INT.
   */
  intMulti: number;
  /**
   * HPCC INT's line-rate table of the run (code → bit/s): switches stamp with it and the real
   * runtime encodes and decodes the stack with it (docs/wire.md "Rate codes").
   */
  intRatesBps: readonly number[];
  nicConfig(node: TopologyNode, base: Pick<NicConfig, 'name' | 'ip' | 'port'>): Omit<NicConfig, 'observer'>;
  switchConfig(
    node: TopologyNode,
    base: Pick<SwitchConfig, 'name' | 'id' | 'ports' | 'routes'>,
  ): SwitchConfig;
}

export interface SetupOptions {
  /** Run every host with this algorithm (the CLI's --cc). */
  cc?: string;
  /** Replaces the scenario's seed (--seed). */
  seed?: number;
  /**
   * Switch-side plug-ins by the name of an algorithm's switch side (`CcAlgorithm.cp.name`, e.g.
   * srcc). Every switch runs those of the algorithms some host uses; names not given here are
   * built by the algorithm (`cp.build`).
   */
  cpFactories?: Record<string, SwitchCpFactory>;
}

/**
 * Both ends of a flow must run the same transport (a go-back-N responder drops what a selective
 * sender sprays ahead), and an algorithm that reads per-hop INT from consecutive ACKs (HPCC,
 * MPCC) cannot run over spraying: the ACKs of one QP would carry the hops of different paths.
 */
function checkTransports(
  s: Scenario,
  flows: readonly { src: string; dst: string }[],
  ccByHost: ReadonlyMap<string, CcSpec>,
): void {
  for (const f of flows) {
    const a = nicFor(s, f.src).transport;
    const b = nicFor(s, f.dst).transport;
    if (a !== b)
      throw new ConfigError(
        'defaults.nic.transport',
        `flow ${f.src} -> ${f.dst} joins transport ${a} to ${b}; both ends of a flow must agree`,
      );
  }
  for (const [host, cc] of ccByHost) {
    checkCcTransport(s, host, cc.name);
    const policy = nicFor(s, host).paths.policy;
    if (policy === 'ecmp') continue;
    const f = cc.algorithm.rp.features;
    const int = (typeof f === 'function' ? f(cc.params) : f).int;
    if (int !== null)
      throw new ConfigError(
        'defaults.nic.paths',
        `${host} runs ${cc.name}, which reads per-hop INT from consecutive ACKs; it cannot spray (policy ${policy}): use ecmp`,
      );
    if (cc.algorithm.cp?.keysFlowsBySourcePort === true)
      throw new ConfigError(
        'defaults.nic.paths',
        `${host} runs ${cc.name}, whose switches key a flow by its UDP source port; spraying (policy ${policy}) would make each entropy a flow: use ecmp`,
      );
  }
}

/**
 * An algorithm that needs a transport (NSCC: selective ACKs) on `host`. The scenario's own cc keys
 * were checked when it loaded (src/config/uet.ts); `--cc` replaces them, so NSCC forced onto a
 * go-back-N host is refused the same way (compare checks every entry before its first run).
 */
export function checkCcTransport(s: Scenario, host: string, cc: string): void {
  const needs = CC_TRANSPORTS[cc];
  const transport = nicFor(s, host).transport;
  if (needs !== undefined && !needs.includes(transport))
    throw new ConfigError(
      'defaults.nic.cc',
      `${cc} needs transport ${needs.join(' or ')}, but ${host} runs ${transport}`,
    );
}

/** Rethrow the library's own input errors as ConfigError (exit 2, one line). */
export function asConfigError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof TopologyError) throw new ConfigError('topology', err.message);
    if (err instanceof WorkloadError) throw new ConfigError('workload', err.message);
    if (err instanceof CcConfigError) throw new ConfigError('cc', err.message);
    throw err;
  }
}

export function topologyParams(t: TopologySpec): TopologyParams {
  switch (t.kind) {
    case 'star':
      return { kind: 'star', hosts: t.hosts, link: t.link };
    case 'dumbbell':
      return { kind: 'dumbbell', left: t.left, right: t.right, link: t.link, bottleneck: t.bottleneck };
    case 'leafspine':
      return {
        kind: 'leafspine',
        leaves: t.leaves,
        hostsPerLeaf: t.hostsPerLeaf,
        spines: t.spines,
        hostLink: t.hostLink,
        fabricLink: t.fabricLink,
      };
    case 'fattree':
      return {
        kind: 'fattree',
        pods: t.pods,
        torsPerPod: t.torsPerPod,
        aggsPerPod: t.aggsPerPod,
        hostsPerTor: t.hostsPerTor,
        coreUplinksPerAgg: t.coreUplinksPerAgg,
        hostLink: t.hostLink,
        fabricLink: t.fabricLink,
      };
    case 'explicit':
      return { kind: 'explicit', nodes: t.nodes, links: t.links, link: t.link };
  }
}

/** The scenario's topology as its `topology` key builds it, before `links:` overrides. */
function builtTopology(s: Scenario): Topology {
  return asConfigError(() => buildTopology(topologyParams(s.topology)));
}

/** The scenario's topology with `links:` overrides applied. */
export function scenarioTopology(s: Scenario): Topology {
  return asConfigError(() => {
    const topo = buildTopology(topologyParams(s.topology));
    s.links.forEach((l, i) => {
      // Entries with `at` change the link later (switchPortEvents), not the topology.
      if (l.atNs === undefined && overrideLink(topo, l.a, l.b, l) === 0)
        throw new ConfigError(`links[${i}]`, `${l.a} and ${l.b} are not linked`);
    });
    return topo;
  });
}

/**
 * The `links` entries with `at` as each switch's port events (docs/switch.md "Link events"):
 * every port of `a` facing `b` and of `b` facing `a`, in file order. Resolve checked that both
 * ends are switches.
 */
export function switchPortEvents(
  s: Scenario,
  topo: Topology,
  thresholds: LinkThresholds | null = null,
): Map<string, PortEvent[]> {
  const out = new Map<string, PortEvent[]>();
  s.links.forEach((l, i) => {
    if (l.atNs === undefined) return;
    let n = 0;
    for (const [from, to] of [
      [l.a, l.b],
      [l.b, l.a],
    ]) {
      const node = topo.byName.get(from)!;
      for (const p of node.ports) {
        if (p.peerNode !== to) continue;
        let list = out.get(from);
        if (list === undefined) out.set(from, (list = []));
        const ev: PortEvent = {
          atNs: l.atNs,
          port: p.index,
          ...(l.rateBps !== undefined ? { rateBps: l.rateBps } : {}),
          ...(l.down !== undefined ? { down: l.down } : {}),
        };
        list.push(thresholds === null ? ev : thresholds.event(from, ev, l));
        n++;
      }
    }
    if (n === 0) throw new ConfigError(`links[${i}]`, `${l.a} and ${l.b} are not linked`);
  });
  return out;
}

/** PFC headroom the HPCC simulator gives an ingress port: 3 × one-way BDP of its link (third.cc). */
function headroomBytes(rateBps: number, delayNs: number): number {
  return Math.ceil((3 * rateBps * delayNs) / 8e9);
}

/**
 * Dynamic-threshold alpha of an ingress port as the HPCC simulator sets it: 2^-shift for ports at
 * the NIC rate, the shift one smaller per doubling of the port rate above it (third.cc).
 */
function pfcAlpha(shift: number, portRateBps: number, nicRateBps: number): number {
  const doublings = Math.max(0, Math.floor(Math.log2(portRateBps / nicRateBps) + 1e-9));
  return 2 ** -Math.max(0, shift - doublings);
}

/**
 * What the hosts' algorithms ask of the switches' active-flow counter (CcAlgorithm.cp.activeFlows):
 * the largest window (e.g. MPCC's T_flow = 8 × the largest base RTT) and byte threshold, each
 * undefined when none asks for a positive one, and whether any wants flows forgotten at message
 * end. Base RTTs are the HPCC convention of the workload's source-destination pairs.
 */
function requestedActiveFlows(
  s: Scenario,
  topo: Topology,
  routes: Routes,
  workload: Workload,
  ccByHost: Map<string, CcSpec>,
): { windowNs: number | undefined; minBytes: number | undefined; forgetAtEnd: boolean } {
  const asking = [...new Set(ccByHost.values())].filter((c) => c.algorithm.cp?.activeFlows !== undefined);
  if (asking.length === 0) return { windowNs: undefined, minBytes: undefined, forgetAtEnd: false };
  let maxBaseRttNs = 0;
  const seen = new Set<string>();
  for (const f of workload.flows) {
    const key = `${f.src}>${f.dst}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const mtu = nicFor(s, f.src).mtuBytes;
    maxBaseRttNs = Math.max(maxBaseRttNs, hostPath(topo, routes, f.src, f.dst, mtu).hpccBaseRttNs);
  }
  let windowNs = 0;
  let minBytes = 0;
  let forgetAtEnd = false;
  for (const c of asking) {
    const ask = c.algorithm.cp!.activeFlows!(c.params, maxBaseRttNs);
    windowNs = Math.max(windowNs, ask.windowNs);
    minBytes = Math.max(minBytes, ask.minBytes);
    forgetAtEnd ||= ask.forgetAtEnd;
  }
  return {
    windowNs: windowNs > 0 ? windowNs : undefined,
    minBytes: minBytes > 0 ? minBytes : undefined,
    forgetAtEnd,
  };
}

export function setupRun(scenario: Scenario, opts: SetupOptions = {}): RunSetup {
  return asConfigError(() => {
    const s = scenario;
    const topo = scenarioTopology(s);
    const routes = computeRoutes(topo);
    const seed = opts.seed ?? s.seed;
    const workload = generateWorkload(topo, s.workload, {
      rng: createRng(seed).fork('workload'),
      baseDir: s.source.dir,
    });

    const ccCache = new Map<string, CcSpec>();
    const ccSpec = (name: string): CcSpec => {
      let spec = ccCache.get(name);
      if (spec === undefined) {
        const section = s.cc[name];
        spec = resolveCc(name, section?.params ?? {}, section?.profile ?? undefined);
        ccCache.set(name, spec);
      }
      return spec;
    };
    const ccByHost = new Map<string, CcSpec>();
    for (const h of topo.hosts) ccByHost.set(h.name, ccSpec(opts.cc ?? nicFor(s, h.name).cc));
    // A cc section for an algorithm no host runs is still checked, so typos do not pass silently.
    for (const name of Object.keys(s.cc)) ccSpec(name);
    const intMulti = runIntMulti(ccByHost);
    const intRatesBps = runIntRates(s, topo, ccByHost);
    checkIntQueueRange(s, ccByHost, intMulti);
    const cp: SwitchCpFactory[] = [];
    const cpNames = new Set<string>();
    for (const name of [...new Set([...ccByHost.values()].map((c) => c.name))].sort()) {
      const spec = [...ccByHost.values()].find((c) => c.name === name)!;
      const side = spec.algorithm.cp;
      if (side?.build === undefined || cpNames.has(side.name)) continue;
      cpNames.add(side.name);
      const f =
        opts.cpFactories?.[side.name] ??
        side.build({
          params: spec.params,
          topo,
          routes,
          mtuBytes: Math.max(...topo.hosts.map((h) => nicFor(s, h.name).mtuBytes)),
        });
      cp.push(f);
    }
    checkTransports(s, workload.flows, ccByHost);
    const activeFlows = requestedActiveFlows(s, topo, routes, workload, ccByHost);
    const flowWindowNs = activeFlows.windowNs;
    const flowMinBytes = activeFlows.minBytes;
    const flowForgetAtEnd = activeFlows.forgetAtEnd;
    // The switches' per-port active-flow counter costs a hash-table update per data packet; only
    // MPCC's INT block (activeFlows per hop) and switch-side plug-ins (io.activeFlows) read it,
    // so it is off unless an algorithm asks for a window, for MPCC INT, or a CP plug-in runs
    // (HPCC's INT ignores activeFlows).
    const flowCounterNeeded =
      flowWindowNs !== undefined ||
      cp.length > 0 ||
      [...new Set(ccByHost.values())].some((c) => intLayoutOf(c) === 'mpcc');

    const sw = s.defaults.switch;
    const trim = switchTrimConfig(s, topo, routes);
    const rccc = rcccNicConfigs(s, topo, routes, workload.flows, ccByHost);
    const nicRateBps = Math.min(...topo.hosts.map((h) => h.ports[0].rateBps));
    const ecnOf = (rateBps: number): SwitchEcn => {
      const r = sw.ecn.byRate.find((e) => e.rateBps === rateBps);
      return {
        kminBytes: r?.kminBytes ?? sw.ecn.kminBytes,
        kmaxBytes: r?.kmaxBytes ?? sw.ecn.kmaxBytes,
        pmax: r?.pmax ?? sw.ecn.pmax,
        enabled: sw.ecn.enabled,
        markAt: sw.ecn.markAt,
      };
    };
    const thresholds = new LinkThresholds(s, builtTopology(s), trim, ecnOf);
    const portTrim = linkTrimConfigs(
      s,
      topo,
      trim,
      (node, port) => thresholds.initial(node, port, topo.byName.get(node)!.ports[port].rateBps).trim!,
    );
    const portEvents = switchPortEvents(s, topo, thresholds);
    /** A port's RED and trimming thresholds at its rate; no marking towards hosts if hostPorts is off. */
    const portThresholds = (nodeName: string, i: number, rateBps: number) => {
      const t = thresholds.initial(nodeName, i, rateBps);
      const peer = topo.byName.get(nodeName)!.ports[i].peerNode;
      if (sw.ecn.hostPorts || topo.byName.get(peer)?.kind !== 'host') return t;
      return { ...t, ecn: { ...t.ecn, enabled: false } };
    };

    return {
      scenario: s,
      topo,
      routes,
      workload,
      ccByHost,
      intMulti,
      intRatesBps,
      nicConfig(node, base) {
        const n = nicFor(s, node.name);
        return {
          ...base,
          mtuBytes: n.mtuBytes,
          ackEveryPackets: n.ackEvery,
          rtoNs: n.rtoNs,
          dataPrio: n.dataPrio,
          ackPrio: n.ackPrio,
          controlPrio: n.controlPrio,
          cc: ccByHost.get(node.name)!,
          cnpMinIntervalNs: n.cnpIntervalNs,
          transport: n.transport,
          paths: n.paths,
          sr: {
            windowPackets: n.reorderWindow,
            ackBytes: n.sackBytes,
            reorderThresholdPackets: n.reorderThreshold,
            ...(n.transport === 'uet' ? { ackFirstPacket: true, ackWhenDrained: true } : {}),
          },
          ...(rccc.get(node.name) != null ? { rccc: rccc.get(node.name) } : {}),
        };
      },
      switchConfig(node, base) {
        return {
          ...base,
          ports: base.ports.map((p, i) => ({
            ...p,
            ...portThresholds(node.name, i, p.rateBps),
            pfcHeadroomBytes: sw.pfc.headroomBytes ?? headroomBytes(p.rateBps, node.ports[i].delayNs),
            ...(sw.pfc.dynamic ? { pfcAlpha: pfcAlpha(sw.pfc.shift, p.rateBps, nicRateBps) } : {}),
            ...(trim !== null
              ? { peerIsHost: topo.byName.get(node.ports[i].peerNode)?.kind === 'host' }
              : {}),
            ...(portTrim.has(`${node.name}:${i}`) ? { trim: portTrim.get(`${node.name}:${i}`) } : {}),
          })),
          bufferBytes: sw.bufferBytes,
          ecn: ecnOf(node.ports[0].rateBps),
          pfc: {
            enabled: sw.pfc.enabled,
            thresholdBytes: sw.pfc.thresholdBytes ?? 0,
            dynamicAlpha: sw.pfc.dynamic ? 2 ** -sw.pfc.shift : null,
            headroomBytes:
              sw.pfc.headroomBytes ?? headroomBytes(node.ports[0].rateBps, node.ports[0].delayNs),
            resumeOffsetBytes: sw.pfc.resumeOffsetBytes,
            reserveBytes: sw.pfc.reserveBytes,
            ...(sw.pfc.priorities !== null ? { priorities: sw.pfc.priorities } : {}),
          },
          controlPrio: s.defaults.nic.controlPrio,
          // Per-switch salt, as the HPCC simulator seeds each switch with its node id: the same
          // salt everywhere would polarise a fat-tree (an agg picks the core its ToR's hash picked).
          ecmpSeed: node.index + 1,
          int: sw.int,
          intMulti,
          intRatesBps,
          ...(flowWindowNs !== undefined ? { activeFlowWindowNs: flowWindowNs } : {}),
          ...(flowMinBytes !== undefined ? { activeFlowMinBytes: flowMinBytes } : {}),
          ...(flowForgetAtEnd ? { activeFlowForgetAtEnd: true } : {}),
          ...(flowCounterNeeded ? {} : { activeFlowWindowNs: 0 }),
          ...(cp.length > 0 ? { cp } : {}),
          ...(trim !== null ? { trim } : {}),
          ...(portEvents.has(node.name) ? { portEvents: portEvents.get(node.name) } : {}),
        };
      },
    };
  });
}
