/**
 * The collectives' checks of the default tier (docs/collectives.md "Checks"), as `rocelab
 * reproduce collectives --quick` runs them: the ring all-reduce at its ideal under none and
 * dcqcn, HPCC's excess being exactly its η headroom and INT bytes, bad specs refused.
 */
import { describeReproSuite } from '../support/repro.js';

describeReproSuite('collectives', 'default');
