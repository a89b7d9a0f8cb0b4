/** A host running srcc turns the switch side on by itself (its `cp.build`), with CNM counts in results. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { srccScenario } from '../../../experiments/srcc/probe.js';
import { getAlgorithm, resolveParams } from '../../../src/cc/registry.js';
import { runScenario } from '../../../src/runtime/run.js';
import { setupRun } from '../../../src/runtime/scenario-setup.js';

describe('srcc registration and automatic switch side', () => {
  it('is registered with DCQCN profiles and carries its switch side (cp.build)', () => {
    expect(getAlgorithm('srcc').cp?.name).toBe('srcc');
    expect(typeof getAlgorithm('srcc').cp?.build).toBe('function');
    const p = resolveParams('srcc', { profile: 'paper', d: '4us', kappa: 2 });
    expect(p).toMatchObject({
      machine: 'paper',
      hopDelayNs: 4000,
      feedbackLoopFactor: 2,
      victimMode: 'strict',
    });
    expect(resolveParams('srcc').machine).toBe('hpcc-sim');
  });

  it('setupRun gives every switch the plug-in when one host runs srcc, and none otherwise', () => {
    const mixed = setupRun(srccScenario('s1-hol.yaml', ['defaults.nic.cc=dcqcn', 'hosts={h1: {cc: srcc}}']));
    const sw = mixed.topo.switches[0];
    const cfg = mixed.switchConfig(sw, { name: sw.name, id: 0, ports: [], routes: new Map() });
    expect(cfg.cp).toHaveLength(1);
    const none = setupRun(srccScenario('s1-hol.yaml', ['defaults.nic.cc=dcqcn']));
    expect(none.switchConfig(sw, { name: sw.name, id: 0, ports: [], routes: new Map() }).cp).toBeUndefined();
  });

  it('runs S-1 without any cpFactories: CNMs leave the switch toward H1 and show in results (cnmTx)', () => {
    const out = runScenario({
      scenario: srccScenario('s1-hol.yaml', ['duration=200us']),
      outDir: mkdtempSync(join(tmpdir(), 'rocelab-srcc-')),
      print: null,
    });
    const toH1 = out.results.ports.find((p) => p.node === 's1' && p.port === 0)!;
    expect(toH1.cnmTx).toBeGreaterThan(0);
    expect(toH1.pfcPauseTx).toBe(0);
    expect(out.results.ports.filter((p) => p.node === 's1' && p.port !== 0).every((p) => p.cnmTx === 0)).toBe(
      true,
    );
    expect(out.results.warnings.filter((w) => w.includes('not available'))).toEqual([]);
  });
});
