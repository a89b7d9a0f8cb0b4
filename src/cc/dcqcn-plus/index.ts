/**
 * DCQCN+ (Gao et al., "DCQCN+: Taming Large-scale Incast Congestion in RDMA over Ethernet
 * Networks"): the receiver serves its congested flows round-robin and writes the traversal period
 * τ into every CNP; the sender stretches its recovery timers to λ·max{τ, M/R_C} and increases in
 * steps proportional to its own rate. See
 * docs/algorithms/dcqcn-plus.md.
 */
import type { CcAlgorithm } from '../types.js';
import { dcqcnPlusNp } from './np.js';
import { type DcqcnPlusParams, dcqcnPlusAliases, dcqcnPlusParams, dcqcnPlusProfiles } from './params.js';
import { dcqcnPlusRp } from './rp.js';

export const dcqcnPlus: CcAlgorithm<DcqcnPlusParams> = {
  name: 'dcqcn-plus',
  summary:
    'DCQCN+: receiver CNP list traversed one flow per δ, CNP carries period τ = l·δ; sender timers ' +
    'λ·max{τ, M/R_C}, rate-proportional AI/HI, no recovery while PFC-paused. Profiles: paper (default), gate-always.',
  params: dcqcnPlusParams,
  profiles: dcqcnPlusProfiles,
  defaultProfile: 'paper',
  aliases: dcqcnPlusAliases,
  rp: dcqcnPlusRp,
  np: dcqcnPlusNp,
};

export type { DcqcnPlusParams } from './params.js';
