/**
 * DCQCN+'s RP on the one harness (src/cc/testing): a clock, timers fired in (time, arming
 * order) like the engine's scheduler, a settable PFC pause state and the rate log, plus CNPs that
 * carry the NP's CNP period and the RP's inspect() typed as its state.
 */
import type { DcqcnPlusParams } from '../../../src/cc/dcqcn-plus/params.js';
import { dcqcnPlusRp } from '../../../src/cc/dcqcn-plus/rp.js';
import { resolveParams } from '../../../src/cc/registry.js';
import { flowInfo as baseFlowInfo, driveRp } from '../../../src/cc/testing/index.js';
import type { FlowInfo } from '../../../src/cc/types.js';
import { createRng } from '../../../src/env/rng.js';
import { createExt } from '../../../src/wire/packet-factory.js';

export const params = (o: Record<string, unknown> = {}, profile?: string) =>
  resolveParams('dcqcn-plus', o, profile) as DcqcnPlusParams;

export function flowInfo(lineRateBps: number): FlowInfo {
  return baseFlowInfo({ lineRateBps, bottleneckRateBps: lineRateBps, baseRttNs: 4000 });
}

export function rpRig(p: DcqcnPlusParams, lineRateBps: number) {
  const r = driveRp(dcqcnPlusRp, p, flowInfo(lineRateBps), { rng: createRng(1) });
  return {
    ...r,
    /** A CNP, with the NP's CNP period in its extension when given. */
    cnp(cnpPeriodNs?: number) {
      r.cnp((pkt) => {
        if (cnpPeriodNs === undefined) return;
        pkt.ext = createExt();
        pkt.ext.cnpPeriodNs = cnpPeriodNs;
      });
    },
    inspect: () => dcqcnPlusRp.inspect!(r.s, p, r.now()),
  };
}
