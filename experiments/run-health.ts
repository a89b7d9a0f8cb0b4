/** What checks report about a run itself: lost frames, and a machine that could not keep up (real time). */
import type { RunOutput } from '../src/runtime/run.js';
import type { Results } from '../src/stats/results.js';

/** Data the senders had to resend (a UDP socket drop shows up as a go-back-N retransmission). */
export function retransmits(r: Results): number {
  return r.hosts.reduce((a, h) => a + h.retransmits, 0);
}

/** Frames lost anywhere: switch/link drops plus data the senders had to resend. */
export function framesLost(out: RunOutput): number {
  return out.results.summary.drops + retransmits(out.results);
}

/** The runtime's warnings that a node could not keep up (machine load), for a check's text. */
export function keepUpWarnings(...outs: RunOutput[]): string[] {
  return outs.flatMap((o) => o.results.warnings.filter((w) => /keep up|no report/.test(w)));
}

/** `keepUpWarnings` as a note for the measured text ('' when there were none). */
export function keepUpNote(...outs: RunOutput[]): string {
  const w = keepUpWarnings(...outs);
  return w.length > 0 ? ` [${w.length} keep-up warnings: ${w[0]}]` : '';
}
