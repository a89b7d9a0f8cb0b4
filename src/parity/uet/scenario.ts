/**
 * One experiment of the reference's validation suite as our scenario (docs/parity.md, table
 * "Reference option → scenario key"): the same fabric (its 3-tier fat tree for the matrix's node
 * count, or its leaf-spine file), 100 Gbit/s and 1 µs per link, its queue sizing and ECN
 * thresholds, its connection matrix, and our equivalents of its options. The multipath keys
 * (`transport`, `paths`, `switch.trim`, timed `links`) are those of issue 34.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { dataFrameSizeBytes } from '../../../nic/frames.js';
import type { RefOptions } from './options.js';
import {
  failedFatTreeLinks,
  fatTreeFor,
  networkRttNs,
  parseLeafSpineTopo,
  REF_FAILED_LINK_RATIO,
  REF_PACKET_BYTES,
  REF_PAYLOAD_BYTES,
  REF_RATE_BPS,
  type RefTopology,
  refQueues,
} from './setup.js';

export interface ParityScenarioInput {
  id: string;
  /** Matrix file name (in `dataDir`/matrices) and its node count. */
  matrix: string;
  nodes: number;
  options: RefOptions;
  /** parity/uet: matrices/ and topologies/. */
  dataDir: string;
  /** Our run's random seed; default 13, htsim_uec's default (the recorded runs). */
  seed?: number;
}

/** htsim_uec's random seed when none is given (main_uec.cpp), the one the recorded runs used. */
export const REF_DEFAULT_SEED = 13;

export function refTopology(x: ParityScenarioInput): RefTopology {
  if (x.options.topo === null) return fatTreeFor(x.nodes);
  const t = parseLeafSpineTopo(readFileSync(join(x.dataDir, 'topologies', x.options.topo), 'utf8'));
  if (t.hosts !== x.nodes) throw new Error(`${x.options.topo} has ${t.hosts} hosts, the matrix ${x.nodes}`);
  return t;
}

/** The scenario as a plain object (YAML-ready). */
export function parityScenario(x: ParityScenarioInput): Record<string, unknown> {
  const o = x.options;
  const topo = refTopology(x);
  const q = refQueues(topo, o.queuePackets);
  // The reference sizes its queues and ECN thresholds in whole 4150-byte packets; our data frame
  // is longer (RoCEv2's headers, and the pull target with receiver credits), so the same bytes
  // would hold one packet less (42 of 43): the same packet counts in our frames instead.
  const frameBytes = dataFrameSizeBytes(REF_PAYLOAD_BYTES, null, o.receiverCc);
  const inFrames = (refBytes: number) => (refBytes / REF_PACKET_BYTES) * frameBytes;
  const rttNs = Math.round(networkRttNs(topo));
  const nic: Record<string, unknown> = {
    cc: o.senderCc ? 'nscc' : 'none',
    // 4086 B of payload: the reference's packets (4150 B with its 64-byte header), so a 2 MB flow
    // is 490 packets in both simulators.
    mtu: REF_PAYLOAD_BYTES,
    rto: Math.round(q.minRtoNs),
    transport: 'uet',
    paths: { policy: o.balancer, count: o.paths },
    // The reference's sink counts wire bytes (4150 a packet) against -sack_threshold, ours
    // payload: the same number of packets per ACK.
    sackBytes: Math.ceil(o.sackBytes / REF_PACKET_BYTES) * REF_PAYLOAD_BYTES,
    rccc: o.receiverCc ? { enabled: true, oversubscription: 'auto' } : false,
  };
  const cc: Record<string, unknown> = {};
  if (o.senderCc) {
    cc.nscc = {
      networkRtt: rttNs,
      ...(o.cwndPackets !== null ? { initialWindowBytes: o.cwndPackets * REF_PAYLOAD_BYTES } : {}),
    };
  }
  // A failed link runs at 25 % in the core → aggregation direction only, with its queue and ECN
  // thresholds scaled by the same 25 % (FatTreeTopology::alloc_queue, reduced_speed).
  const scaled = (bytes: number) => Math.floor(bytes * REF_FAILED_LINK_RATIO);
  const links =
    o.failed > 0
      ? failedFatTreeLinks(topo, o.failed).map((l) => ({
          a: l.core,
          b: l.agg,
          rate: REF_RATE_BPS * REF_FAILED_LINK_RATIO,
          oneWay: true,
          trim: {
            queueBytes: scaled(inFrames(q.queueBytes)),
            headerQueueBytes: 2 * scaled(inFrames(q.queueBytes)),
            kmin: scaled(inFrames(q.ecnLowBytes)),
            kmax: scaled(inFrames(q.ecnHighBytes)),
          },
        }))
      : [];
  return {
    name: `uet-parity-${x.id.replace(/[^A-Za-z0-9_.-]+/g, '-')}`,
    description: `uet-htsim validation: ${x.id}`,
    seed: x.seed ?? REF_DEFAULT_SEED,
    duration: `${o.endUs}us`,
    defaults: {
      link: { rate: REF_RATE_BPS, delay: '1us' },
      nic,
      switch: {
        pfc: false,
        // With receiver credits the reference marks no ToR port that faces a host
        // (set_ecn_parameters(true, !receiver_driven, …)).
        ...(o.receiverCc ? { ecn: { hostPorts: false } } : {}),
        trim: {
          enabled: true,
          queueBytes: inFrames(q.queueBytes),
          headerQueueBytes: 2 * inFrames(q.queueBytes),
          kmin: inFrames(q.ecnLowBytes),
          kmax: inFrames(q.ecnHighBytes),
          pmax: 1,
        },
      },
    },
    cc,
    topology:
      topo.kind === 'fattree'
        ? { kind: 'fattree', k: topo.k }
        : { kind: 'leafspine', leaves: topo.leaves, spines: topo.spines, hostsPerLeaf: topo.hostsPerLeaf },
    links,
    workload: [{ kind: 'matrix', file: join(x.dataDir, 'matrices', x.matrix) }],
  };
}

export function parityScenarioText(x: ParityScenarioInput): string {
  return stringify(parityScenario(x));
}
