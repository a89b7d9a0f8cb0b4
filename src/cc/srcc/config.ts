/**
 * From SRCC parameters and the topology to the switch-side settings (Sub-RTT Congestion Control,
 * Hu et al., IEEE TII 2024; docs/algorithms/srcc.md):
 * d defaults to the largest link delay, the RTT unit to baseRTT_max (the largest unloaded
 * host-to-host RTT: T must span a victim's packet gaps on the longest path).
 */
import type { SwitchCpFactory } from '../../../switch/cp.js';
import type { Topology } from '../../topology/model.js';
import { hostPath } from '../../topology/path.js';
import type { Routes } from '../../topology/routing.js';
import { createSrccCp, type SrccCpConfig, type SrccCpObserver } from './cp.js';
import type { SrccParams } from './params.js';
import { srccParams } from './params.js';

export interface TopologyFacts {
  /** Largest unloaded RTT (MTU data frame + ACK) between two hosts, ns. */
  baseRttMaxNs: number;
  /** Largest one-way link delay, ns. */
  maxLinkDelayNs: number;
}

export function topologyFacts(topo: Topology, routes: Routes, mtuBytes: number): TopologyFacts {
  let maxLinkDelayNs = 0;
  for (const n of topo.nodes) for (const p of n.ports) maxLinkDelayNs = Math.max(maxLinkDelayNs, p.delayNs);
  // Hosts on the same switch with the same link see the same paths: one source per group.
  const seen = new Set<string>();
  let baseRttMaxNs = 0;
  for (const src of topo.hosts) {
    const p = src.ports[0];
    const group = `${p.peerNode}|${p.rateBps}|${p.delayNs}`;
    if (seen.has(group)) continue;
    seen.add(group);
    for (const dst of topo.hosts) {
      if (dst === src) continue;
      baseRttMaxNs = Math.max(baseRttMaxNs, hostPath(topo, routes, src.name, dst.name, mtuBytes).baseRttNs);
    }
  }
  return { baseRttMaxNs, maxLinkDelayNs };
}

export function srccCpConfig(p: SrccParams, facts: TopologyFacts): SrccCpConfig {
  const rttNs = p.baseRttNs > 0 ? p.baseRttNs : facts.baseRttMaxNs;
  const victimWindowNs = p.victimWindowRtts * rttNs;
  return {
    hopDelayNs: p.hopDelayNs > 0 ? p.hopDelayNs : facts.maxLinkDelayNs,
    victimWindowNs,
    activeWindowNs: p.activeWindowRtts * rttNs,
    qFloorBytes: p.qFloorBytes,
    thresholdMode: p.thresholdMode,
    fixedFraction: p.fixedFraction,
    kappa: p.feedbackLoopFactor,
    victimMode: p.victimMode,
    cnmIntervalFactor: p.cnmIntervalFactor,
    ttlInit: p.ttlInit,
    flowTableAgeNs: p.flowTableAgeFactor * victimWindowNs,
    ftKeying: p.ftKeying,
    cnmIpFallback: p.cnmIpFallback,
    skipWhenEgressPaused: p.skipWhenEgressPaused,
    queueSampling: p.queueSampling,
    rateWindowNs: Math.max(1, rttNs / 4),
  };
}

export interface SrccCpContext {
  params: Record<string, unknown>;
  topo: Topology;
  routes: Routes;
  mtuBytes: number;
}

/** The switch side of a run (srcc's `cp.build`; observer: checks and tests). */
export function buildSrccCp(ctx: SrccCpContext, observer: SrccCpObserver | null = null): SwitchCpFactory {
  const facts = topologyFacts(ctx.topo, ctx.routes, ctx.mtuBytes);
  return createSrccCp(srccCpConfig(srccParams.parse(ctx.params), facts), observer);
}
