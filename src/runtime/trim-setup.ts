/**
 * The switches' trimming configuration of a run (docs/switch.md "Trimming", docs/scenario.md
 * `defaults.switch.trim`): the scenario's sizes, or the UEC reference simulator's defaults
 * (ultraethernet/uet-htsim, htsim/sim/datacenter/main_uec.cpp, commit 40ccb05), which follow the
 * network's bandwidth-delay product:
 *
 *   RTT  = the largest unloaded RTT between two hosts (networkMaxBaseRttNs: 2 × propagation + one
 *          full data frame and one ACK serialised on every link), the reference's
 *          `calculate_rtt` over the fat tree's diameter;
 *   BDP  = ⌈RTT × fastest host link rate / 8 / data frame⌉ data frames of the largest MTU
 *          (`calculate_bdp_pkt`);
 *   data queue = 1 × BDP (`DEFAULT_TRIMMING_QUEUESIZE_FACTOR`); header queue = 2 × the data
 *   queue (compositequeue.cpp drops a header beyond `2 * _maxsize`); RED from ⌈0.2 × BDP⌉ to
 *   ⌈0.8 × BDP⌉ whole frames, probability rising to 1 between them.
 *
 * On the reference's set-up (k = 4 fat tree, 100 Gbit/s, 1 µs links, 4 KB payload) that is
 * RTT ≈ 14.0 µs and 43 frames: 178 794 B (the reference: 43 × 4150 = 178 450 B, its frame being
 * 8 B shorter than our 4158-B RoCEv2 frame), RED 9 and 35 frames.
 */

import type { TrimConfig } from '../../switch/api.js';
import { ConfigError } from '../config/errors.js';
import type { Scenario } from '../config/scenario.js';
import { nicFor } from '../config/scenario.js';
import { formatSize } from '../config/units.js';
import type { Topology } from '../topology/model.js';
import { dataFrameBytes, networkMaxBaseRttNs } from '../topology/path.js';
import type { Routes } from '../topology/routing.js';

export interface NetworkBdp {
  rttNs: number;
  rateBps: number;
  /** Bytes of one full data frame of the largest MTU. */
  frameBytes: number;
  /** BDP in whole data frames (rounded up). */
  frames: number;
}

export function networkBdp(s: Scenario, topo: Topology, routes: Routes): NetworkBdp {
  const mtuBytes = Math.max(...topo.hosts.map((h) => nicFor(s, h.name).mtuBytes));
  const rateBps = Math.max(...topo.hosts.map((h) => h.ports[0].rateBps));
  const rttNs = networkMaxBaseRttNs(topo, routes, mtuBytes);
  const frameBytes = dataFrameBytes(mtuBytes);
  const frames = Math.ceil((rttNs * rateBps) / 8e9 / frameBytes);
  return { rttNs, rateBps, frameBytes, frames };
}

/**
 * The trimming queue of each egress port a `links` entry gives its own (`trim`), by node and
 * port: a slowed link's smaller queue and thresholds (the reference's `-failed` links keep 25 %).
 * A key the entry leaves out keeps the port's own value at its rate (`portTrim`: the switch-wide
 * queue, scaled when the entry changed the link's rate, docs/scenario.md "links"), except the
 * header queue, which follows a given `queueBytes` at 2 × (as `defaults.switch.trim` does).
 */
export function linkTrimConfigs(
  s: Scenario,
  topo: Topology,
  base: TrimConfig | null,
  portTrim: (node: string, port: number) => TrimConfig,
): Map<string, TrimConfig> {
  const out = new Map<string, TrimConfig>();
  if (base === null) return out;
  s.links.forEach((l, i) => {
    const t = l.trim;
    if (t === undefined) return;
    for (const [from, to] of l.oneWay === true
      ? [[l.a, l.b]]
      : [
          [l.a, l.b],
          [l.b, l.a],
        ]) {
      for (const p of topo.byName.get(from)!.ports) {
        if (p.peerNode !== to) continue;
        const own = portTrim(from, p.index);
        const queueBytes = t.queueBytes ?? own.queueBytes;
        const cfg: TrimConfig = {
          queueBytes,
          headerQueueBytes:
            t.headerQueueBytes ?? (t.queueBytes !== undefined ? 2 * t.queueBytes : own.headerQueueBytes),
          ecn: {
            kminBytes: t.kminBytes ?? own.ecn.kminBytes,
            kmaxBytes: t.kmaxBytes ?? own.ecn.kmaxBytes,
            pmax: own.ecn.pmax,
          },
        };
        if (cfg.ecn.kminBytes > cfg.ecn.kmaxBytes || cfg.ecn.kmaxBytes > queueBytes)
          throw new ConfigError(
            `links[${i}].trim`,
            `needs kmin <= kmax <= queueBytes, got ${formatSize(cfg.ecn.kminBytes)} / ${formatSize(cfg.ecn.kmaxBytes)} / ${formatSize(queueBytes)}`,
          );
        out.set(`${from}:${p.index}`, cfg);
      }
    }
  });
  return out;
}

/** The switches' TrimConfig, or null when the scenario does not trim. */
export function switchTrimConfig(s: Scenario, topo: Topology, routes: Routes): TrimConfig | null {
  const t = s.defaults.switch.trim;
  if (!t.enabled) return null;
  const bdp =
    t.queueBytes === null || t.kminBytes === null || t.kmaxBytes === null
      ? networkBdp(s, topo, routes)
      : null;
  const framesOf = (fraction: number) => Math.ceil(bdp!.frames * fraction) * bdp!.frameBytes;
  const queueBytes = t.queueBytes ?? bdp!.frames * bdp!.frameBytes;
  const kminBytes = t.kminBytes ?? framesOf(0.2);
  const kmaxBytes = t.kmaxBytes ?? framesOf(0.8);
  const path = 'defaults.switch.trim';
  if (kminBytes > kmaxBytes)
    throw new ConfigError(
      path,
      `kmin (${formatSize(kminBytes)}) exceeds kmax (${formatSize(kmaxBytes)}); set both`,
    );
  if (kmaxBytes > queueBytes)
    throw new ConfigError(
      path,
      `kmax (${formatSize(kmaxBytes)}) exceeds queueBytes (${formatSize(queueBytes)}); set kmin and kmax for this queue`,
    );
  return {
    queueBytes,
    headerQueueBytes: t.headerQueueBytes ?? 2 * queueBytes,
    ecn: { kminBytes, kmaxBytes, pmax: t.pmax },
  };
}
