/**
 * One virtual-time run in a process of its own, for bench/virtual.ts: loads the engine from the
 * checkout at `root` (this one, or an older commit's build), runs `scenario` and prints one JSON
 * line of figures. A process per run so its peak RSS is its own and runs do not warm each other.
 *
 *   node dist/bench/virtual-child.js ROOT SCENARIO.yaml
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface ChildFigures {
  flowsCompleted: number;
  flowsTotal: number;
  /** Wall and CPU time of the emulation (runScenario's own clock and this process's CPU). */
  wallS: number;
  cpuS: number;
  events: number;
  packetHops: number;
  /** Peak resident set of the whole process, bytes. */
  maxRssBytes: number;
}

async function main(): Promise<void> {
  const [root, scenarioFile] = process.argv.slice(2);
  if (root === undefined || scenarioFile === undefined) {
    process.stderr.write('usage: virtual-child ROOT SCENARIO\n');
    process.exit(2);
  }
  const mod = (p: string) => import(pathToFileURL(join(root, 'dist/src', p)).href);
  const { loadScenario } = await mod('config/load.js');
  const { runScenario } = await mod('runtime/run.js');
  const outDir = mkdtempSync(join(tmpdir(), 'rocelab-bench-'));
  try {
    const cpu0 = process.cpuUsage();
    const o = runScenario({ scenario: loadScenario(scenarioFile), outDir, print: null });
    const cpu = process.cpuUsage(cpu0);
    const s = o.results.summary;
    const figures: ChildFigures = {
      flowsCompleted: s.flowsCompleted,
      flowsTotal: s.flowsTotal,
      wallS: o.wallMs / 1000,
      cpuS: (cpu.user + cpu.system) / 1e6,
      events: o.events,
      packetHops: o.packetHops,
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
    };
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
