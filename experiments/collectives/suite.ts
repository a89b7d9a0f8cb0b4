/**
 * The collectives' acceptance checks (docs/collectives.md, issue "AI training traffic"):
 * `rocelab reproduce collectives`. Default tier: the ring all-reduce at its ideal (none, dcqcn),
 * HPCC's known excess, bad specs. Paper tier: halving-doubling on 16 ranks, two jobs alone and
 * together, and the real-time lockstep identity.
 */
import { paperTier, registerReproSuite } from '../registry.js';
import type { ReproSuite } from '../types.js';
import { HD_16, TWO_JOBS } from './jobs.js';
import { RT_LOCAL } from './realtime.js';
import { AR_RING, AR_RING_HPCC } from './ring.js';
import { BAD_SPECS } from './specs.js';

export const collectivesSuite: ReproSuite = {
  algorithm: 'collectives',
  spec: 'docs/collectives.md',
  checks: [AR_RING, AR_RING_HPCC, BAD_SPECS, ...paperTier(HD_16, TWO_JOBS, RT_LOCAL)],
};

registerReproSuite(collectivesSuite);
