/**
 * Dolce-RC paper checks of the paper tier (the checks `rocelab reproduce dolce-rc` runs;
 * docs/algorithms/dolce-rc.md): AC7 (E2 incast, N = 4 and 8, virtual time), AC7-RT (the same in the real-time
 * local runtime), AC8 (MPI Alltoall, 5 sizes × 300 iterations × 2 algorithms, the costliest: minutes) and AC9
 * (Dolce-RC+ dynamic scenario).
 */
import { beforeAll } from 'vitest';
import { ensureBuilt } from '../realtime/helpers.js';
import { describeReproSuite } from '../support/repro.js';

// The local runtime's node processes run the compiled dist/.
beforeAll(() => ensureBuilt());

describeReproSuite('dolce-rc', 'paper');
