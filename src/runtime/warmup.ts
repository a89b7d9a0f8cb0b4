/**
 * JIT warm-up before a node says it is ready. At emulated t=0 every node starts running code it
 * has never run (codecs, NIC and switch paths, the CC algorithm) at the same instant, and V8's
 * compilation plus the CPU contention of all nodes starting together would cost the first tens of
 * ms real — whole RTTs of emulated time at moderate time dilation, during which congestion
 * feedback is late. So each node first runs the same code on throwaway objects: a short incast in
 * virtual time with its own algorithm, and the overlay codecs on the frames that run produced.
 */
import { createNic } from '../../nic/api.js';
import { createSwitch } from '../../switch/api.js';
import { loadScenario } from '../config/load.js';
import type { Scenario } from '../config/scenario.js';
import { decapsulate, decapsulateVxlan, encapsulate, encapsulateVxlan } from '../wire/encap.js';
import type { Packet } from '../wire/packet.js';
import { setupRun } from './scenario-setup.js';
import { VirtualRun } from './virtual/virtual-run.js';

/**
 * The warm-up incast, for this virtual warm-up and the real path's (real/warm-up-run.ts): a star
 * of four hosts (and its switch s1), three sending 150 KB to the fourth, with `ccName`.
 */
export function warmUpScenario(ccName: string, duration: string): Scenario {
  return loadScenario({
    text: `name: warmup
duration: ${duration}
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: ${JSON.stringify(ccName)}, mtu: 1000 }
  switch: { buffer: 4MB, ecn: { kmin: 20KB, kmax: 80KB, pmax: 0.2 }, pfc: true }
topology: { kind: star, hosts: 4 }
workload:
  - { kind: incast, senders: [h1, h2, h3], receiver: h4, size: 150KB, start: 0 }
`,
  });
}

/** Runs for at most ~`budgetMs` real ms. */
export function warmUp(ccName: string, budgetMs = 400): void {
  const t0 = performance.now();
  const frames: Packet[] = [];
  try {
    const s = warmUpScenario(ccName, '400us');
    const setup = setupRun(s);
    const run = new VirtualRun({
      scenario: 'warmup',
      seed: 1,
      durationNs: s.durationNs,
      topo: setup.topo,
      routes: setup.routes,
      workload: setup.workload,
      nicConfig: setup.nicConfig,
      switchConfig: setup.switchConfig,
      createNic,
      createSwitch,
      tap: {
        onTx: (_n, _p, pkt) => {
          if (frames.length < 512) frames.push(pkt);
        },
      },
    });
    run.run();
  } catch {
    // an algorithm the warm-up scenario cannot run: the node just starts colder
  }
  let round = 0;
  while (performance.now() - t0 < budgetMs && round < 20 && frames.length > 0) {
    for (const p of frames) {
      try {
        const g = encapsulate(p, { vni: 1 });
        decapsulate(g, { payload: 'drop' });
        if ((round & 3) === 0) decapsulateVxlan(encapsulateVxlan(p, { vni: 1 }), { payload: 'drop' });
      } catch {
        // frames the overlay cannot carry are not warm-up material
      }
    }
    round++;
  }
}
