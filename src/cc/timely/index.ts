/**
 * TIMELY (Mittal et al., SIGCOMM'15): RTT-gradient rate control from NIC timestamps, as the HPCC
 * ns-3 simulator implements it. See docs/algorithms/timely.md.
 */
import { ecnCnpNp } from '../np-ecn.js';
import type { CcAlgorithm } from '../types.js';
import { type TimelyParams, timelyAliases, timelyParams, timelyProfiles } from './params.js';
import { timelyRp } from './rp.js';

export const timely: CcAlgorithm<TimelyParams> = {
  name: 'timely',
  summary:
    'TIMELY: per-RTT rate update from the RTT gradient (EWMA of RTT differences / minRTT), ' +
    'T_low/T_high guards, AI/HAI increase. Profiles: hpcc-sim (default), paper, hpcc-sim-vwin.',
  params: timelyParams,
  profiles: timelyProfiles,
  defaultProfile: 'hpcc-sim',
  aliases: timelyAliases,
  rp: timelyRp,
  np: ecnCnpNp<TimelyParams>(() => ({ intervalNs: 0, mode: 'immediate', enabled: false })),
};

export type { TimelyParams } from './params.js';
