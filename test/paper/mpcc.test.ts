/**
 * MPCC paper checks of the paper tier (the checks `rocelab reproduce mpcc` runs; docs/algorithms/mpcc.md):
 * AC7 (WebSearch 30 % + 2 % incast on the thesis fat-tree, MPCC against DCQCN, TIMELY, DCTCP and HPCC on
 * five workload seeds, gated on the seed-medians), its findings (AC7-large: long flows against DCQCN and
 * TIMELY; AC7-p50: the short-flow median with the INT share; the thesis' other panels; FB_Hadoop), AC7-mice
 * (the [OURS] end-of-message flow counter on both mixes, five seeds each) and AC3/AC6 in the real-time local
 * runtime. About seventy fat-tree runs of one to a few minutes each (AC7 alone: 25, about 50 min on a quiet
 * 2-core machine), and about fifteen minutes of real-time runs.
 */
import '../../experiments/mpcc/suite.js';
import { describeReproSuite } from '../support/repro.js';

// AC7 runs 25 fat-tree simulations in one test; on a loaded machine that is hours.
describeReproSuite('mpcc', 'paper', { timeoutMs: 4 * 3_600_000 });
