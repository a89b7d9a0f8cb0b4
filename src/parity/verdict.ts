/**
 * Parity of one experiment with the reference simulator (docs/parity.md "Tolerances"): our run
 * reduced the way the reference's validate.py reduces its own (tail = the last flow's finish time,
 * spread = last ÷ first finish), then per metric a ratio ours ÷ reference and a pass:
 *   tail FCT  within 10 % — or, where the reference meets the suite's own tail target, ours
 *             meeting it too;
 *   spread    within 15 %;
 *   NACKs, retransmissions  within 2× (on counts + 1, so that 0 against 0 or 1 passes and 0
 *             against 5 does not).
 */
import type { Results } from '../stats/results.js';
import type { ReferenceRun } from './reference.js';

export interface ParityMetrics {
  tailFctUs: number | null;
  firstFctUs: number | null;
  spread: number | null;
  nacks: number;
  rtx: number;
  flowsCompleted: number;
  flowsTotal: number;
}

/** validate.py's reduction of our results: finish times (absolute, µs), counters over hosts. */
export function parityMetrics(r: Results): ParityMetrics {
  let tail: number | null = null;
  let first: number | null = null;
  let done = 0;
  for (const f of r.flows) {
    if (f.endNs === null) continue;
    done++;
    const us = f.endNs / 1000;
    if (tail === null || us > tail) tail = us;
    if (first === null || us < first) first = us;
  }
  let nacks = 0;
  let rtx = 0;
  for (const h of r.hosts) {
    nacks += h.nackTx;
    rtx += h.retransmits;
  }
  return {
    tailFctUs: tail,
    firstFctUs: first,
    spread: tail !== null && first !== null && first > 0 ? tail / first : null,
    nacks,
    rtx,
    flowsCompleted: done,
    flowsTotal: r.flows.length,
  };
}

export interface MetricVerdict {
  metric: 'tailFct' | 'spread' | 'nacks' | 'rtx';
  reference: number | null;
  ours: number | null;
  ratio: number | null;
  pass: boolean;
  /** Why it passed or failed, in a few words. */
  note: string;
}

export const TOLERANCE = { tail: 0.1, spread: 0.15, countFactor: 2 } as const;

function within(ratio: number, rel: number): boolean {
  return ratio >= 1 - rel && ratio <= 1 + rel;
}

export function judge(ref: ReferenceRun, ours: ParityMetrics, tailTargetUs: number): MetricVerdict[] {
  const out: MetricVerdict[] = [];
  const complete = ours.flowsCompleted === ours.flowsTotal;
  // Tail FCT.
  {
    const r = ref.tailFctUs;
    const o = complete ? ours.tailFctUs : null;
    const ratio = o !== null && r > 0 ? o / r : null;
    const refMeets = tailTargetUs > 0 && r <= tailTargetUs;
    let pass = false;
    let note: string;
    if (o === null) note = `${ours.flowsTotal - ours.flowsCompleted} of ${ours.flowsTotal} flows unfinished`;
    else if (ratio !== null && within(ratio, TOLERANCE.tail)) {
      pass = true;
      note = 'within 10 %';
    } else if (refMeets && o <= tailTargetUs) {
      pass = true;
      note = `inside the suite's target ${tailTargetUs} us`;
    } else note = refMeets ? `outside 10 % and above the target ${tailTargetUs} us` : 'outside 10 %';
    out.push({ metric: 'tailFct', reference: r, ours: o, ratio, pass, note });
  }
  // Spread.
  {
    const r = ref.spread;
    const o = complete ? ours.spread : null;
    const ratio = r !== null && o !== null && r > 0 ? o / r : null;
    const pass = ratio !== null && within(ratio, TOLERANCE.spread);
    out.push({
      metric: 'spread',
      reference: r,
      ours: o,
      ratio,
      pass,
      note: pass ? 'within 15 %' : 'outside 15 %',
    });
  }
  // Counts.
  for (const [metric, r, o] of [
    ['nacks', ref.nacks, ours.nacks],
    ['rtx', ref.rtx, ours.rtx],
  ] as const) {
    const ratio = r !== null ? (o + 1) / (r + 1) : null;
    const f = TOLERANCE.countFactor;
    const pass = ratio !== null && ratio >= 1 / f && ratio <= f;
    out.push({ metric, reference: r, ours: o, ratio, pass, note: pass ? 'within 2×' : 'outside 2×' });
  }
  return out;
}
