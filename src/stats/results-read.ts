/**
 * Reading a results.json back (`rocelab compare` of earlier runs, `rocelab sweep collect`): the
 * file checked against the results schema (results-schema.ts, docs/results.md) and its series
 * turned back into the run's form. A file cut short, from another rocelab version or edited by
 * hand is refused with one line naming it and, for a schema mismatch, the first wrong key.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../config/errors.js';
import { firstIssue } from '../config/zod-format.js';
import { type Results, seriesFromJson } from './results.js';
import { resultsSchema } from './results-schema.js';

export function readResultsFile(file: string): Results {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError('', `${file}: not a readable results.json (${(err as Error).message})`);
  }
  const parsed = resultsSchema.safeParse(json);
  if (!parsed.success) {
    const { path, message } = firstIssue(parsed.error.issues);
    const where = path.length > 0 ? ` at ${path.map(String).join('.')}` : '';
    throw new ConfigError('', `${file}: not a results.json of this rocelab${where}: ${message}`);
  }
  return { ...parsed.data, series: seriesFromJson(parsed.data.series) } as Results;
}
