/**
 * The default tier of the rate sweep (docs/algorithms/rates.md): HPCC's acceptance at 10-400
 * Gbit/s (steady-state utilisation ≥ 0.9, queue p99 ≤ 1 BDP on a 4→1 incast) and what an INT line
 * rate read too low or too high does to it (about 15 s of virtual runs).
 */
import '../../experiments/rates/suite.js';
import { describeReproSuite } from '../support/repro.js';

describeReproSuite('rates', 'default');
