/**
 * MPCC's [OURS] flow-counter options reach every switch through setupRun (docs/switch.md,
 * docs/algorithms/mpcc.md "Mouse-heavy mixes"), and the defaults leave the switch config as the
 * thesis' counter: no threshold, no forgetting at the end of a message.
 */
import { describe, expect, it } from 'vitest';
import { mpccScenario } from '../../../experiments/mpcc/probe.js';
import { resolveParams } from '../../../src/cc/registry.js';
import { setupRun } from '../../../src/runtime/scenario-setup.js';

const switchCfg = (overrides: string[]) => {
  const s = setupRun(mpccScenario('int-counter.yaml', overrides));
  const sw = s.topo.switches[0];
  return s.switchConfig(sw, { name: sw.name, id: 0, ports: [], routes: new Map() });
};

describe('mpcc flow-counter options', () => {
  it('default: the counter window only', () => {
    const cfg = switchCfg([]);
    expect(cfg.activeFlowWindowNs).toBeGreaterThan(0);
    expect(cfg.activeFlowMinBytes).toBeUndefined();
    expect(cfg.activeFlowForgetAtEnd).toBeUndefined();
    expect(resolveParams('mpcc')).toMatchObject({ flowCountMinBytes: 0, flowCountForgetAtEnd: false });
  });

  it('flowCountForgetAtEnd and flowCountMinBytes are handed to the switches', () => {
    const cfg = switchCfg(['cc.mpcc.flowCountForgetAtEnd=true', 'cc.mpcc.flowCountMinBytes=150KB']);
    expect(cfg.activeFlowForgetAtEnd).toBe(true);
    expect(cfg.activeFlowMinBytes).toBe(150_000);
    expect(switchCfg(['cc.mpcc.flowCountMinBytes=8KB']).activeFlowMinBytes).toBe(8000);
  });
});
