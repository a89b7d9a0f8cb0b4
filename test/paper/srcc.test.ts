/**
 * SRCC's paper-tier checks (srcc.md §7): AC10 (directional workload comparison, minutes of CPU)
 * and AC1/AC2 in the real-time local runtime. Run with `npm run test:paper`.
 */
import { beforeAll } from 'vitest';
import { ensureBuilt } from '../realtime/helpers.js';
import { describeReproSuite } from '../support/repro.js';

// The local runtime's node processes run the compiled dist/.
beforeAll(() => ensureBuilt());

describeReproSuite('srcc', 'paper');
