/**
 * MPCC paper checks of the default tier (docs/algorithms/mpcc.md "Reproduction": AC1–AC6, AC8, AC9 in virtual
 * time and the two findings), exactly as `rocelab reproduce mpcc` runs them. AC7 (fat-tree) and AC3/AC6 in
 * real time: test/paper/mpcc.test.ts (`npm run test:paper`).
 */
import '../../../experiments/mpcc/suite.js';
import { describeReproSuite } from '../../support/repro.js';

describeReproSuite('mpcc', 'default');
