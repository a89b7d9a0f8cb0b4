/**
 * RCC (Zhang et al., IEEE/ACM ToN 2023): receiver-driven congestion control. The receiver counts
 * active messages, tells last-hop congestion (explicit fair-share window C·T/N, EWA) from
 * in-network congestion (a PID loop on the one-way delay, eqs. 2-5), and piggybacks the window
 * on every ACK; the sender adopts it and paces at cwnd/T. `rcc-sender` is the paper's variant
 * for unsynchronised clocks (§III-G). See docs/algorithms/rcc.md.
 */
import type { CcAlgorithm } from '../types.js';
import { rccNp } from './np.js';
import { type RccParams, rccAliases, rccParams, rccProfiles } from './params.js';
import { rccRp } from './rp.js';
import { rccSenderNp, rccSenderRp } from './sender.js';

export const rcc: CcAlgorithm<RccParams> = {
  name: 'rcc',
  summary:
    'RCC: receiver counts messages (BTH first/last) and RX rate; last-hop congestion → window C·T/N (EWA), ' +
    'in-network → PID on one-way delay (eqs. 2-5, capped by C·T/N); window on every ACK, sender paces cwnd/T. ' +
    "Profiles: default, spec (the spec's own defaults), literal.",
  params: rccParams,
  profiles: rccProfiles,
  defaultProfile: 'default',
  aliases: rccAliases,
  rp: rccRp,
  np: rccNp,
};

export const rccSender: CcAlgorithm<RccParams> = {
  name: 'rcc-sender',
  summary:
    'RCC-sender: receiver feeds back N and a last-hop-full flag on ACKs; the sender runs RCC on measured RTT ' +
    '(no clock sync). Profiles: default, spec, literal.',
  params: rccParams,
  profiles: rccProfiles,
  defaultProfile: 'default',
  aliases: rccAliases,
  rp: rccSenderRp,
  np: rccSenderNp,
};

export type { RccParams } from './params.js';
