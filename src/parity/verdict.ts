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
import type { ReferenceRun, SeedRun } from './reference.js';

export interface ParityMetrics {
  tailFctUs: number | null;
  firstFctUs: number | null;
  spread: number | null;
  nacks: number;
  rtx: number;
  flowsCompleted: number;
  flowsTotal: number;
}

/**
 * validate.py's reduction of our results: finish times (absolute, µs), counters over hosts. The
 * reference prints one finish time per connection: with connection reuse (messages sharing one,
 * `connectionOf` maps a flow id to its connection) a connection finishes with its last message.
 */
export function parityMetrics(r: Results, connectionOf?: (flowId: number) => string): ParityMetrics {
  const finish = new Map<string, number | null>();
  let done = 0;
  for (const f of r.flows) {
    if (f.endNs !== null) done++;
    const key = connectionOf?.(f.id) ?? `#${f.id}`;
    const prev = finish.get(key);
    const us = f.endNs === null ? null : f.endNs / 1000;
    finish.set(key, prev === undefined ? us : prev === null || us === null ? null : Math.max(prev, us));
  }
  let tail: number | null = null;
  let first: number | null = null;
  for (const us of finish.values()) {
    if (us === null) continue;
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
  /**
   * The smallest and largest value of the reference's own runs (the compared one and those under
   * other seeds), and whether ours lies between them; null without seed runs.
   */
  refRange: [number, number] | null;
  inRefRange: boolean | null;
}

export const TOLERANCE = { tail: 0.1, spread: 0.15, countFactor: 2 } as const;

function within(ratio: number, rel: number): boolean {
  return ratio >= 1 - rel && ratio <= 1 + rel;
}

/** The range of the reference's runs of one metric, with ours placed in it. */
function rangeOf(
  metric: MetricVerdict['metric'],
  ref: ReferenceRun,
  seeds: readonly SeedRun[],
  ours: number | null,
): Pick<MetricVerdict, 'refRange' | 'inRefRange'> {
  if (seeds.length === 0) return { refRange: null, inRefRange: null };
  const pick = (r: ReferenceRun | SeedRun): number | null =>
    metric === 'tailFct' ? r.tailFctUs : metric === 'spread' ? r.spread : r[metric];
  const vals = [ref, ...seeds].map(pick).filter((v): v is number => v !== null);
  const lo = Math.min(...vals);
  const hi = Math.max(...vals);
  return { refRange: [lo, hi], inRefRange: ours === null ? false : ours >= lo && ours <= hi };
}

export function judge(
  ref: ReferenceRun,
  ours: ParityMetrics,
  tailTargetUs: number,
  seeds: readonly SeedRun[] = [],
): MetricVerdict[] {
  const out = judgeRecorded(ref, ours, tailTargetUs);
  for (const v of out) Object.assign(v, rangeOf(v.metric, ref, seeds, v.ours));
  return out;
}

function judgeRecorded(ref: ReferenceRun, ours: ParityMetrics, tailTargetUs: number): MetricVerdict[] {
  const out: MetricVerdict[] = [];
  const none = { refRange: null, inRefRange: null };
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
    out.push({ metric: 'tailFct', reference: r, ours: o, ratio, pass, note, ...none });
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
      ...none,
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
    out.push({
      metric,
      reference: r,
      ours: o,
      ratio,
      pass,
      note: pass ? 'within 2×' : 'outside 2×',
      ...none,
    });
  }
  return out;
}
