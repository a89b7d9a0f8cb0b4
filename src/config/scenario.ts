/**
 * The scenario file (reference: docs/scenario.md).
 *
 * Two stages: `scenarioSchema` (zod) checks each key on its own, converts units and fills
 * per-key defaults; `resolveScenario` (resolve.ts) fills what depends on other keys (link
 * defaults into the topology, host lists, the sample interval) and checks consistency
 * (unknown hosts, receiver among senders, kmin > kmax, …). Every object is strict: an unknown
 * key is an error, with a did-you-mean.
 *
 * The resolved `Scenario` carries units in its names (rateBps, delayNs, sizeBytes).
 */
import { z } from 'zod';
import type { RcccSettings } from '../../nic/rccc/settings.js';
import { MAX_MESSAGE_BYTES } from '../wire/reth.js';
import {
  COLLECTIVE_ALGORITHMS,
  COLLECTIVE_OPS,
  type CollectiveAlgorithm,
  type CollectiveOp,
} from '../workload/collective/ops.js';
import { duration, flowSize, fraction, integer, positiveNumber, rate, showValue, size } from './units.js';

// --------------------------------------------------------------------------------------------
// Resolved types (what loadScenario returns).

export interface LinkParams {
  rateBps: number;
  /** One-way propagation delay. */
  delayNs: number;
  /** Per-frame drop probability (loss injection for tests). */
  loss: number;
}

export interface NicParams {
  /** Congestion-control algorithm (registry name). */
  cc: string;
  /** Payload bytes per data packet (the HPCC simulator's PACKET_PAYLOAD_SIZE). */
  mtuBytes: number;
  /** The receiver acknowledges every `ackEvery` data packets. */
  ackEvery: number;
  /** Retransmission timeout; 0 disables it. */
  rtoNs: number;
  /** Minimum interval between CNPs per QP at the receiver (DCQCN's N). */
  cnpIntervalNs: number;
  /** 802.1p priorities (0..7) of data, ACK/NACK and control (CNP) frames. */
  dataPrio: number;
  ackPrio: number;
  controlPrio: number;
  /** Reliability protocol (nic/api.ts TransportName). */
  transport: 'rocev2-gbn' | 'rocev2-sr' | 'uet';
  /** Entropy policy of the data this host sends, and how many entropies it sprays over. */
  paths: { policy: 'ecmp' | 'oblivious' | 'bitmap' | 'reps' | 'mixed'; count: number };
  /** Selective repeat: reorder buffer (packets), ACK coalescing (payload bytes), reorder threshold. */
  reorderWindow: number;
  sackBytes: number;
  /** Packets, `bdp` (1.5 × the path's BDP, at least 5) or null (off: NACK and RTO only). */
  reorderThreshold: number | 'bdp' | null;
  /** Receiver credits (UET RCCC) for the flows this host receives (docs/algorithms/rccc.md). */
  rccc: RcccSettings;
}

export interface EcnThresholds {
  kminBytes: number;
  kmaxBytes: number;
  pmax: number;
}

export interface EcnConfig extends EcnThresholds {
  enabled: boolean;
  /**
   * Mark on switch ports that face hosts too (the last hop). The UEC reference simulator turns it
   * off when receivers pull with credits (`enable_ecn_on_tor_downlink = !receiver_driven`).
   */
  hostPorts: boolean;
  /** Where the RED decision is taken (DCQCN marks at dequeue; enqueue is the common variant). */
  markAt: 'dequeue' | 'enqueue';
  /** Thresholds for ports of a given line rate (the HPCC simulator's KMIN_MAP/KMAX_MAP/PMAX_MAP). */
  byRate: Array<EcnThresholds & { rateBps: number }>;
}

export interface PfcConfig {
  enabled: boolean;
  /** Dynamic threshold (free buffer >> shift, as the HPCC simulator) or static `thresholdBytes`. */
  dynamic: boolean;
  shift: number;
  /** Static XOFF threshold per ingress queue; null with dynamic thresholds. */
  thresholdBytes: number | null;
  /** Headroom per ingress port; null = 3 × link BDP (HPCC simulator). */
  headroomBytes: number | null;
  /** XON once the queue falls this far below the threshold. */
  resumeOffsetBytes: number;
  /** Per-port reserved buffer. */
  reserveBytes: number;
  /** The priorities PFC protects (lossless); the others are lossy. null: all eight. */
  priorities: number[] | null;
}

/**
 * Trimming on the lossy data priorities (docs/switch.md "Trimming"). Unset sizes follow the UEC
 * reference simulator's defaults, which depend on the network (its BDP): `setupRun` fills them.
 */
export interface TrimParams {
  enabled: boolean;
  /** Cap of each trimming data queue; null: 1 × BDP. */
  queueBytes: number | null;
  /** Cap of each port's header queue; null: 2 × queueBytes. */
  headerQueueBytes: number | null;
  /** RED thresholds of trimming queues; null: 0.2 and 0.8 × BDP, in whole packets. */
  kminBytes: number | null;
  kmaxBytes: number | null;
  pmax: number;
}

export interface SwitchParams {
  /** Shared buffer per switch. */
  bufferBytes: number;
  /** Priority queues per egress port. */
  queues: number;
  ecn: EcnConfig;
  pfc: PfcConfig;
  /** Stamp INT records on packets that request them (HPCC, MPCC). */
  int: boolean;
  /**
   * The line-rate table HPCC INT's 3-bit rate code indexes (docs/wire.md "Rate codes"): `scenario`
   * derives it from the scenario's distinct link rates (the ns-3 table when they are all in it);
   * `ns3` is the HPCC simulator's fixed 25/50/100/200/400G table, and a link rate outside it is refused.
   */
  intRates: 'scenario' | 'ns3';
  trim: TrimParams;
}

export type LinkOverrideParams = Partial<LinkParams>;

export interface StarTopology {
  kind: 'star';
  hosts: number;
  link: LinkParams;
}
export interface DumbbellTopology {
  kind: 'dumbbell';
  left: number;
  right: number;
  link: LinkParams;
  bottleneck: LinkParams;
}
export interface LeafSpineTopology {
  kind: 'leafspine';
  leaves: number;
  spines: number;
  hostsPerLeaf: number;
  hostLink: LinkParams;
  fabricLink: LinkParams;
}
export interface FatTreeTopology {
  kind: 'fattree';
  /** Set for a standard k-ary fat-tree; the shape below is then derived from it. */
  k: number | null;
  pods: number;
  torsPerPod: number;
  aggsPerPod: number;
  hostsPerTor: number;
  coreUplinksPerAgg: number;
  hostLink: LinkParams;
  fabricLink: LinkParams;
}
export interface ExplicitTopology {
  kind: 'explicit';
  nodes: Array<{ name: string; kind: 'host' | 'switch' }>;
  links: Array<{ a: string; b: string } & LinkParams>;
  /** Defaults of links that do not set their own. */
  link: LinkParams;
}
export type TopologySpec =
  | StarTopology
  | DumbbellTopology
  | LeafSpineTopology
  | FatTreeTopology
  | ExplicitTopology;
export type TopologyKind = TopologySpec['kind'];
export const TOPOLOGY_KINDS: readonly TopologyKind[] = [
  'star',
  'dumbbell',
  'leafspine',
  'fattree',
  'explicit',
];

/**
 * Per-link override of a generated topology, matched on the two endpoint names. With `atNs`, a
 * change of a link between two switches at that emulated time, in both directions (only
 * `rateBps` and `down`; docs/scenario.md "links", docs/switch.md "Link events"); without it, the
 * link as built.
 */
export interface LinkOverride extends LinkOverrideParams {
  a: string;
  b: string;
  atNs?: number;
  /** With atNs: true, the link fails; false, it is back. */
  down?: boolean;
  /** Only the direction a → b changes (a's egress towards b); without atNs, rate and loss only. */
  oneWay?: boolean;
  /** The trimming queue of the egress port(s) this entry changes (defaults.switch.trim's keys). */
  trim?: LinkTrimOverride;
  /**
   * With a rate: `keep` leaves the link's switch ports' byte thresholds (RED/ECN, trimming) as
   * they were for its built rate; absent (`scale`), they follow the new rate (docs/scenario.md "links").
   */
  thresholds?: 'scale' | 'keep';
}

/** A link's own trimming queue and RED thresholds, bytes (only the keys given). */
export interface LinkTrimOverride {
  queueBytes?: number;
  headerQueueBytes?: number;
  kminBytes?: number;
  kmaxBytes?: number;
}

export type Verb = 'write' | 'send' | 'read';

export interface FlowSpec {
  src: string;
  dst: string;
  /** Infinity = long-lived (sends until the run ends or `stopNs`). */
  sizeBytes: number;
  startNs: number;
  stopNs: number | null;
  verb: Verb;
  /** Identical parallel QPs. */
  count: number;
  /** Split the flow into messages of this size (null = one message). */
  messageBytes: number | null;
  tag: string | null;
}

export interface FlowsWorkload {
  kind: 'flows';
  flows: FlowSpec[];
  tag: string | null;
}

export interface IncastWorkload {
  kind: 'incast';
  senders: string[];
  receiver: string;
  sizeBytes: number;
  startNs: number;
  /** Each flow starts at start + U[0, startSpread) (seeded); 0 = all at once. */
  startSpreadNs: number;
  flowsPerSender: number;
  /** Rounds of the incast, `intervalNs` apart. */
  count: number;
  intervalNs: number;
  verb: Verb;
  messageBytes: number | null;
  tag: string | null;
}

export interface PermutationWorkload {
  kind: 'permutation';
  hosts: string[];
  sizeBytes: number;
  startNs: number;
  startSpreadNs: number;
  flowsPerPair: number;
  verb: Verb;
  messageBytes: number | null;
  tag: string | null;
}

export interface PoissonWorkload {
  kind: 'poisson';
  /** Built-in CDF name (`websearch`, `fb_hadoop`, `cache_follower`, `data_mining`) or the path as written. */
  cdf: string;
  /** Absolute path of a CDF file; null for built-in CDFs. */
  cdfFile: string | null;
  /** Offered load per host, relative to its link rate, (0, 1]. */
  load: number;
  hosts: string[];
  /** Destinations; null = the other `hosts` (then every host is a source and a destination). */
  receivers: string[] | null;
  /** Flows of this entry between the same two hosts reuse one QP (its CC state carries over). */
  sharedQp: boolean;
  startNs: number;
  stopNs: number;
  /** Stop after this many flows (null = until stopNs). */
  maxFlows: number | null;
  verb: Verb;
  messageBytes: number | null;
  tag: string | null;
}

export interface AllToAllWorkload {
  kind: 'alltoall';
  hosts: string[];
  /** Bytes each rank sends to each other rank per iteration. */
  messageBytes: number;
  iterations: number;
  startNs: number;
  /** Pause between the end of one iteration and the start of the next. */
  gapNs: number;
  qpsPerPair: number;
  verb: Verb;
  tag: string | null;
}

/** A connection matrix of the UEC reference simulator (src/workload/matrix.ts). */
export interface MatrixWorkload {
  kind: 'matrix';
  /** The path as written, and resolved. */
  file: string;
  matrixFile: string;
  /** Node i of the matrix is hosts[i]. */
  hosts: string[];
  verb: Verb;
  messageBytes: number | null;
  tag: string | null;
}

/**
 * One collective of a job (docs/scenario.md "kind: collective"), repeated `iterations` times;
 * the entries of one job run one after the other in every iteration.
 */
export interface CollectiveWorkload {
  kind: 'collective';
  job: string;
  op: CollectiveOp;
  algorithm: CollectiveAlgorithm;
  /** Hosts in rank order. */
  ranks: string[];
  /** The nccl-tests buffer size (docs/scenario.md); with `sizesBytes`, their largest row sum. */
  sizeBytes: number;
  /** alltoall: bytes rank i sends rank j (diagonal unused), instead of size and skew; null otherwise. */
  sizesBytes: number[][] | null;
  /** alltoall: destination rank k gets a share ∝ (k+1)^−skew of each rank's buffer (0: even). */
  skew: number;
  /** Parallel rings / trees / QP sets, each over its own QPs. */
  channels: number;
  /** Pipelining unit: each channel's data of a step is posted in messages of this size (null: one). */
  chunkBytes: number | null;
  iterations: number;
  /** Compute time at a rank between its previous collective of the job and this one. */
  gapNs: number;
  startNs: number;
  tag: string | null;
}

export type WorkloadSpec =
  | FlowsWorkload
  | IncastWorkload
  | PermutationWorkload
  | PoissonWorkload
  | MatrixWorkload
  | AllToAllWorkload
  | CollectiveWorkload;
export type WorkloadKind = WorkloadSpec['kind'];
export const WORKLOAD_KINDS: readonly WorkloadKind[] = [
  'flows',
  'incast',
  'permutation',
  'poisson',
  'alltoall',
  'matrix',
  'collective',
];
export const BUILTIN_CDFS = ['websearch', 'fb_hadoop', 'cache_follower', 'data_mining'] as const;

/** Overrides of one algorithm's parameters; validated against its own schema (cc-params.ts). */
export interface CcSection {
  /** Named parameter set of the algorithm (e.g. DCQCN `paper`), applied before `params`. */
  profile: string | null;
  params: Record<string, unknown>;
}

export interface Scenario {
  name: string;
  description: string | null;
  seed: number;
  durationNs: number;
  /** Time-dilation factor of the real runtimes. */
  timeScale: number;
  /**
   * How the real runtimes keep time (docs/realtime.md): `lockstep`, conservative synchronisation
   * (results exact under any load; emulated time slows down when the host cannot keep up), or
   * `wallclock` (the machine's own timing is the object; late frames fail the run).
   */
  sync: 'lockstep' | 'wallclock';
  /**
   * Frame trains of the real runtimes (docs/wire.md §6.1 Frame trains): `auto` packs the frames a link sends
   * in one event-loop turn into one datagram (up to the path MTU); `off` sends one frame per datagram.
   */
  train: 'auto' | 'off';
  /**
   * How `sync: wallclock` nodes run their events (docs/realtime.md "Time windows"): `link` in
   * batches at the edges of windows as long as the shortest link delay, the same edges on every
   * node, so a frame is late only when it took more than a window of real time to arrive; `off`
   * each event as it falls due.
   */
  timeWindow: 'link' | 'off';
  /**
   * How the nodes of one process exchange datagrams (docs/realtime.md "Processes"): `socket`
   * through the kernel like any other, `memory` handed over in memory; `auto`, memory under
   * lockstep, and under wallclock when the main threads run at real-time priority
   * (`realtimePriority`); the socket otherwise.
   */
  inProcessLinks: 'auto' | 'socket' | 'memory';
  /**
   * How many OS processes the local runtime runs the nodes in (docs/realtime.md "Processes"):
   * `per-node` (one each), a number, or `auto`: as many as the machine has cores (nodes share
   * them). Other launchers give every node its own process, namespace or container.
   */
  processes: 'per-node' | 'auto' | number;
  /**
   * Whether a real node process's main thread runs under the kernel's round-robin real-time
   * policy (docs/realtime.md "Real-time priority"): `on`, `off`, or `auto`: under wallclock, when
   * the launcher runs no more node processes than the machine has cores.
   */
  realtimePriority: 'auto' | 'on' | 'off';
  sampleIntervalNs: number;
  defaults: { link: LinkParams; nic: NicParams; switch: SwitchParams };
  cc: Record<string, CcSection>;
  /** Per-host NIC overrides (only the keys given). */
  hosts: Record<string, Partial<NicParams>>;
  topology: TopologySpec;
  links: LinkOverride[];
  workload: WorkloadSpec[];
  /** Host names of the topology in builder order (h1..hN for generated topologies). */
  hostNames: string[];
  /** Where the scenario came from; relative paths in it are resolved against `dir`. */
  source: { file: string | null; dir: string };
  /**
   * Time-binned observation (src/probe): results.json gets a `probes` section only when set
   * (docs/results.md "probes").
   */
  probes?: ScenarioProbes;
  /**
   * Named variants of the scenario, each a list of `key=value` overrides in `--set`'s language
   * (`rocelab compare FILE` runs each; docs/scenario.md "variants"). Only when set.
   */
  variants?: Record<string, string[]>;
}

export interface ScenarioProbes {
  binNs: number;
  /** Switch egress ports to bin: every switch port, or a list. */
  ports: 'all' | { node: string; port: number }[];
  flows: boolean;
  /** qpInspect variables kept per flow and bin (src/probe ProbeSpec.qpState). */
  qpState?: string[];
}

/** The NIC parameters of `host`: defaults.nic overlaid with hosts.<host>. */
export function nicFor(s: Scenario, host: string): NicParams {
  return { ...s.defaults.nic, ...s.hosts[host] };
}

/** The algorithm each host runs. */
export function ccByHost(s: Scenario): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of s.hostNames) out[h] = nicFor(s, h).cc;
  return out;
}

/** Names of all algorithms the scenario uses (defaults, per-host overrides, cc sections). */
export function ccNamesUsed(s: Scenario): string[] {
  return [...new Set(Object.values(ccByHost(s)))].sort();
}

// --------------------------------------------------------------------------------------------
// Stage 1: zod schema of the file.

const NAME = /^[A-Za-z0-9_.-]+$/;

const name = (what: string) =>
  z.unknown().transform((v, ctx): string => {
    if (v === undefined) {
      ctx.addIssue({ code: 'custom', message: 'required' });
      return z.NEVER;
    }
    if (typeof v !== 'string' || !NAME.test(v)) {
      ctx.addIssue({
        code: 'custom',
        message: `expected ${what} (letters, digits, _ . -), got ${showValue(v)}`,
      });
      return z.NEVER;
    }
    return v;
  });

const text = () =>
  z.unknown().transform((v, ctx): string => {
    if (typeof v !== 'string') {
      ctx.addIssue({ code: 'custom', message: `expected a string, got ${showValue(v)}` });
      return z.NEVER;
    }
    return v;
  });

const oneOf = <T extends string>(values: readonly T[]) =>
  z.unknown().transform((v, ctx): T => {
    if (v === undefined) {
      ctx.addIssue({ code: 'custom', message: `required (one of ${values.join('|')})` });
      return z.NEVER;
    }
    if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) {
      ctx.addIssue({ code: 'custom', message: `expected one of ${values.join('|')}, got ${showValue(v)}` });
      return z.NEVER;
    }
    return v as T;
  });

const bool = () =>
  z.unknown().transform((v, ctx): boolean => {
    if (typeof v !== 'boolean') {
      ctx.addIssue({ code: 'custom', message: `expected true or false, got ${showValue(v)}` });
      return z.NEVER;
    }
    return v;
  });

const prio = () => integer({ min: 0, max: 7 });

const processCount = () =>
  z.unknown().transform((v, ctx): 'per-node' | 'auto' | number => {
    if (v === 'per-node' || v === 'auto') return v;
    if (typeof v === 'number' && Number.isInteger(v) && v >= 1) return v;
    ctx.addIssue({
      code: 'custom',
      message: `expected per-node, auto or a whole number ≥ 1, got ${showValue(v)}`,
    });
    return z.NEVER;
  });

/**
 * A list of hosts: `all`, a list of names, or ranges like `h1..h8` (alone or inside the list).
 * Expanded against the topology by the resolver.
 */
export type HostSelector = 'all' | string[];
const hostSelector = () =>
  z.unknown().transform((v, ctx): HostSelector => {
    if (v === 'all') return 'all';
    const items = typeof v === 'string' ? [v] : v;
    if (
      !Array.isArray(items) ||
      items.length === 0 ||
      !items.every((x) => typeof x === 'string' && x !== '')
    ) {
      ctx.addIssue({
        code: 'custom',
        message: `expected all, a list of host names or a range like h1..h8, got ${showValue(v)}`,
      });
      return z.NEVER;
    }
    return items as string[];
  });

const strict = <T extends z.core.$ZodLooseShape>(shape: T, what = 'a map') =>
  z.strictObject(shape, {
    // A missing object falls through to the generic `required`.
    error: (iss) =>
      iss.code === 'invalid_type' && iss.input !== undefined
        ? `expected ${what}, got ${showValue(iss.input)}`
        : undefined,
  });

const linkDefaults = strict({
  rate: rate().default(100e9),
  delay: duration().default(1000),
  loss: fraction().default(0),
});

const linkOverride = strict({
  rate: rate().optional(),
  delay: duration().optional(),
  loss: fraction().optional(),
});

const powerOfTwo = (min: number, max: number) =>
  integer({ min, max }).refine((v) => (v & (v - 1)) === 0, { message: 'must be a power of two' });

const pathsKey = () =>
  strict({
    policy: oneOf(['ecmp', 'oblivious', 'bitmap', 'reps', 'mixed'] as const).default('ecmp'),
    // The reference simulator's path_entropy_size (uet-htsim main_uec.cpp).
    count: powerOfTwo(1, 1 << 14).default(64),
  });

const nicKeys = {
  cc: () => name('an algorithm name'),
  mtu: () => size({ min: 64, max: 9000 }),
  ackEvery: () => integer({ min: 1 }),
  rto: () => duration(),
  cnpInterval: () => duration(),
  transport: () => oneOf(['rocev2-gbn', 'rocev2-sr', 'uet'] as const),
  reorderWindow: () => powerOfTwo(64, 1 << 22),
  sackBytes: () => size(),
  reorderThreshold: () =>
    z.unknown().transform((v, ctx): number | 'bdp' | 'off' => {
      if (v === 'bdp' || v === 'off') return v;
      if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 1) return v;
      ctx.addIssue({
        code: 'custom',
        message: `expected packets (an integer ≥ 1), bdp or off, got ${showValue(v)}`,
      });
      return z.NEVER;
    }),
};

/** `rccc: true`, `false` or a map of its settings (docs/algorithms/rccc.md). */
const rcccSchema = z.preprocess(
  (v) => (typeof v === 'boolean' ? { enabled: v } : v),
  strict(
    {
      enabled: bool().default(true),
      pullRate: fraction({ above: 0 }).default(0.99),
      creditPerPull: integer({ min: 1, max: 64 }).default(4),
      oversubscription: oneOf(['auto', 'on', 'off'] as const).default('auto'),
      networkRtt: duration().default(0),
    },
    'true, false or a map like { pullRate: 0.99, creditPerPull: 4, oversubscription: auto, networkRtt: 14us }',
  ),
);

const nicDefaults = strict({
  cc: nicKeys.cc().default('dcqcn'),
  mtu: nicKeys.mtu().default(1000),
  ackEvery: nicKeys.ackEvery().default(1),
  // Default 1 ms; 100 µs under transport uet (the reference's DEFAULT_UEC_RTO_MIN), set in resolve.
  rto: nicKeys.rto().optional(),
  cnpInterval: nicKeys.cnpInterval().default(50_000),
  transport: nicKeys.transport().default('rocev2-gbn'),
  paths: pathsKey().default({ policy: 'ecmp', count: 64 }),
  reorderWindow: nicKeys.reorderWindow().default(1024),
  // The reference's UecSink::_bytes_unacked_threshold.
  sackBytes: nicKeys.sackBytes().default(16_384),
  // Default: bdp under rocev2-sr, off under uet (the reference's SLEEK is off by default).
  reorderThreshold: nicKeys.reorderThreshold().optional(),
  dataPrio: prio().default(3),
  // Defaults to controlPrio (ACKs ahead of data, never starved by PFC), as the NIC does; set it
  // to dataPrio for the HPCC simulator's placement (ACKs share the data queue in switches).
  ackPrio: prio().optional(),
  controlPrio: prio().default(0),
  rccc: rcccSchema.prefault(false),
});

const nicOverride = strict({
  cc: nicKeys.cc().optional(),
  mtu: nicKeys.mtu().optional(),
  ackEvery: nicKeys.ackEvery().optional(),
  rto: nicKeys.rto().optional(),
  cnpInterval: nicKeys.cnpInterval().optional(),
  dataPrio: prio().optional(),
  ackPrio: prio().optional(),
  controlPrio: prio().optional(),
  transport: nicKeys.transport().optional(),
  paths: pathsKey().optional(),
  reorderWindow: nicKeys.reorderWindow().optional(),
  sackBytes: nicKeys.sackBytes().optional(),
  reorderThreshold: nicKeys.reorderThreshold().optional(),
  rccc: rcccSchema.optional(),
});

const ecnThresholds = {
  kmin: size().default(400_000),
  kmax: size().default(1_600_000),
  pmax: fraction().default(0.2),
};

const ecnSchema = z.preprocess(
  (v) => (typeof v === 'boolean' ? { enabled: v } : v),
  strict(
    {
      enabled: bool().default(true),
      ...ecnThresholds,
      markAt: oneOf(['dequeue', 'enqueue'] as const).default('dequeue'),
      hostPorts: bool().default(true),
      byRate: z
        .record(
          z.string(),
          strict(
            { kmin: size(), kmax: size(), pmax: fraction() },
            'a map like { kmin: 100KB, kmax: 400KB, pmax: 0.2 }',
          ),
          {
            error: (iss) =>
              iss.code === 'invalid_type'
                ? `expected a map of rate → thresholds, got ${showValue(iss.input)}`
                : undefined,
          },
        )
        .default({}),
    },
    'true, false or a map like { kmin: 400KB, kmax: 1600KB, pmax: 0.2 }',
  ),
);

const pfcSchema = z.preprocess(
  (v) => (typeof v === 'boolean' ? { enabled: v } : v),
  strict(
    {
      enabled: bool().default(true),
      dynamic: bool().optional(),
      shift: integer({ min: 0, max: 16 }).default(3),
      threshold: size({ min: 1 }).optional(),
      headroom: size().optional(),
      resumeOffset: size().default(3072),
      reserve: size().default(4096),
      priorities: z.array(prio()).optional(),
    },
    'true, false or a map like { threshold: 600KB, headroom: 40KB }',
  ),
);

const trimSchema = z.preprocess(
  (v) => (typeof v === 'boolean' ? { enabled: v } : v),
  strict(
    {
      // A map turns trimming on unless it says otherwise; no key at all leaves it off.
      enabled: bool().default(true),
      queueBytes: size({ min: 1 }).optional(),
      headerQueueBytes: size({ min: 1 }).optional(),
      kmin: size().optional(),
      kmax: size().optional(),
      pmax: fraction().default(1),
    },
    'true, false or a map like { enabled: true, queueBytes: 178KB, headerQueueBytes: 357KB }',
  ),
);

const switchDefaults = strict({
  buffer: size({ min: 1 }).default(32_000_000),
  queues: integer({ min: 1, max: 8 }).default(8),
  ecn: ecnSchema.prefault(true),
  pfc: pfcSchema.prefault(true),
  int: bool().default(true),
  intRates: oneOf(['scenario', 'ns3'] as const).default('scenario'),
  trim: trimSchema.prefault(false),
});

const count = (min = 1) => integer({ min });

const topologySchema = z.discriminatedUnion(
  'kind',
  [
    strict({ kind: z.literal('star'), hosts: count(2), link: linkOverride.optional() }),
    strict({
      kind: z.literal('dumbbell'),
      left: count(),
      right: count(),
      link: linkOverride.optional(),
      bottleneck: linkOverride.optional(),
    }),
    strict({
      kind: z.literal('leafspine'),
      leaves: count(),
      spines: count(),
      hostsPerLeaf: count(),
      link: linkOverride.optional(),
      uplink: linkOverride.optional(),
    }),
    strict({
      kind: z.literal('fattree'),
      k: integer({ min: 2 }).optional(),
      pods: count().optional(),
      torsPerPod: count().optional(),
      aggsPerPod: count().optional(),
      hostsPerTor: count().optional(),
      coreUplinksPerAgg: count().optional(),
      link: linkOverride.optional(),
      fabric: linkOverride.optional(),
    }),
    strict({
      kind: z.literal('explicit'),
      nodes: z
        .array(
          z.preprocess(
            (v) => (typeof v === 'string' ? { name: v } : v),
            strict({ name: name('a node name'), kind: oneOf(['host', 'switch'] as const).optional() }),
          ),
        )
        .min(2),
      links: z
        .array(strict({ a: name('a node name'), b: name('a node name'), ...linkOverride.shape }))
        .min(1),
      link: linkOverride.optional(),
    }),
  ],
  {
    error: (iss) =>
      (iss.code as string) === 'invalid_type' && iss.input !== undefined
        ? `expected a map like { kind: star, hosts: 9 }, got ${showValue(iss.input)}`
        : undefined,
  },
);

/** A message size: at most what one RoCE message carries (src/wire/reth.ts MAX_MESSAGE_BYTES). */
const messageSize = () => size({ min: 1, max: MAX_MESSAGE_BYTES });
const verb = () => oneOf(['write', 'send', 'read'] as const).default('write');

const flowEntry = strict({
  src: name('a host name'),
  dst: name('a host name'),
  size: flowSize(),
  start: duration().default(0),
  stop: duration().optional(),
  verb: verb(),
  count: count().default(1),
  messageSize: messageSize().optional(),
  tag: text().optional(),
});

const workloadSchema = z.discriminatedUnion('kind', [
  strict({ kind: z.literal('flows'), flows: z.array(flowEntry).min(1), tag: text().optional() }),
  strict({
    kind: z.literal('incast'),
    senders: hostSelector(),
    receiver: name('a host name'),
    size: flowSize(),
    start: duration().default(0),
    startSpread: duration().default(0),
    flowsPerSender: count().default(1),
    count: count().default(1),
    interval: duration().optional(),
    verb: verb(),
    messageSize: messageSize().optional(),
    tag: text().optional(),
  }),
  strict({
    kind: z.literal('permutation'),
    hosts: hostSelector().default('all'),
    size: flowSize(),
    start: duration().default(0),
    startSpread: duration().default(0),
    flowsPerPair: count().default(1),
    verb: verb(),
    messageSize: messageSize().optional(),
    tag: text().optional(),
  }),
  strict({
    kind: z.literal('poisson'),
    cdf: text(),
    load: fraction({ above: 0 }),
    hosts: hostSelector().default('all'),
    receivers: hostSelector().optional(),
    sharedQp: bool().default(false),
    start: duration().default(0),
    stop: duration().optional(),
    flows: count().optional(),
    verb: verb(),
    messageSize: messageSize().optional(),
    tag: text().optional(),
  }),
  strict({
    kind: z.literal('alltoall'),
    hosts: hostSelector().default('all'),
    messageSize: messageSize(),
    iterations: count().default(1),
    start: duration().default(0),
    gap: duration().default(0),
    qpsPerPair: count().default(1),
    verb: verb(),
    tag: text().optional(),
  }),
  strict({
    kind: z.literal('matrix'),
    file: text(),
    hosts: hostSelector().default('all'),
    verb: verb(),
    messageSize: messageSize().optional(),
    tag: text().optional(),
  }),
  strict({
    kind: z.literal('collective'),
    job: name('a job name').optional(),
    op: oneOf(COLLECTIVE_OPS),
    algorithm: oneOf(COLLECTIVE_ALGORITHMS).optional(),
    ranks: hostSelector().default('all'),
    size: size({ min: 1 }).optional(),
    sizes: z
      .array(z.array(size()), {
        error: (iss) =>
          iss.code === 'invalid_type'
            ? `expected a list of rows of sizes, got ${showValue(iss.input)}`
            : undefined,
      })
      .optional(),
    skew: z
      .unknown()
      .transform((v, ctx): number => {
        if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v;
        ctx.addIssue({ code: 'custom', message: `expected a number ≥ 0, got ${showValue(v)}` });
        return z.NEVER;
      })
      .optional(),
    channels: count().default(1),
    chunk: messageSize().optional(),
    iterations: count().default(1),
    start: duration().default(0),
    gap: duration().default(0),
    tag: text().optional(),
  }),
]);

const ccSections = z.record(
  name('an algorithm name'),
  z.record(z.string(), z.unknown(), {
    error: (iss) =>
      iss.code === 'invalid_type'
        ? `expected a map of parameter → value, got ${showValue(iss.input)}`
        : undefined,
  }),
  {
    error: (iss) =>
      iss.code === 'invalid_type'
        ? `expected a map of algorithm → parameters, got ${showValue(iss.input)}`
        : undefined,
  },
);

export const scenarioSchema = strict({
  name: name('a scenario name').optional(),
  description: text().optional(),
  seed: integer({ min: 0, max: 2 ** 32 - 1 }).default(1),
  duration: duration({ min: 1 }).default(10_000_000),
  timeScale: positiveNumber().default(1000),
  sync: oneOf(['lockstep', 'wallclock'] as const).default('lockstep'),
  train: oneOf(['auto', 'off'] as const).default('auto'),
  timeWindow: oneOf(['link', 'off'] as const).default('link'),
  inProcessLinks: oneOf(['auto', 'socket', 'memory'] as const).default('auto'),
  processes: processCount().default('auto'),
  realtimePriority: oneOf(['auto', 'on', 'off'] as const).default('auto'),
  sampleInterval: duration({ min: 1 }).optional(),
  defaults: strict({
    link: linkDefaults.prefault({}),
    nic: nicDefaults.prefault({}),
    switch: switchDefaults.prefault({}),
  }).prefault({}),
  cc: ccSections.default({}),
  hosts: z
    .record(name('a host name'), nicOverride, {
      error: (iss) =>
        iss.code === 'invalid_type'
          ? `expected a map of host → NIC settings, got ${showValue(iss.input)}`
          : undefined,
    })
    .default({}),
  topology: topologySchema,
  links: z
    .array(
      strict({
        a: name('a node name'),
        b: name('a node name'),
        ...linkOverride.shape,
        at: duration().optional(),
        down: bool().optional(),
        oneWay: bool().optional(),
        trim: strict({
          queueBytes: size({ min: 1 }).optional(),
          headerQueueBytes: size({ min: 1 }).optional(),
          kmin: size().optional(),
          kmax: size().optional(),
        }).optional(),
        thresholds: oneOf(['scale', 'keep'] as const).optional(),
      }),
    )
    .default([]),
  workload: z.array(workloadSchema).default([]),
  variants: z
    .record(name('a variant name'), z.array(text()).min(1), {
      error: (iss) =>
        iss.code === 'invalid_type'
          ? `expected a map of variant → list of key=value overrides, got ${showValue(iss.input)}`
          : undefined,
    })
    .optional(),
  probes: strict({
    bin: duration({ min: 1 }),
    ports: z
      .union([
        z.literal('all'),
        z.array(strict({ switch: name('a switch name'), port: integer({ min: 0 }) })),
      ])
      .default('all'),
    flows: bool().default(true),
    qpState: z.array(name('a QP state variable')).optional(),
  }).optional(),
});

/** Output of stage 1. */
export type ParsedScenario = z.output<typeof scenarioSchema>;
/** What a scenario file may contain (before defaults). */
export type ScenarioInput = z.input<typeof scenarioSchema>;
