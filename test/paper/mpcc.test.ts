/**
 * MPCC paper checks of the paper tier (the checks `rocelab reproduce mpcc` runs; docs/algorithms/mpcc.md):
 * AC7 (WebSearch 30 % + 2 % incast on the thesis fat-tree, MPCC against DCQCN, TIMELY, DCTCP and HPCC on
 * three workload seeds, gated on the seed-median), its findings (the short-flow median with the INT share,
 * the thesis' other panels, FB_Hadoop), AC7-mice (the [OURS] end-of-message flow counter on both mixes) and
 * AC3/AC6 in the real-time local runtime. About forty fat-tree runs of 20 s to a few minutes each, and about
 * fifteen minutes of real-time runs.
 */
import '../../experiments/mpcc/suite.js';
import { describeReproSuite } from '../support/repro.js';

describeReproSuite('mpcc', 'paper', {
  knownShortfalls: {
    // Since the equal-time order virtual time shares with lockstep (docs/realtime.md), criterion
    // (c) misses on its median seed by 0.13 % (seeds ±2-3 %); the gate awaits a decision
    // (docs/algorithms/mpcc.md).
    AC7: '(c) long-flow p50 on the seed-median 1.0013 × its bound',
  },
});
