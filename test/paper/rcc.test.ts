/**
 * RCC paper checks of the paper tier (the checks `rocelab reproduce rcc` runs; docs/algorithms/rcc.md): check
 * 2 at Δ = 100 ms (8 GB), 3 with N = 64, 4 (18 incasts: RCC, DCQCN, TIMELY), 5 with K = 1000 (with HPCC), 7
 * and its eq4 finding and ablations, 8 (1000T staggering), 9, and checks 2 and 3 in the real-time local
 * runtime.
 */
import '../../experiments/rcc/suite.js';
import { describeReproSuite } from '../support/repro.js';

describeReproSuite('rcc', 'paper');
