/**
 * DCTCP parameters: the HPCC ns-3 simulator's hardware-style DCTCP (run.py `dctcp`). The switches
 * must mark with a step at K (run.py: Kmin = Kmax = 30·bw/10 KB
 * = 300 KB at 100 G, Pmax = 1): that is scenario configuration, see docs/algorithms/dctcp.md.
 */
import { z } from 'zod';
import { bool, bytes, durationNs, rateBps, real } from '../params.js';

export const dctcpParams = z.object({
  g: real(1 / 16, 0, 1, 'g: EWMA gain of α (fraction of marked packets per window)'),
  alpha0: real(1, 0, 1, 'Initial α (the simulator starts at 1)'),
  rateAiBps: rateBps(
    615e6,
    'DCTCP_RATE_AI: additive increase per window of ACKs without CWR (run.py: +1 MTU per 13 µs RTT)',
  ),
  minRateBps: rateBps(1e9, 'Rate floor (MIN_RATE, run.py 1000 Mb/s)'),
  window: bool(true, 'HAS_WIN/VAR_WIN: enforce the window W = bdpBytes·R/lineRate'),
  baseRttNs: durationNs(0, 'T for the window base; 0 = the flow path base RTT'),
  bdpBytes: bytes(0, 'W_init (maxBdp in the simulator); 0 = lineRate·T/8'),
});

export type DctcpParams = z.output<typeof dctcpParams>;

export const dctcpAliases: Record<string, string> = {
  rai: 'rateAiBps',
  rmin: 'minRateBps',
};
