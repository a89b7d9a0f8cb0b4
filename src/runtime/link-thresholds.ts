/**
 * Byte thresholds of a switch port whose link a `links` entry slows down or speeds up, from the
 * start or at a time (docs/scenario.md "links"). A RED threshold or a queue cap in bytes stands
 * for a queueing delay at the rate it was set for, so a link that changes rate keeps the delay:
 * its RED/ECN thresholds come from `ecn.byRate` for the new rate when the table has it, else the
 * built rate's thresholds scaled by new ÷ built rate, and its trimming queue caps and their RED
 * thresholds scale the same way. That is the UEC reference simulator's rule for its slowed links
 * (ultraethernet/uet-htsim, fat_tree_topology.cpp `alloc_queue` with `reduced_speed`: speed,
 * queue size and ECN thresholds × the failed-link ratio) and the HPCC simulator's per-rate
 * thresholds (its KMIN/KMAX maps, "scaled with bandwidth"). `thresholds: keep` on the entry
 * leaves the bytes as they were (a `byRate` entry for the new rate still applies).
 */

import type { PortEvent, EcnConfig as SwitchEcn, TrimConfig } from '../../switch/api.js';
import type { LinkOverride, Scenario } from '../config/scenario.js';
import type { Topology } from '../topology/model.js';

export interface PortThresholds {
  ecn: SwitchEcn;
  /** Absent when trimming is off. */
  trim?: TrimConfig;
}

export class LinkThresholds {
  /** `node:port` → the rate the port was built with (only ports a `links` rate touches). */
  private readonly builtRateBps = new Map<string, number>();
  /** `node:port` → the static entry that set its rate said `thresholds: keep`. */
  private readonly keepStatic = new Set<string>();

  constructor(
    private readonly s: Scenario,
    built: Topology,
    private readonly trim: TrimConfig | null,
    /** RED thresholds of a port built at a rate (`ecn.byRate`, else the switch-wide ones). */
    private readonly ecnOf: (rateBps: number) => SwitchEcn,
  ) {
    for (const l of s.links) {
      if (l.rateBps === undefined) continue;
      for (const [node, port] of portsOf(built, l)) {
        const key = `${node}:${port}`;
        if (!this.builtRateBps.has(key))
          this.builtRateBps.set(key, built.byName.get(node)!.ports[port].rateBps);
        if (l.atNs !== undefined) continue;
        if (l.thresholds === 'keep') this.keepStatic.add(key);
        else this.keepStatic.delete(key);
      }
    }
  }

  /** Thresholds of switch `node`'s port `port` as the run starts, at its (possibly overridden) rate. */
  initial(node: string, port: number, rateBps: number): PortThresholds {
    return this.at(node, port, rateBps, this.keepStatic.has(`${node}:${port}`));
  }

  /** Thresholds of the port at `rateBps`; `keep`: the bytes of the built rate stay. */
  at(node: string, port: number, rateBps: number, keep: boolean): PortThresholds {
    const builtBps = this.builtRateBps.get(`${node}:${port}`) ?? rateBps;
    const scale = rateBps / builtBps;
    const t = this.trim;
    if (keep || scale === 1) return { ecn: this.ecnOf(rateBps), ...(t !== null ? { trim: t } : {}) };
    const byRate = this.s.defaults.switch.ecn.byRate.some((e) => e.rateBps === rateBps);
    const base = this.ecnOf(builtBps);
    const ecn = byRate
      ? this.ecnOf(rateBps)
      : { ...base, kminBytes: bytes(base.kminBytes, scale), kmaxBytes: bytes(base.kmaxBytes, scale) };
    if (t === null) return { ecn };
    const trim: TrimConfig = {
      queueBytes: bytes(t.queueBytes, scale),
      headerQueueBytes: bytes(t.headerQueueBytes, scale),
      ecn: { ...t.ecn, kminBytes: bytes(t.ecn.kminBytes, scale), kmaxBytes: bytes(t.ecn.kmaxBytes, scale) },
    };
    return { ecn, trim };
  }

  /** A rate event of `node` with the thresholds of its new rate, unless its entry keeps them. */
  event(node: string, ev: PortEvent, entry: LinkOverride): PortEvent {
    if (ev.rateBps === undefined || entry.thresholds === 'keep') return ev;
    const t = this.at(node, ev.port, ev.rateBps, false);
    return { ...ev, ecn: pick(t.ecn), ...(t.trim !== undefined ? { trim: t.trim } : {}) };
  }
}

/** Every (switch, port) at either end of the entry's link. */
function portsOf(topo: Topology, l: LinkOverride): [string, number][] {
  const out: [string, number][] = [];
  for (const [from, to] of [
    [l.a, l.b],
    [l.b, l.a],
  ]) {
    const node = topo.byName.get(from);
    if (node === undefined || node.kind !== 'switch') continue;
    for (const p of node.ports) if (p.peerNode === to) out.push([from, p.index]);
  }
  return out;
}

const bytes = (b: number, scale: number) => Math.round(b * scale);
const pick = (e: SwitchEcn) => ({ kminBytes: e.kminBytes, kmaxBytes: e.kmaxBytes, pmax: e.pmax });
