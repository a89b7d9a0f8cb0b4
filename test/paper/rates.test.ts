/**
 * The rate sweep of the paper tier (docs/algorithms/rates.md, `rocelab reproduce rates`): every
 * algorithm on a 4→1 incast at 10-800 Gbit/s, one row per algorithm (7 virtual runs each, a few
 * minutes on 2 cores).
 */
import '../../experiments/rates/suite.js';
import { describeReproSuite } from '../support/repro.js';

describeReproSuite('rates', 'paper');
