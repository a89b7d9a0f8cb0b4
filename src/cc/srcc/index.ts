/**
 * SRCC (Hu et al., IEEE TII 2024): sub-RTT congestion notification from the switch. Hosts run
 * DCQCN plus SRCC's reaction to CNMs (rp.ts); any host using `srcc` turns on the switch side
 * (cp.ts, built through `cp.build` by the run setup). See docs/algorithms/srcc.md.
 */
import { ecnCnpNp } from '../np-ecn.js';
import type { CcAlgorithm } from '../types.js';
import { buildSrccCp } from './config.js';
import { type SrccParams, srccAliases, srccParams, srccProfiles } from './params.js';
import { srccRp } from './rp.js';

export const srcc: CcAlgorithm<SrccParams> = {
  name: 'srcc',
  summary:
    'SRCC: switches detect congested flows that share an ingress with victims (dynamic threshold, Eq. 6) and send ' +
    'CNMs straight back to the source, which resets its rate to the fair share; DCQCN runs underneath. ' +
    'Profiles as DCQCN: hpcc-sim (default), paper.',
  params: srccParams,
  profiles: srccProfiles,
  defaultProfile: 'hpcc-sim',
  aliases: srccAliases,
  rp: srccRp,
  // The receiver only plays DCQCN's role (ECN → CNP); SRCC has no receiver function.
  np: ecnCnpNp<SrccParams>((p) => ({
    intervalNs: p.cnpIntervalNs,
    mode: p.npMode,
    enabled: p.cnpTransport === 'cnp',
  })),
  cp: { name: 'srcc', build: (ctx) => buildSrccCp(ctx), keysFlowsBySourcePort: true },
};

export type { SrccParams } from './params.js';
