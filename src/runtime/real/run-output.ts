/**
 * The edge the local and netns launchers share around a Coordinator run: a progress line on a
 * terminal while it runs, then results.json, the pcap list and the summary (or the JSON) once the
 * merged results are in, returned as the same RunOutput the virtual runtime gives.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Results, serializeResults } from '../../stats/results.js';
import { formatSummaryTable } from '../../stats/summary-table.js';
import type { RunOptions, RunOutput } from '../run.js';
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

export interface FinishedRun {
  results: Results;
  outDir: string;
  opts: RunOptions;
  wallMs: number;
  /** The summary's wall-time detail, e.g. "local, 9 processes, timeScale 1000". */
  how: string;
  /** Datagrams the nodes sent (RunOutput.packetHops). */
  datagrams: number;
}

/** Writes results.json, prints the summary (or the JSON) and returns the run's RunOutput. */
export function finishRealRun(run: FinishedRun): RunOutput {
  const { results, outDir, opts, wallMs } = run;
  const text = serializeResults(results);
  const resultsPath = join(outDir, 'results.json');
  writeFileSync(resultsPath, text);
  const pcapDir = join(outDir, 'pcap');
  const pcapFiles =
    opts.pcap === true && existsSync(pcapDir)
      ? readdirSync(pcapDir)
          .filter((f) => f.endsWith('.pcap'))
          .sort()
          .map((f) => join(pcapDir, f))
      : [];
  const print = opts.print === undefined ? (t: string) => process.stdout.write(t) : opts.print;
  if (print !== null) {
    if (opts.json === true) print(text);
    else
      print(
        formatSummaryTable(results, {
          'wall time': `${(wallMs / 1000).toFixed(2)} s (${run.how})`,
          results: resultsPath,
          ...(pcapFiles.length > 0 ? { pcap: `${pcapFiles.length} files in ${pcapDir}` } : {}),
        }),
      );
  }
  return { results, outDir, resultsPath, pcapFiles, wallMs, events: 0, packetHops: run.datagrams };
}
