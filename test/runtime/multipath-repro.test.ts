/**
 * Issue 34's multipath acceptance checks (experiments/multipath, docs/multipath.md): spraying vs
 * ECMP on the k = 4 fat tree permutation, a slow aggregation–core link, selective repeat vs
 * go-back-N under spraying. About 10 virtual runs of 16 hosts, a few seconds each.
 */
import '../../experiments/multipath/suite.js';
import { describeReproSuite } from '../support/repro.js';

describeReproSuite('multipath', 'default', {
  knownShortfalls: {
    M1a: 'oblivious spraying under DCQCN ends at 1.21 × ideal (docs/multipath.md "What falls short")',
    M1b: 'reps under DCQCN ends at 1.18 × ideal (docs/multipath.md "What falls short")',
    M2a: 'reps under DCQCN with PFC: 4.0 × the tail without the slow link (docs/multipath.md "What falls short")',
    M2b: 'bitmap under DCQCN with PFC: 3.8 × the tail without the slow link (docs/multipath.md "What falls short")',
  },
});
