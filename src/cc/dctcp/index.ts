/**
 * DCTCP (Alizadeh et al., SIGCOMM'10) as the HPCC ns-3 simulator runs it in RoCE hardware:
 * rate-based with a BDP window, per-ACK ECN echo, α-proportional cut once per window
 * See docs/algorithms/dctcp.md.
 */
import { ecnCnpNp } from '../np-ecn.js';
import type { CcAlgorithm } from '../types.js';
import { type DctcpParams, dctcpAliases, dctcpParams } from './params.js';
import { dctcpRp } from './rp.js';

export const dctcp: CcAlgorithm<DctcpParams> = {
  name: 'dctcp',
  summary:
    'DCTCP: ECN echo on every ACK → α = EWMA of the marked fraction per window → rate·(1 − α/2) ' +
    'at most once per window, +R_AI per clean window (HPCC simulator hardware form). Needs step ECN marking at K.',
  params: dctcpParams,
  aliases: dctcpAliases,
  rp: dctcpRp,
  // Congestion is echoed in ACKs (BECN), as in the simulator: no CNPs.
  np: ecnCnpNp<DctcpParams>(() => ({ intervalNs: 0, mode: 'immediate', enabled: false })),
};

export type { DctcpParams } from './params.js';
