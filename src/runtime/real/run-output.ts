/**
 * The edge the local and netns launchers share around a Coordinator run: a progress line on a
 * terminal while it runs, then the pcaps the nodes wrote and results.json and the summary
 * (../run-output.ts, as for the virtual runtime).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Results } from '../../stats/results.js';
import type { RunOptions, RunOutput } from '../run.js';
import { writeRunOutput } from '../run-output.js';
import type { CoordinatorOptions } from './coordinator.js';

function showsProgress(opts: RunOptions): boolean {
  return opts.print !== null && opts.json !== true && process.stderr.isTTY === true;
}

/** `[runtime] emulated … ms (…%), flows done/total` on stderr, only on a terminal. */
export function progressPrinter(runtime: string, opts: RunOptions): CoordinatorOptions['onProgress'] {
  if (!showsProgress(opts)) return undefined;
  return (nowNs, totalNs, done, total) => {
    const pct = totalNs > 0 ? (100 * nowNs) / totalNs : 100;
    process.stderr.write(
      `\r[${runtime}] emulated ${(nowNs / 1e6).toFixed(3)} / ${(totalNs / 1e6).toFixed(3)} ms (${pct.toFixed(0)}%), flows ${done}/${total}   `,
    );
  };
}

export function clearProgress(opts: RunOptions): void {
  if (showsProgress(opts)) process.stderr.write('\r\x1b[K');
}

/** The node processes' results of a local or netns run: the pcaps the nodes wrote, then writeRunOutput. */
export function finishRealRun(run: {
  results: Results;
  outDir: string;
  opts: RunOptions;
  wallMs: number;
  how: string;
  /** Datagrams the nodes sent (RunOutput.packetHops). */
  datagrams: number;
}): RunOutput {
  const pcapDir = join(run.outDir, 'pcap');
  const pcapFiles =
    run.opts.pcap === true && existsSync(pcapDir)
      ? readdirSync(pcapDir)
          .filter((f) => f.endsWith('.pcap'))
          .sort()
          .map((f) => join(pcapDir, f))
      : [];
  return writeRunOutput({ ...run, pcapFiles, events: 0, packetHops: run.datagrams });
}
