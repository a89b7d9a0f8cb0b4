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
import { LateRun } from './errors.js';

function showsProgress(opts: RunOptions): boolean {
  return opts.print !== null && opts.json !== true && process.stderr.isTTY === true;
}

/** `[runtime] emulated … ms (…%), flows done/total` on stderr, only on a terminal. */
export function progressPrinter(runtime: string, opts: RunOptions): CoordinatorOptions['onProgress'] {
  if (!showsProgress(opts)) return undefined;
  return (nowNs, totalNs, done, total, dilation) => {
    const pct = totalNs > 0 ? (100 * nowNs) / totalNs : 100;
    const dil =
      dilation !== undefined && Number.isFinite(dilation) ? `, dilation ${fmtDilation(dilation)}` : '';
    process.stderr.write(
      `\r[${runtime}] emulated ${(nowNs / 1e6).toFixed(3)} / ${(totalNs / 1e6).toFixed(3)} ms (${pct.toFixed(0)}%), flows ${done}/${total}${dil}   `,
    );
  };
}

/** A dilation (real per emulated) with 3 significant digits: 1000, 4.5k, 1.2M. */
export function fmtDilation(x: number): string {
  if (x >= 1e6) return `${(x / 1e6).toPrecision(2)}M`;
  if (x >= 1e4) return `${(x / 1e3).toPrecision(3)}k`;
  return x >= 100 ? String(Math.round(x)) : x.toPrecision(3);
}

export function clearProgress(opts: RunOptions): void {
  if (showsProgress(opts)) process.stderr.write('\r\x1b[K');
}

/** The timeScale that would have absorbed `lateNs` of lateness within the link slack, rounded up. */
export function timeScaleThatHolds(timeScale: number, lateNs: number, slackNs: number): number {
  const need = timeScale * (1 + lateNs / Math.max(1, slackNs));
  const mag = 10 ** Math.floor(Math.log10(need));
  return Math.ceil(need / mag) * mag;
}

/** Throws LateRun for a wallclock run with late frames, unless the user allowed them. */
export function checkLate(results: Results, opts: RunOptions): void {
  const rt = results.realtime;
  if (rt === undefined || rt.sync !== 'wallclock' || rt.worstLate === null || opts.allowLate === true) return;
  const w = rt.worstLate;
  const lateUs = (w.maxLateNs / 1e3).toFixed(2);
  throw new LateRun(
    `${w.node}: the host could not keep up: events ran up to ${lateUs} µs emulated after their time (${rt.lateFrames} late frames in all) under sync: wallclock at timeScale ${results.timeScale}; about timeScale ${timeScaleThatHolds(results.timeScale, w.maxLateNs, rt.minLinkDelayNs)} would have held, or use sync: lockstep (--allow-late keeps these results)`,
  );
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
  checkLate(run.results, run.opts);
  const pcapDir = join(run.outDir, 'pcap');
  const pcapFiles =
    run.opts.pcap === true && existsSync(pcapDir)
      ? readdirSync(pcapDir)
          .filter((f) => f.endsWith('.pcap'))
          .sort()
          .map((f) => join(pcapDir, f))
      : [];
  const rt = run.results.realtime;
  const how =
    rt === undefined
      ? run.how
      : rt.sync === 'wallclock'
        ? `${run.how}, sync wallclock`
        : `${run.how}, lockstep${rt.dilation !== null ? `, dilation ${fmtDilation(rt.dilation.p50)} (${fmtDilation(rt.dilation.min)}–${fmtDilation(rt.dilation.max)})` : ''}`;
  return writeRunOutput({ ...run, how, pcapFiles, events: 0, packetHops: run.datagrams });
}
