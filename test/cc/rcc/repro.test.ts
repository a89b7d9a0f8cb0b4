/**
 * RCC paper checks of the default tier (checks 1, 2, 3 with N = 8/16 and its negative control, 5 with K = 32,
 * 6 and the eq. (18) check; docs/algorithms/rcc.md "Findings"), exactly as `rocelab reproduce rcc
 * --quick` runs them. The paper-scale, multi-run and real-time checks: test/paper/rcc.test.ts
 * (`npm run test:paper`).
 */
import '../../../experiments/rcc/suite.js';
import { describeReproSuite } from '../../support/repro.js';

describeReproSuite('rcc', 'default');
