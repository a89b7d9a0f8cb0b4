/** SRCC's paper checks of the default tier (srcc.md §7), as `rocelab reproduce srcc --quick` runs them. */
import { describeReproSuite } from '../../support/repro.js';

describeReproSuite('srcc', 'default');
