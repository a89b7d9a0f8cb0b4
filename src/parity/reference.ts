/**
 * A peer simulator's validation results as data (parity/<suite>/reference.json, written by
 * scripts/uet-reference.mjs): per experiment its plan, the values its repository recorded and the
 * values measured by running it here. Checked on load, so a hand-edited file cannot feed the
 * harness wrong numbers silently.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const count = z.number().int().nonnegative().nullable();

export const referenceRunSchema = z.object({
  tailFctUs: z.number().nonnegative(),
  firstFctUs: z.number().nonnegative().nullable(),
  spread: z.number().nullable(),
  connections: z.number().int().nonnegative().nullable(),
  newPkts: count,
  rtx: count,
  rts: count,
  bounced: count,
  acks: count,
  nacks: count,
  pulls: count,
  flowFctUs: z.record(z.string(), z.number()).default({}),
  medianFctUs: z.number().nullable().optional(),
  wallS: z.number().optional(),
  cpuS: z.number().optional(),
});

export type ReferenceRun = z.infer<typeof referenceRunSchema>;

export const referenceExperimentSchema = z.object({
  id: z.string(),
  suite: z.string(),
  name: z.string(),
  matrix: z.string(),
  nodes: z.number().int().positive(),
  params: z.array(z.string()),
  targets: z.object({ tailFctUs: z.number(), flowFctUs: z.record(z.string(), z.number()) }),
  recorded: referenceRunSchema.nullable(),
  measured: referenceRunSchema.nullable(),
  /** A k = 8 cut stands for this 1024-node experiment. */
  cutOf: z.string().nullable(),
});

export type ReferenceExperiment = z.infer<typeof referenceExperimentSchema>;

export const referenceFileSchema = z.object({
  source: z.record(z.string(), z.string()),
  measured: z.record(z.string(), z.string()),
  reduction: z.string(),
  experiments: z.array(referenceExperimentSchema).min(1),
});

export type ReferenceFile = z.infer<typeof referenceFileSchema>;

export function loadReference(file: string): ReferenceFile {
  const parsed = referenceFileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new Error(`${file}: ${i.path.join('.')}: ${i.message}`);
  }
  return parsed.data;
}

/**
 * The reference value an experiment is compared with: what the repository recorded, or for a
 * cut (never recorded) what we measured running the reference on it.
 */
export function referenceValue(e: ReferenceExperiment): ReferenceRun | null {
  return e.recorded ?? e.measured;
}
