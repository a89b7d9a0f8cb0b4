/**
 * `npm run parity -- uet`: the reference simulator's validation suite (parity/uet/reference.json)
 * run on our simulator. Which experiments run: every one up to 128 nodes, and for each 1024-node
 * experiment its k = 8 cut (the reference run on the cut by us); `large` adds the 1024-node
 * originals (opt-in: hours here). Each runs in virtual time and is judged by verdict.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseScenarioText } from '../../config/load.js';
import { runScenario } from '../../runtime/run.js';
import { type ReferenceExperiment, type ReferenceFile, referenceValue } from '../reference.js';
import { judge, type MetricVerdict, type ParityMetrics, parityMetrics } from '../verdict.js';
import { parseRefOptions } from './options.js';
import { parityScenarioText } from './scenario.js';

export interface Selection {
  /** Include the 1024-node originals. */
  large: boolean;
  /** Substring of id or name. */
  only: string | null;
}

export function selectExperiments(ref: ReferenceFile, sel: Selection): ReferenceExperiment[] {
  return ref.experiments.filter((e) => {
    if (e.nodes > 128 && !sel.large) return false;
    return sel.only === null || e.id.includes(sel.only) || e.name.includes(sel.only);
  });
}

export interface ExperimentOutcome {
  experiment: ReferenceExperiment;
  /** Null when the experiment could not be expressed or run (`error` says why). */
  metrics: ParityMetrics | null;
  verdicts: MetricVerdict[];
  error: string | null;
  wallS: number | null;
}

/** The scenario text of one experiment, or why it cannot be written. */
export function experimentScenario(e: ReferenceExperiment, dataDir: string): string {
  return parityScenarioText({
    id: e.id,
    matrix: e.matrix,
    nodes: e.nodes,
    options: parseRefOptions(e.params),
    dataDir,
  });
}

export function runExperiment(
  e: ReferenceExperiment,
  dataDir: string,
  outRoot: string | null,
): ExperimentOutcome {
  const fail = (error: string): ExperimentOutcome => ({
    experiment: e,
    metrics: null,
    verdicts: [],
    error,
    wallS: null,
  });
  const ref = referenceValue(e);
  if (ref === null) return fail('no reference value');
  let text: string;
  let scenario: ReturnType<typeof parseScenarioText>;
  try {
    text = experimentScenario(e, dataDir);
    scenario = parseScenarioText(text, { file: `${e.id}.yaml`, dir: dataDir });
  } catch (err) {
    return fail(`cannot express: ${(err as Error).message.split('\n')[0]}`);
  }
  const outDir =
    outRoot !== null
      ? join(outRoot, e.id.replace(/[^A-Za-z0-9_.-]+/g, '_'))
      : mkdtempSync(join(tmpdir(), 'parity-'));
  const t0 = performance.now();
  try {
    const out = runScenario({ scenario, runtime: 'virtual', outDir, print: null });
    const metrics = parityMetrics(out.results);
    return {
      experiment: e,
      metrics,
      verdicts: judge(ref, metrics, e.targets.tailFctUs),
      error: null,
      wallS: (performance.now() - t0) / 1000,
    };
  } catch (err) {
    return fail(`run failed: ${(err as Error).message.split('\n')[0]}`);
  } finally {
    if (outRoot === null) rmSync(outDir, { recursive: true, force: true });
  }
}
