/**
 * AR-RING and AR-RING-HPCC (docs/collectives.md): scenarios/ai-allreduce-ring.yaml, ring
 * all-reduce of 64 MB over 8 ranks on both leaves of a 1:1 2-leaf 4-spine leaf-spine, 3
 * iterations, against the analytic ideal of docs/scenario.md "Ideal times".
 */
import { resolveParams } from '../../src/cc/registry.js';
import { ACK_FRAME_BYTES, dataFrameBytes } from '../../src/topology/path.js';
import { HPCC_INT_BYTES } from '../../src/wire/size.js';
import { inDir, type ReproCheck } from '../types.js';
import { collectiveRun, ratios, shipped } from './runs.js';

const FILE = 'ai-allreduce-ring.yaml';
export const RING_TOLERANCE = 0.05;

const ringRun = (cc: string, ctx: Parameters<ReproCheck['run']>[0]) =>
  collectiveRun(`ring-${cc}`, shipped(FILE), inDir(ctx, `ring-${cc}`), cc);

export const AR_RING: ReproCheck = {
  id: 'AR-RING',
  title: 'Ring all-reduce, 64 MB over 8 ranks across the spine: every iteration at its ideal (none, dcqcn)',
  paper:
    'ring all-reduce ideal 2(n−1)/n·S/B + 2(n−1)·ℓ (Thakur et al. 2005; the busbw of nccl-tests approaches a rank link’s goodput)',
  expected: `every iteration's CCT within ${RING_TOLERANCE * 100} % of the documented ideal, for none and dcqcn`,
  run(ctx) {
    const values: Record<string, number | boolean> = {};
    const parts: string[] = [];
    let pass = true;
    for (const cc of ['none', 'dcqcn']) {
      const r = ringRun(cc, ctx);
      const ops = r.collectives.ops;
      ops.forEach((o, i) => {
        values[`${cc}_ratio_${i}`] = o.ratio ?? Number.NaN;
        if (!(o.ratio !== null && Math.abs(o.ratio - 1) <= RING_TOLERANCE)) pass = false;
      });
      if (ops.length !== 3) pass = false;
      const job = r.collectives.jobs[0];
      values[`${cc}_busbwGbps`] = (job.busbwBps ?? 0) / 1e9;
      parts.push(
        `${cc}: ${ratios(ops.map((o) => o.ratio))} of ${(ops[0].idealNs / 1e6).toFixed(3)} ms, busbw ${((job.busbwBps ?? 0) / 1e9).toFixed(1)} Gbit/s`,
      );
    }
    return { measured: parts.join('; '), pass, values };
  },
};

/**
 * HPCC holds every link at η of its capacity (Li et al., SIGCOMM'19 §3.3) and carries INT on
 * every data frame and its ACK, so on the ring it runs at (1/η) × (INT frames ÷ plain frames) of
 * the ideal, which counts neither: 1.074 at MTU 4096 with η = 0.95, beyond 5 % whatever the
 * fabric. The check measures that it is exactly that.
 */
export function hpccRingBound(mtuBytes: number, eta: number): number {
  const plain = dataFrameBytes(mtuBytes) + ACK_FRAME_BYTES;
  return (plain + 2 * HPCC_INT_BYTES) / plain / eta;
}

export const AR_RING_HPCC: ReproCheck = {
  id: 'AR-RING-HPCC',
  title: "Ring all-reduce under HPCC: η's headroom and the INT bytes, nothing else, above the ideal",
  paper: 'HPCC keeps the most loaded link at η = 95 % (Li et al., SIGCOMM 2019, §3.3, eq. 2)',
  expected:
    'every iteration within 1.5 % of (1/η)·(data+INT + ACK+INT)/(data + ACK) times the ideal (1.074 at MTU 4096); so not within 5 % of the line-rate ideal',
  run(ctx) {
    const r = ringRun('hpcc', ctx);
    const eta = resolveParams('hpcc', {}).eta as number;
    const mtu = shipped(FILE).defaults.nic.mtuBytes;
    const bound = hpccRingBound(mtu, eta);
    const ops = r.collectives.ops;
    const pass =
      ops.length === 3 && ops.every((o) => o.ratio !== null && Math.abs(o.ratio / bound - 1) <= 0.015);
    const within5 = ops.every((o) => o.ratio !== null && o.ratio <= 1 + RING_TOLERANCE);
    return {
      measured: `hpcc: ${ratios(ops.map((o) => o.ratio))} of the ideal; bound (1/η = ${(1 / eta).toFixed(4)}) × INT ${(bound * eta).toFixed(4)} = ×${bound.toFixed(4)}; within 5 % of the ideal: ${within5 ? 'yes' : 'no'}`,
      pass,
      values: {
        ...Object.fromEntries(ops.map((o, i) => [`ratio_${i}`, o.ratio ?? Number.NaN])),
        bound,
        within5,
      },
    };
  },
};
