/**
 * SRCC's paper-tier checks (the checks `rocelab reproduce srcc` runs; docs/algorithms/srcc.md): AC10
 * (directional workload comparison, minutes of CPU) and AC1/AC2 in the real-time local runtime (about 80 s of
 * wall time per arm). Run with `npm run test:paper`.
 */
import { beforeAll, vi } from 'vitest';
import { ensureBuilt } from '../realtime/helpers.js';
import { describeReproSuite } from '../support/repro.js';

// AC10 simulates 2 × 50 ms of a loaded 32-host fabric: about 10 min of CPU (30 min of wall
// time on a busy 2-core machine, the paper config's limit), so this file allows 2 h per check.
vi.setConfig({ testTimeout: 7_200_000 });

// The local runtime's node processes run the compiled dist/.
beforeAll(() => ensureBuilt());

describeReproSuite('srcc', 'paper');
