/**
 * Dolce-RC / Dolce-RC+ reproduction suite (docs/algorithms/dolce-rc.md "Reproduction"): AC1-AC6 and AC10
 * plus the findings F1-F2 in the default tier (seconds); in the paper tier the paper-scale runs AC7,
 * AC8, AC9, the real-time AC7-RT, the realistic-workload headline H-CF and H-DM (§V-C) and the
 * findings F3-F5 (the cold-start arm, WebSearch, the rate sweep's incast cells).
 * Scenarios: scenarios/papers/dolce-rc/.
 */
import { paperTier, registerReproSuite } from '../registry.js';
import type { ReproSuite } from '../types.js';
import { AC8 } from './alltoall.js';
import { F3, F4 } from './cold-start.js';
import { AC5 } from './estimator.js';
import { H_CF, H_DM } from './headline.js';
import { AC7, AC10 } from './incast.js';
import { AC1, AC2, AC3, AC4, F1, F2 } from './learning.js';
import { AC6, AC9 } from './plus.js';
import { F5 } from './rate-cells.js';
import { AC7_RT } from './realtime.js';

export const dolceRcSuite: ReproSuite = {
  algorithm: 'dolce-rc',
  spec: 'docs/algorithms/dolce-rc.md',
  checks: [
    AC1,
    AC2,
    AC3,
    AC4,
    AC5,
    AC6,
    ...paperTier(AC7, AC7_RT, AC8, AC9),
    AC10,
    F1,
    F2,
    H_CF,
    H_DM,
    F3,
    F4,
    F5,
  ],
};

registerReproSuite(dolceRcSuite);
