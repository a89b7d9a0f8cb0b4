/**
 * DCQCN+ paper checks of the paper tier (the checks `rocelab reproduce dcqcn-plus` runs;
 * docs/algorithms/dcqcn-plus.md): A3 (2000 flows), A4 (queue ratio up to 2000 flows), A5 (DCQCN failure onset
 * sweep) in virtual time and A7 in real time (local runtime, lockstep at timeScale 100, 2 × 3-4 min on 2 cores). Runs are shared between checks.
 */
import '../../experiments/dcqcn-plus/suite.js';
import { describeReproSuite } from '../support/repro.js';

describeReproSuite('dcqcn-plus', 'paper');
