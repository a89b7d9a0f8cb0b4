/**
 * Switch-side algorithm logic by name (the `cp` an algorithm names in CcAlgorithm.cp). The
 * run setup asks for a factory when some host runs such an algorithm and the caller gave none
 * (RunOptions.cpFactories still wins, e.g. for tests that observe the switch).
 */
import type { SwitchCpFactory } from '../../switch/cp.js';
import type { Topology } from '../topology/model.js';
import type { Routes } from '../topology/routing.js';
import { buildSrccCp } from './srcc/config.js';

export interface CpBuildContext {
  /** Resolved parameters of the algorithm that named this CP. */
  params: Record<string, unknown>;
  topo: Topology;
  routes: Routes;
  /** Data payload per packet (for unloaded-RTT figures). */
  mtuBytes: number;
}

export type CpBuilder = (ctx: CpBuildContext) => SwitchCpFactory;

const builders = new Map<string, CpBuilder>();

export function registerCp(name: string, builder: CpBuilder): void {
  if (builders.has(name)) throw new Error(`switch logic "${name}" registered twice`);
  builders.set(name, builder);
}

export function getCpBuilder(name: string): CpBuilder | undefined {
  return builders.get(name);
}

registerCp('srcc', (ctx) => buildSrccCp(ctx));
