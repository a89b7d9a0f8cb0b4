/**
 * A node's configuration as `rocelab node` reads it from its environment, for a scenario given as
 * YAML: written once to a file (SCENARIO), then read for h1 with each test's variables on top.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type NodeConfig, nodeConfigFromEnv } from '../../src/runtime/real/node.js';

export function nodeConfigOf(yaml: string): (env: Record<string, string>) => NodeConfig {
  const file = join(mkdtempSync(join(tmpdir(), 'rocelab-node-config-')), 's.yaml');
  writeFileSync(file, yaml);
  return (env) => nodeConfigFromEnv({ NODE: 'h1', SCENARIO: file, LOG_LEVEL: 'silent', ...env });
}
