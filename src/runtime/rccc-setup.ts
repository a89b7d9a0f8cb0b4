/**
 * The receiver credits (UET RCCC, docs/algorithms/rccc.md) each host's NIC runs, resolved from
 * the scenario the way the UEC reference simulator sets them up (ultraethernet/uet-htsim,
 * htsim/sim/datacenter/main_uec.cpp): the credit cap follows the fabric's largest unloaded RTT
 * (`network_max_unloaded_rtt`, which `initRccc` is given) unless `rccc.networkRtt` sets one, and
 * the receiver's rate control for oversubscribed fabrics runs, under `oversubscription: auto`,
 * when the fabric is oversubscribed and the hosts that send to this one keep no window of their
 * own (`cc: none`; the reference: `get_oversubscription_ratio() > 1 && !_sender_based_cc`).
 */
import type { CcSpec } from '../../nic/api.js';
import type { RcccNicConfig } from '../../nic/rccc/settings.js';
import { nicFor, type Scenario } from '../config/scenario.js';
import type { Topology } from '../topology/model.js';
import { networkMaxBaseRttNs } from '../topology/path.js';
import type { Routes } from '../topology/routing.js';

/**
 * The fabric's oversubscription: the largest ratio, over switches with hosts attached, of the
 * capacity facing hosts to the capacity facing other switches (1 on a full-bisection fat tree,
 * hostsPerLeaf / spines on a leaf-spine of equal links).
 */
export function oversubscriptionRatio(topo: Topology): number {
  let ratio = 1;
  for (const sw of topo.switches) {
    let down = 0;
    let up = 0;
    for (const p of sw.ports) {
      if (topo.byName.get(p.peerNode)?.kind === 'host') down += p.rateBps;
      else up += p.rateBps;
    }
    if (down > 0 && up > 0) ratio = Math.max(ratio, down / up);
  }
  return ratio;
}

/** Each host's RcccNicConfig, or null where it does not pull. */
export function rcccNicConfigs(
  s: Scenario,
  topo: Topology,
  routes: Routes,
  flows: readonly { src: string; dst: string }[],
  ccByHost: ReadonlyMap<string, CcSpec>,
): Map<string, RcccNicConfig | null> {
  const out = new Map<string, RcccNicConfig | null>();
  const pulling = topo.hosts.filter((h) => nicFor(s, h.name).rccc.enabled);
  if (pulling.length === 0) return out;
  const mtu = Math.max(...topo.hosts.map((h) => nicFor(s, h.name).mtuBytes));
  const fabricRttNs = networkMaxBaseRttNs(topo, routes, mtu);
  const ratio = oversubscriptionRatio(topo);
  const windowedSenders = new Set<string>();
  for (const f of flows) if (ccByHost.get(f.src)?.name !== 'none') windowedSenders.add(f.dst);
  for (const h of pulling) {
    const r = nicFor(s, h.name).rccc;
    const control =
      r.oversubscription === 'on' ||
      (r.oversubscription === 'auto' && ratio > 1 && !windowedSenders.has(h.name));
    out.set(h.name, {
      ...r,
      networkRttNs: r.networkRttNs > 0 ? r.networkRttNs : fabricRttNs,
      oversubscriptionRatio: control ? ratio : null,
    });
  }
  return out;
}
