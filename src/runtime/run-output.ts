/**
 * The last step of every runtime (virtual, local, netns): write results.json, print the summary
 * table (or the JSON itself) and hand back the RunOutput.
 */
import { join } from 'node:path';
import { type Results, resultsJsonChunks, writeResultsFile } from '../stats/results.js';
import { formatSummaryTable } from '../stats/summary-table.js';
import type { RunOptions, RunOutput } from './run.js';

export interface FinishedRun {
  results: Results;
  outDir: string;
  opts: RunOptions;
  wallMs: number;
  /** The summary's wall-time detail, e.g. "local, 9 processes, timeScale 1000". */
  how: string;
  pcapFiles: string[];
  events: number;
  packetHops: number;
}

export function writeRunOutput(run: FinishedRun): RunOutput {
  const { results, outDir, opts, wallMs, pcapFiles } = run;
  const resultsPath = join(outDir, 'results.json');
  writeResultsFile(resultsPath, results);
  const print = opts.print === undefined ? (t: string) => process.stdout.write(t) : opts.print;
  if (print !== null) {
    // In chunks, as the file is written: never the whole text at once.
    if (opts.json === true) for (const chunk of resultsJsonChunks(results)) print(chunk);
    else
      print(
        formatSummaryTable(results, {
          'wall time': `${(wallMs / 1000).toFixed(2)} s (${run.how})`,
          results: resultsPath,
          ...(pcapFiles.length > 0 ? { pcap: `${pcapFiles.length} files in ${join(outDir, 'pcap')}` } : {}),
        }),
      );
  }
  return { results, outDir, resultsPath, pcapFiles, wallMs, events: run.events, packetHops: run.packetHops };
}
