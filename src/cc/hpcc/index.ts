/**
 * HPCC (Li et al., SIGCOMM'19): switches stamp per-hop INT (timestamp, txBytes, queue length,
 * line rate) on data packets, the receiver echoes it in every ACK, and the sender computes the
 * most loaded hop's utilisation U and moves its rate/window toward U = η. Rate form of the HPCC
 * ns-3 simulator. See docs/algorithms/hpcc.md.
 */
import { ecnCnpNp } from '../np-ecn.js';
import type { CcAlgorithm } from '../types.js';
import { type HpccParams, hpccAliases, hpccParams, hpccProfiles } from './params.js';
import { hpccRp } from './rp.js';

export const hpcc: CcAlgorithm<HpccParams> = {
  name: 'hpcc',
  summary:
    'HPCC: per-hop INT (txBytes, qlen, ts) echoed in ACKs → utilisation U of the busiest hop → ' +
    'rate and window toward U = η (0.95). Profiles: hpcc-sim (default, ns-3 simulator), paper (maxStage 5).',
  params: hpccParams,
  profiles: hpccProfiles,
  defaultProfile: 'hpcc-sim',
  aliases: hpccAliases,
  rp: hpccRp,
  // No CNPs: HPCC ignores ECN (the simulator still marks, nobody reacts).
  np: ecnCnpNp<HpccParams>(() => ({ intervalNs: 0, mode: 'immediate', enabled: false })),
};

export type { HpccParams } from './params.js';
