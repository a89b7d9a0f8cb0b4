/**
 * The collectives' paper-tier checks (docs/collectives.md "Checks"): halving-doubling on 16 ranks
 * under per-flow ECMP, two jobs alone and together on a 2:1 leaf-spine, and the local lockstep
 * run identical to virtual time. Run with `npm run test:paper`.
 */
import { beforeAll } from 'vitest';
import { ensureBuilt } from '../realtime/helpers.js';
import { describeReproSuite } from '../support/repro.js';

// RT-LOCAL's node processes run the compiled dist/.
beforeAll(() => ensureBuilt());

describeReproSuite('collectives', 'paper');
