/**
 * zod schema of results.json (docs/results.md), strict: no key missing, none extra. Used by tests and
 * by tools that read results back (compare).
 */
import { z } from 'zod';

const int = z.number().int();
const nonNegInt = int.nonnegative();
const points = z.array(z.tuple([z.number(), z.number()]));

export const flowResultSchema = z.strictObject({
  id: nonNegInt,
  src: z.string(),
  dst: z.string(),
  cc: z.string(),
  sizeBytes: nonNegInt,
  startNs: nonNegInt,
  endNs: nonNegInt.nullable(),
  fctNs: nonNegInt.nullable(),
  idealFctNs: nonNegInt,
  slowdown: z.number().min(1).nullable(),
});

export const portResultSchema = z.strictObject({
  node: z.string(),
  port: nonNegInt,
  txBytes: z.number().nonnegative(),
  maxQueueBytes: z.number().nonnegative(),
  meanQueueBytes: z.number().nonnegative(),
  ecnMarked: nonNegInt,
  pfcPauseTx: nonNegInt,
  pfcPauseRx: nonNegInt,
  pausedNs: z.number().nonnegative(),
  drops: nonNegInt,
  cnmTx: nonNegInt,
  trims: nonNegInt.optional(),
  headerDrops: nonNegInt.optional(),
  maxHeaderQueueBytes: z.number().nonnegative().optional(),
  linkDownDrops: nonNegInt.optional(),
});

export const hostResultSchema = z.strictObject({
  node: z.string(),
  cnpTx: nonNegInt,
  cnpRx: nonNegInt,
  nackTx: nonNegInt,
  retransmits: nonNegInt,
  rxBytes: z.number().nonnegative(),
  multipath: z
    .strictObject({
      transport: z.string(),
      policy: z.string(),
      entropies: nonNegInt,
      entropyTxBytes: z.array(z.number().nonnegative()),
      dataBytesTx: z.number().nonnegative(),
      retransmittedBytes: z.number().nonnegative(),
      nackRx: nonNegInt,
      nackTx: nonNegInt,
      trimmedRx: nonNegInt,
      timeouts: nonNegInt,
      outOfOrderRx: nonNegInt,
      reorderMaxPackets: nonNegInt,
      reorderOverflowRx: nonNegInt,
      pullTx: nonNegInt.optional(),
      pullRx: nonNegInt.optional(),
    })
    .optional(),
});

export const flowTraceSchema = z.strictObject({
  flow: nonNegInt,
  changeCount: nonNegInt,
  drops: z.record(z.string(), nonNegInt),
  changes: z.array(
    z.tuple([nonNegInt, z.number().nonnegative(), z.number().nonnegative().nullable(), z.string()]),
  ),
});

export const resultsSchema = z.strictObject({
  version: z.literal(1),
  scenario: z.string(),
  runtime: z.string(),
  seed: int,
  timeScale: z.number().positive(),
  durationNs: nonNegInt,
  ccByHost: z.record(z.string(), z.string()),
  flows: z.array(flowResultSchema),
  ports: z.array(portResultSchema),
  hosts: z.array(hostResultSchema),
  series: z.strictObject({
    queue: z.record(z.string(), points),
    rate: z.record(z.string(), points),
  }),
  trace: z.array(flowTraceSchema),
  summary: z.strictObject({
    flowsTotal: nonNegInt,
    flowsCompleted: nonNegInt,
    slowdownP50: z.number().nullable(),
    slowdownP99: z.number().nullable(),
    maxQueueBytes: z.number().nonnegative(),
    pfcPauseTx: nonNegInt,
    drops: nonNegInt,
    goodputBps: z.number().nonnegative(),
    jain: z.number().min(0).max(1).nullable(),
    trims: nonNegInt.optional(),
    headerDrops: nonNegInt.optional(),
    linkDownDrops: nonNegInt.optional(),
  }),
  warnings: z.array(z.string()),
  /** Real runtimes only (docs/results.md "realtime"). */
  realtime: z
    .strictObject({
      sync: z.enum(['lockstep', 'wallclock']),
      processes: z.number().int().positive(),
      dilation: z
        .strictObject({ min: z.number().positive(), p50: z.number().positive(), max: z.number().positive() })
        .nullable(),
      promiseDatagrams: nonNegInt,
      dataFrames: nonNegInt,
      datagrams: nonNegInt,
      trainDatagrams: nonNegInt,
      bundles: nonNegInt,
      bundledDatagrams: nonNegInt,
      linksDown: z.array(
        z.strictObject({
          node: z.string(),
          port: nonNegInt,
          peer: z.string(),
          atNs: z.number().nonnegative(),
        }),
      ),
      lateFrames: nonNegInt,
      worstLate: z.strictObject({ node: z.string(), maxLateNs: z.number().positive() }).nullable(),
      minLinkDelayNs: z.number().nonnegative(),
      resentDatagrams: nonNegInt,
      pauses: z.strictObject({
        gcMaxMs: z.number().nonnegative(),
        gcOver1Ms: nonNegInt,
        eventLoopMaxMs: z.number().nonnegative(),
        longGc: z
          .array(
            z.strictObject({
              node: z.string(),
              atNs: z.number().nonnegative(),
              durationMs: z.number().positive(),
              kind: z.string(),
            }),
          )
          .optional(),
      }),
      lateOverTime: z
        .strictObject({ binNs: z.number().int().positive(), counts: z.array(nonNegInt) })
        .optional(),
    })
    .optional(),
  /** Only when the scenario has a `probes` key (docs/results.md "probes"). */
  probes: z
    .strictObject({
      binNs: z.number().int().positive(),
      bins: nonNegInt,
      ports: z.array(
        z.strictObject({
          node: z.string(),
          port: nonNegInt,
          txBytes: z.array(z.number().nonnegative()),
          queueMaxBytes: z.array(z.number().nonnegative()),
          queueMeanBytes: z.array(z.number().nonnegative()),
          pfcPauseTx: z.array(nonNegInt),
          pfcXoffTx: z.array(nonNegInt),
        }),
      ),
      flows: z.array(
        z.strictObject({
          id: nonNegInt,
          txBytes: z.array(z.number().nonnegative()),
          rxBytes: z.array(z.number().nonnegative()),
          ackRx: z.array(nonNegInt),
          cnpRx: z.array(nonNegInt),
          cnmRx: z.array(nonNegInt),
          senderState: z.record(z.string(), z.array(z.number().nullable())).optional(),
          receiverState: z.record(z.string(), z.array(z.number().nullable())).optional(),
        }),
      ),
    })
    .optional(),
  /** Only when the workload has collectives (docs/results.md "collectives"). */
  collectives: z
    .strictObject({
      ops: z.array(
        z.strictObject({
          job: z.string(),
          iteration: nonNegInt,
          entry: nonNegInt,
          op: z.string(),
          algorithm: z.string(),
          ranks: nonNegInt,
          sizeBytes: nonNegInt,
          startNs: nonNegInt,
          endNs: nonNegInt.nullable(),
          cctNs: nonNegInt.nullable(),
          algbwBps: nonNegInt.nullable(),
          busbwBps: nonNegInt.nullable(),
          idealNs: nonNegInt,
          ratio: z.number().nonnegative().nullable(),
        }),
      ),
      jobs: z.array(
        z.strictObject({
          job: z.string(),
          ops: nonNegInt,
          iterations: nonNegInt,
          completedIterations: nonNegInt,
          meanCctNs: nonNegInt.nullable(),
          p99CctNs: nonNegInt.nullable(),
          busbwBps: nonNegInt.nullable(),
          idealNs: nonNegInt,
          ratio: z.number().nonnegative().nullable(),
        }),
      ),
      slowest: z.array(
        z.strictObject({
          job: z.string(),
          iteration: nonNegInt,
          host: z.string(),
          rank: nonNegInt,
          sends: z.array(
            z.tuple([nonNegInt, nonNegInt, z.string(), nonNegInt, nonNegInt.nullable(), nonNegInt]),
          ),
        }),
      ),
      fabricLinks: z.array(
        z.strictObject({
          node: z.string(),
          port: nonNegInt,
          peer: z.string(),
          rateBps: z.number().positive(),
          txBytes: z.number().nonnegative(),
          utilisation: z.number().nonnegative(),
        }),
      ),
    })
    .optional(),
});

export type ResultsJson = z.infer<typeof resultsSchema>;
