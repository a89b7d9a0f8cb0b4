/**
 * DCQCN (Zhu et al., SIGCOMM'15) with two parameter profiles: `paper` (the paper's machine) and
 * `hpcc-sim` (the HPCC ns-3 simulator's CX4-style variant, the default).
 * See docs/algorithms/dcqcn.md.
 */
import { ecnCnpNp } from '../np-ecn.js';
import type { CcAlgorithm } from '../types.js';
import { type DcqcnParams, dcqcnAliases, dcqcnParams, dcqcnProfiles } from './params.js';
import { dcqcnRp } from './rp.js';

export const dcqcn: CcAlgorithm<DcqcnParams> = {
  name: 'dcqcn',
  summary:
    'DCQCN: ECN marks → receiver CNPs → sender rate cut by alpha, timer/byte-counter recovery. ' +
    "Profiles: hpcc-sim (default, HPCC ns-3 CX4-style), paper (SIGCOMM'15 / DCQCN+ baseline).",
  params: dcqcnParams,
  profiles: dcqcnProfiles,
  defaultProfile: 'hpcc-sim',
  aliases: dcqcnAliases,
  rp: dcqcnRp,
  np: ecnCnpNp<DcqcnParams>((p) => ({
    intervalNs: p.cnpIntervalNs,
    mode: p.npMode,
    enabled: p.cnpTransport === 'cnp',
  })),
};

export type { DcqcnParams } from './params.js';
