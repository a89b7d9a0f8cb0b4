/** Builds virtual runs from scenario YAML for tests. */

import { createNic } from '../../nic/api.js';
import { parseScenarioText } from '../../src/config/load.js';
import type { Scenario } from '../../src/config/scenario.js';
import { type RunSetup, setupRun } from '../../src/runtime/scenario-setup.js';
import type { DropFilter, LinkLoss, LinkTap } from '../../src/runtime/virtual/fabric.js';
import { type NicFactory, type SwitchFactory, VirtualRun } from '../../src/runtime/virtual/virtual-run.js';
import { createSwitch } from '../../switch/api.js';
import { createStubNic, createStubSwitch } from './stub-firmware.js';

export interface TestRunOptions {
  /** Stub firmware (exact CC-free timing) instead of the real NIC and switch. */
  stub?: boolean;
  cc?: string;
  seed?: number;
  loss?: LinkLoss;
  drop?: DropFilter;
  tap?: LinkTap;
  createNic?: NicFactory;
  createSwitch?: SwitchFactory;
  /** false: hosts' applications run as real nodes do (VirtualRunInput.directPeers). */
  directPeers?: boolean;
  /** VirtualRunInput.recyclePackets. */
  recyclePackets?: boolean;
  /** VirtualRunInput.windows (false: every event in time order). */
  windows?: boolean;
}

export function scenario(yaml: string): Scenario {
  return parseScenarioText(yaml, { file: 'test.yaml', dir: process.cwd() });
}

export function makeRun(
  yamlOrScenario: string | Scenario,
  o: TestRunOptions = {},
): { run: VirtualRun; setup: RunSetup } {
  const s = typeof yamlOrScenario === 'string' ? scenario(yamlOrScenario) : yamlOrScenario;
  const setup = setupRun(s, { cc: o.cc, seed: o.seed });
  const run = new VirtualRun({
    scenario: s.name,
    seed: o.seed ?? s.seed,
    timeScale: s.timeScale,
    durationNs: s.durationNs,
    sampleIntervalNs: s.sampleIntervalNs,
    topo: setup.topo,
    routes: setup.routes,
    workload: setup.workload,
    nicConfig: setup.nicConfig,
    switchConfig: setup.switchConfig,
    createNic: o.createNic ?? (o.stub === true ? createStubNic : createNic),
    createSwitch: o.createSwitch ?? (o.stub === true ? createStubSwitch : createSwitch),
    loss: o.loss,
    drop: o.drop,
    tap: o.tap,
    directPeers: o.directPeers,
    recyclePackets: o.recyclePackets,
    windows: o.windows,
  });
  return { run, setup };
}
