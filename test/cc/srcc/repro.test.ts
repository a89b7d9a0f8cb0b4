/**
 * SRCC's paper checks of the default tier (docs/algorithms/srcc.md "Reproduction"), as `rocelab reproduce
 * srcc --quick` runs them.
 */
import { describeReproSuite } from '../../support/repro.js';

describeReproSuite('srcc', 'default');
