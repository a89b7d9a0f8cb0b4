/**
 * AC7-large (docs/algorithms/mpcc.md "AC7"): the thesis' "MPCC always achieves less FCT slow down
 * than TIMELY and DCQCN" (§5.4) for the flows ≥ 1 MB of AC7's runs, recorded per seed and not
 * gated, with MPCC's runs of AC7-mice beside them: the same traffic with one change, the
 * switches forgetting a flow at its last packet (`flowCountForgetAtEnd`), shows how much of the
 * difference the flow counter accounts for. All runs are AC7's and AC7-mice's (memoised in mixed.ts).
 */
import { median } from '../../src/stats/aggregate.js';
import type { ReproCheck, ReproOutcome } from '../types.js';
import { valueKey, websearchSets } from './ac7.js';
import { MICE } from './ac7-mixes.js';
import { mpccRuns, seedsOf } from './mixed.js';
import { fix } from './runs.js';

type Ratio = 'vsDcqcn' | 'vsTimely' | 'miceVsDcqcn' | 'miceVsTimely';

export const ac7LargeFinding: ReproCheck = {
  id: 'AC7-large',
  title: 'Finding: AC7 long flows (≥ 1 MB) against DCQCN and TIMELY',
  paper:
    '"MPCC always achieves less FCT slow down than TIMELY and DCQCN" (§5.4, Figs. 5.7, 5.9; statistic not named); larger flows "comparable" to HPCC and DCTCP',
  expected:
    "record per AC7 seed MPCC's ≥ 1 MB p50 slowdown against DCQCN's and TIMELY's with the ratios MPCC/DCQCN and MPCC/TIMELY (< 1: the claim holds on that seed), and the same with flowCountForgetAtEnd (AC7-mice's runs); not gated",
  run(ctx): ReproOutcome {
    const sets = websearchSets(ctx);
    const mice = mpccRuns(ctx, seedsOf(ctx), 'websearch', [], MICE);
    const values: Record<string, number | string | boolean | null> = {};
    const rows = sets.map((res, i) => {
      const m = res.mpcc;
      const on = mice[i].longP50;
      const r: Record<Ratio, number> = {
        vsDcqcn: m.longP50 / res.dcqcn.longP50,
        vsTimely: m.longP50 / res.timely.longP50,
        miceVsDcqcn: on / res.dcqcn.longP50,
        miceVsTimely: on / res.timely.longP50,
      };
      values[`s${m.seed}Mpcc`] = m.longP50;
      values[`s${m.seed}Dcqcn`] = res.dcqcn.longP50;
      values[`s${m.seed}Timely`] = res.timely.longP50;
      values[`s${m.seed}MpccMice`] = on;
      for (const [k, v] of Object.entries(r)) values[valueKey(`s${m.seed}`, k)] = v;
      return {
        r,
        text:
          `seed ${m.seed} (${m.longFlows} flows ≥ 1 MB): MPCC ${fix(m.longP50, 2)}, DCQCN ${fix(res.dcqcn.longP50, 2)} ` +
          `(ratio ${fix(r.vsDcqcn, 3)}), TIMELY ${fix(res.timely.longP50, 2)} (ratio ${fix(r.vsTimely, 3)}); ` +
          `with the option MPCC ${fix(on, 2)} (${fix(r.miceVsDcqcn, 3)}, ${fix(r.miceVsTimely, 3)})`,
      };
    });
    const n = rows.length;
    const above = (k: Ratio) => `${rows.filter((x) => x.r[k] > 1).length} of ${n}`;
    const med = (k: Ratio) => {
      const v = median(rows.map((x) => x.r[k]));
      values[valueKey('median', k)] = v;
      return fix(v, 3);
    };
    return {
      measured:
        `${rows.map((x) => x.text).join(' | ')} || MPCC above DCQCN on ${above('vsDcqcn')} seeds (median ratio ${med('vsDcqcn')}), ` +
        `above TIMELY on ${above('vsTimely')} (${med('vsTimely')}); with flowCountForgetAtEnd above DCQCN on ` +
        `${above('miceVsDcqcn')} (${med('miceVsDcqcn')}), above TIMELY on ${above('miceVsTimely')} (${med('miceVsTimely')})`,
      pass: 'finding',
      values,
    };
  },
};
