/**
 * MPCC paper checks of the paper tier (mpcc.md §7): AC7 (WebSearch 30 % + 2 % incast on the thesis
 * fat-tree, MPCC against DCQCN, TIMELY, DCTCP and HPCC; five runs of 1–4 minutes) and AC3/AC6 in
 * the real-time local runtime (medians of 5 runs each, about 15 minutes).
 */
import '../../src/reproduce/mpcc/suite.js';
import { describeReproSuite } from '../support/repro.js';

describeReproSuite('mpcc', 'paper', {
  knownShortfalls: {
    // docs/algorithms/mpcc.md "What falls short": queues are the lowest (a), but short-flow p50 is
    // 4 % above DCQCN's and TIMELY's and p95 1.11 × HPCC's (the 32-B INT on every packet is not in
    // the ideal FCT), and long-flow p50 is 1.251 × DCTCP's.
    AC7: 'FCT criteria (b, c) missed by 1–4 %',
  },
});
