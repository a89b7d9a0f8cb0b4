/**
 * MPCC paper checks of the default tier (mpcc.md §7: AC1–AC6, AC8, AC9 in virtual time and the
 * two findings), exactly as `rocelab reproduce mpcc` runs them. AC7 (fat-tree) and AC3/AC6 in
 * real time: test/paper/mpcc.test.ts (`npm run test:paper`).
 */
import '../../../src/reproduce/mpcc/suite.js';
import { describeReproSuite } from '../../support/repro.js';

describeReproSuite('mpcc', 'default', {
  knownShortfalls: {
    // docs/algorithms/mpcc.md "What falls short": 8 synchronized flows at P = 3.75 packets drain
    // their first-RTT burst in 378.5 µs against the bound 1.3·(D_base + Q_peak·8/R) = 369.8 µs.
    AC3: '8→1 T_conv 2 % over the bound',
    AC6: 'T_conv 2 % over the bound (the same first-RTT drain as AC3 N=8)',
  },
});
