/**
 * Issue 34's multipath acceptance checks (experiments/multipath, docs/multipath.md): spraying vs
 * ECMP on the k = 4 fat tree permutation, a slow aggregation–core link, selective repeat vs
 * go-back-N under spraying, trimming vs PFC, and the reference's own set-up (NSCC over uet).
 * About 90 virtual runs of 16 hosts (the tail checks average 4 seeds), well under a second each.
 */
import '../../experiments/multipath/suite.js';
import { describeReproSuite } from '../support/repro.js';

describeReproSuite('multipath', 'default', {
  knownShortfalls: {
    M2a: 'REPS under DCQCN: about 2 × the tail without the slow link; DCQCN cuts the whole QP on the CNPs of one path (docs/multipath.md "What falls short")',
    M2b: 'bitmap under DCQCN: about 3.4 ×; same mechanism (docs/multipath.md "What falls short")',
  },
});
