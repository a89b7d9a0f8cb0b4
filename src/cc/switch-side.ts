/**
 * The switch side of an algorithm (DCQCN's CP role), a typed extension of CcAlgorithm: what the
 * run setup (src/runtime/scenario-setup.ts) gives every switch when any host runs the algorithm.
 * docs/cc-api.md ("How an algorithm reaches the NIC and the switches").
 */
import type { SwitchCpFactory } from '../../switch/cp.js';
import type { Topology } from '../topology/model.js';
import type { Routes } from '../topology/routing.js';

/** What a switch-side builder gets: the run's resolved parameters and its topology. */
export interface CpBuildContext<P> {
  /** Resolved parameters of the algorithm (of the first host, by name order, that runs it). */
  params: P;
  topo: Topology;
  routes: Routes;
  /** Data payload per packet (for unloaded-RTT figures). */
  mtuBytes: number;
}

/**
 * Settings of the switches' per-port active-flow counter (SwitchConfig.activeFlow*) an algorithm
 * needs. When several algorithms ask, the run uses the largest window and byte threshold and
 * forgets at message end if any asks to.
 */
export interface ActiveFlowRequest {
  /** A flow stays active this long after its last packet, ns (SwitchConfig.activeFlowWindowNs). */
  windowNs: number;
  /** Count a flow only after this many bytes (SwitchConfig.activeFlowMinBytes); 0 counts all. */
  minBytes: number;
  /** Drop a flow at its message's last packet. */
  forgetAtEnd: boolean;
}

export interface CcSwitchSide<P> {
  /** Name of the switch logic (RunOptions.cpFactories keys). */
  name: string;
  /** The per-switch plug-in factory (switch/cp.ts) for this run; absent when none is needed. */
  build?(ctx: CpBuildContext<P>): SwitchCpFactory;
  /**
   * The active-flow counter this algorithm needs, given the largest unloaded base RTT of the run's
   * flows (HPCC convention, ns).
   */
  activeFlows?(params: P, maxBaseRttNs: number): ActiveFlowRequest;
  /**
   * The switch logic keys a flow by its 5-tuple, UDP source port included (SRCC's flow table and
   * CNM flow id). Spraying writes a different source port (entropy) on each packet, so a host
   * running it with a path policy other than `ecmp` is refused (docs/multipath.md).
   */
  keysFlowsBySourcePort?: boolean;
}
