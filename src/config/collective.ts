/**
 * Stage 2 of `kind: collective` entries (docs/scenario.md): ranks, the op × algorithm pair, and
 * the sizes each algorithm can split. One line per problem, naming the key (ConfigError).
 */
import { ALGORITHMS_OF } from '../workload/collective/ops.js';
import { ConfigError, formatPath } from './errors.js';
import type { CollectiveWorkload, ParsedScenario, WorkloadSpec } from './scenario.js';

type Path = ReadonlyArray<string | number>;
type ParsedCollective = Extract<ParsedScenario['workload'][number], { kind: 'collective' }>;

function fail(path: Path, detail: string): never {
  throw new ConfigError(formatPath(path), detail);
}

export interface CollectiveContext {
  /** The entry's path with more keys. */
  at(...rest: Array<string | number>): Path;
  /** A host list expanded against the topology (unknown hosts and duplicates fail). */
  expand(sel: ParsedCollective['ranks'], path: Path): string[];
  checkStart(startNs: number, path: Path): void;
}

const isPowerOfTwo = (n: number) => n >= 1 && (n & (n - 1)) === 0;

export function resolveCollective(w: ParsedCollective, i: number, c: CollectiveContext): CollectiveWorkload {
  const { at } = c;
  const ranks = c.expand(w.ranks, at('ranks'));
  const n = ranks.length;
  if (n < 2) fail(at('ranks'), `a collective needs at least 2 ranks, got ${n}`);
  const valid = ALGORITHMS_OF[w.op];
  const algorithm = w.algorithm ?? valid[0];
  if (!valid.includes(algorithm))
    fail(at('algorithm'), `${algorithm} does not apply to ${w.op} (valid: ${valid.join(', ')})`);
  c.checkStart(w.start, at('start'));
  if (w.op !== 'alltoall') {
    if (w.sizes !== undefined) fail(at('sizes'), 'only alltoall takes a size matrix');
    if (w.skew !== undefined) fail(at('skew'), 'only alltoall takes a skew');
  }
  let sizeBytes: number;
  let sizesBytes: number[][] | null = null;
  if (w.sizes !== undefined) {
    if (w.size !== undefined) fail(at('size'), 'give size or sizes, not both');
    if (w.skew !== undefined) fail(at('skew'), 'give skew or sizes, not both');
    if (w.sizes.length !== n || w.sizes.some((row) => row.length !== n))
      fail(at('sizes'), `expected ${n} rows of ${n} sizes (one per rank, rows are senders)`);
    sizesBytes = w.sizes.map((row) => [...row]);
    if (sizesBytes.every((row, r) => row.every((b, d) => d === r || b === 0)))
      fail(at('sizes'), 'no rank sends anything to another');
    // The busiest rank's send buffer (its own share included, as nccl-tests counts it).
    sizeBytes = Math.max(...sizesBytes.map((row) => row.reduce((a, b) => a + b, 0)));
  } else {
    if (w.size === undefined) fail(at('size'), 'required');
    sizeBytes = w.size;
  }
  const divisor = blocks(w.op, algorithm, n);
  if (sizesBytes === null && sizeBytes % divisor !== 0)
    fail(
      at('size'),
      `${sizeBytes} B is not divisible by ${divisor} (${algorithm} ${w.op} over ${n} ranks splits it into ${divisor} equal parts)`,
    );
  if (algorithm === 'halving-doubling' && !isPowerOfTwo(n))
    fail(at('ranks'), `halving-doubling needs a power-of-two number of ranks, got ${n}`);
  const smallest = sizesBytes === null ? sizeBytes / divisor : 1;
  if (w.channels > smallest)
    fail(
      at('channels'),
      `${w.channels} channels leave a channel less than 1 byte of each ${smallest}-byte part`,
    );
  return {
    kind: 'collective',
    job: w.job ?? `job${i}`,
    op: w.op,
    algorithm,
    ranks,
    sizeBytes,
    sizesBytes,
    skew: w.skew ?? 0,
    channels: w.channels,
    chunkBytes: w.chunk ?? null,
    iterations: w.iterations,
    gapNs: w.gap,
    startNs: w.start,
    tag: w.tag ?? null,
  };
}

/** Into how many equal parts an algorithm splits the buffer (1: any size will do). */
function blocks(op: CollectiveWorkload['op'], algorithm: CollectiveWorkload['algorithm'], n: number): number {
  if (op === 'broadcast') return algorithm === 'double-binary-tree' ? 2 : 1;
  if (algorithm === 'double-binary-tree') return 2;
  return n;
}

/** The entries of one job repeat together: they must agree on `iterations`. */
export function checkCollectiveJobs(workload: readonly WorkloadSpec[]): void {
  const first = new Map<string, number>();
  workload.forEach((w, i) => {
    // An alltoall entry is a job of its own, named job<i> (src/workload/generate.ts jobName).
    if (w.kind === 'alltoall') first.set(`job${i}`, i);
  });
  workload.forEach((w, i) => {
    if (w.kind !== 'collective') return;
    const j = first.get(w.job);
    if (j === undefined) {
      first.set(w.job, i);
      return;
    }
    const other = workload[j];
    if (other.kind !== 'collective')
      fail(['workload', i, 'job'], `${w.job} is the name of workload[${j}]'s own job (an alltoall)`);
    if (other.iterations !== w.iterations)
      fail(
        ['workload', i, 'iterations'],
        `job ${w.job} runs ${other.iterations} iterations (workload[${j}]), not ${w.iterations}`,
      );
  });
}
