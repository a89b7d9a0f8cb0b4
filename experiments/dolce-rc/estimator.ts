/**
 * AC5 (docs/algorithms/dolce-rc.md "Reproduction"): the two ECN-ratio estimators of §IV-B.1 on one constant-rate flow
 * whose every 10th data packet a switch test hook marks CE. Ideal mode (marked packets counted
 * by the receiver, carried in CNPs ÷ packets sent) reads 0.1 at any rate; the hardware
 * estimator (CNPs ÷ 1-µs Tx slots) reads 0.1 at one packet per µs but saturates at 100 Gbps,
 * where a CNP every 1.6 µs meets a transmission in every slot: 1/1.6 = 0.625.
 */
import { Ecn, FrameKind } from '../../src/wire/packet.js';
import { observedRun } from '../observed-run.js';
import { inDir, type ReproCheck, type ReproContext } from '../types.js';
import { dolceScenario } from './probe.js';

function estimatorRun(label: string, overrides: string[], ctx: ReproContext) {
  let dataPackets = 0;
  let marked = 0;
  const { nics } = observedRun(dolceScenario('ac5-estimator.yaml', overrides), {
    ...inDir(ctx, label),
    // A test hook ahead of the switch's own plug-ins, on every data frame it admits.
    cpBefore: [
      () => ({
        name: 'test-hook',
        onIngress: (pkt) => {
          if (pkt.kind === FrameKind.Data && ++dataPackets % 10 === 0) {
            pkt.ecn = Ecn.Ce;
            marked++;
          }
          return false;
        },
      }),
    ],
  });
  const c = nics.get('h1')?.ccCounters() ?? {};
  const windows = c.dolceRcUpdates ?? 0;
  const denom = c.dolceRcWindowDenom ?? 0;
  return {
    ratio: denom > 0 ? (c.dolceRcWindowMarks ?? 0) / denom : Number.NaN,
    windows,
    meanWindowDenom: windows > 0 ? denom / windows : 0,
    marked,
  };
}

export const AC5: ReproCheck = {
  id: 'AC5',
  title: 'ECN-ratio estimators (ideal CNP count, hardware CNP ÷ Tx slot)',
  paper:
    '§IV-B.1: ideal = marked ÷ sent via the 7-bit CNP field; actual (prototype) = CNPs ÷ Tx slots with MIN_TIME_BETWEEN_CNPS = 1 µs',
  expected:
    'every 10th packet marked: ideal 0.100 ± 0.005; actual at 1 packet/µs 0.100 ± 0.01; actual at 80 ns/packet 0.625 ± 0.02 (saturation bias)',
  run(ctx) {
    const ideal = estimatorRun('ideal-8g', [], ctx);
    const slow = estimatorRun('actual-8g', ['cc.dolce-rc.profile=hardware'], ctx);
    const fast = estimatorRun(
      'actual-100g',
      ['cc.dolce-rc.profile=hardware', 'defaults.link.rate=106.2Gbps', 'duration=3ms'],
      ctx,
    );
    const f = (r: typeof ideal) =>
      `${r.ratio.toFixed(4)} (${r.windows} windows of ${r.meanWindowDenom.toFixed(0)})`;
    return {
      measured: `ideal ${f(ideal)} packets; actual 1 pkt/µs ${f(slow)} slots; actual 80 ns/pkt ${f(fast)} slots`,
      pass:
        Math.abs(ideal.ratio - 0.1) <= 0.005 &&
        Math.abs(slow.ratio - 0.1) <= 0.01 &&
        Math.abs(fast.ratio - 0.625) <= 0.02 &&
        [ideal, slow, fast].every((r) => r.windows >= 5 && r.meanWindowDenom >= 250),
      values: {
        ideal: ideal.ratio,
        actualSlow: slow.ratio,
        actualFast: fast.ratio,
        idealWindows: ideal.windows,
        slowWindows: slow.windows,
        fastWindows: fast.windows,
      },
    };
  },
};
