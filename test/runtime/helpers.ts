/** Builds VirtualRun inputs with plain defaults for tests. */
import type { NicConfig } from '../../nic/api.js';
import { createRng } from '../../src/env/rng.js';
import {
  type NicBase,
  type NicFactory,
  type SwitchBase,
  type SwitchFactory,
  VirtualRun,
  type VirtualRunInput,
} from '../../src/runtime/virtual/virtual-run.js';
import type { Topology } from '../../src/topology/model.js';
import { generateWorkload, type WorkloadEntry } from '../../src/workload/generate.js';
import type { SwitchConfig } from '../../switch/api.js';
import { createStubNic, createStubSwitch } from './stub-firmware.js';

export interface TestRunOptions {
  topo: Topology;
  entries: WorkloadEntry[];
  seed?: number;
  durationNs: number;
  sampleIntervalNs?: number;
  createNic?: NicFactory;
  createSwitch?: SwitchFactory;
  nic?: Partial<Omit<NicConfig, 'observer' | 'name' | 'ip' | 'port'>>;
  switch?: Partial<Omit<SwitchConfig, 'name' | 'id' | 'ports' | 'routes'>>;
  extra?: Partial<VirtualRunInput>;
}

export function testNicConfig(base: NicBase, o: TestRunOptions['nic'] = {}): Omit<NicConfig, 'observer'> {
  return {
    ...base,
    mtuBytes: 1000,
    ackEveryPackets: 1,
    rtoNs: 100_000,
    dataPrio: 3,
    controlPrio: 6,
    cc: { name: 'none', params: {} },
    ...o,
  };
}

export function testSwitchConfig(base: SwitchBase, o: TestRunOptions['switch'] = {}): SwitchConfig {
  return {
    ...base,
    bufferBytes: 32 * 1024 * 1024,
    ecn: { kminBytes: 400_000, kmaxBytes: 1_600_000, pmax: 0.2 },
    pfc: {
      enabled: true,
      thresholdBytes: 0,
      dynamicAlpha: 1 / 8,
      headroomBytes: 37_500,
      resumeOffsetBytes: 3072,
      reserveBytes: 4096,
    },
    controlPrio: 6,
    ecmpSeed: 0,
    ...o,
  };
}

export function makeRun(o: TestRunOptions): VirtualRun {
  const seed = o.seed ?? 1;
  const workload = generateWorkload(o.topo, o.entries, { rng: createRng(seed).fork('workload') });
  return new VirtualRun({
    scenario: 'test',
    seed,
    durationNs: o.durationNs,
    sampleIntervalNs: o.sampleIntervalNs,
    topo: o.topo,
    workload,
    nicConfig: (_n, base) => testNicConfig(base, o.nic),
    switchConfig: (_n, base) => testSwitchConfig(base, o.switch),
    createNic: o.createNic ?? createStubNic,
    createSwitch: o.createSwitch ?? createStubSwitch,
    ...o.extra,
  });
}
