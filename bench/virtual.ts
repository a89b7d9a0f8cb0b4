/**
 * Virtual-runtime throughput: events/s and simulated packet-hops/s on the shipped incast and
 * WebSearch scenarios, and the wall time of the reference run (10 ms of WebSearch at 50 %
 * load on the 16-host leaf-spine, DCQCN, run until every flow completes). The HPCC ns-3 simulator
 * (optimized build) takes about 11 s for that run on this class of machine; we print our time and
 * the ratio to that figure. Timings are whole-run wall and CPU times of this process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenario } from '../src/config/load.js';
import { runScenario } from '../src/runtime/run.js';

const NS3_REFERENCE_WALL_S = 11;

function scenarioPath(name: string): string {
  return join(import.meta.dirname, '../../scenarios', name);
}

function runOnce(file: string): void {
  const outDir = mkdtempSync(join(tmpdir(), 'rocelab-bench-'));
  try {
    const cpu0 = process.cpuUsage();
    const o = runScenario({ scenario: loadScenario(scenarioPath(file)), outDir, print: null });
    const cpu = process.cpuUsage(cpu0);
    const wallS = o.wallMs / 1000;
    const cpuS = (cpu.user + cpu.system) / 1e6;
    const s = o.results.summary;
    console.log(
      `${file.padEnd(26)} flows ${s.flowsCompleted}/${s.flowsTotal}  wall ${wallS.toFixed(2)} s  cpu ${cpuS.toFixed(2)} s  ` +
        `${(o.events / wallS / 1e6).toFixed(2)} M events/s  ${(o.packetHops / wallS / 1e6).toFixed(2)} M packet-hops/s ` +
        `(${o.packetHops} hops, ${o.events} events)`,
    );
    if (file === 'websearch-leafspine.yaml')
      console.log(
        `  vs ns-3 reference (${NS3_REFERENCE_WALL_S} s): ${(NS3_REFERENCE_WALL_S / wallS).toFixed(2)}x faster (wall), ` +
          `${(NS3_REFERENCE_WALL_S / cpuS).toFixed(2)}x (cpu)`,
      );
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

export async function benchVirtual(): Promise<void> {
  for (const f of ['incast-8to1.yaml', 'websearch-leafspine.yaml']) runOnce(f);
}
