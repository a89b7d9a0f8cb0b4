/**
 * DCQCN+ paper checks of the default tier (A1, A2, A6; docs/algorithms/dcqcn-plus.md), exactly as
 * `rocelab reproduce dcqcn-plus --quick` runs them. A3-A5 and the real-time A7:
 * test/paper/dcqcn-plus.test.ts (`npm run test:paper`).
 */
import '../../../experiments/dcqcn-plus/suite.js';
import { describeReproSuite } from '../../support/repro.js';

describeReproSuite('dcqcn-plus', 'default');
