import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, parseScenarioText } from '../../src/config/load.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** The ```yaml blocks of a markdown file. */
function yamlBlocks(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]);
}

describe('docs/scenario.md examples', () => {
  const blocks = yamlBlocks('docs/scenario.md');

  it('the opening example is a complete, valid scenario', () => {
    const s = parseScenarioText(blocks[0]);
    expect(s.name).toBe('incast-8to1');
    expect(s.hosts.h1).toEqual({ cc: 'none' });
    expect(s.cc.dcqcn).toEqual({ profile: 'paper', params: { rai: '40Mbps' } });
  });

  it('every fragment is valid inside a minimal scenario', () => {
    const base = 'topology: { kind: dumbbell, left: 4, right: 5 }\n';
    for (const block of blocks.slice(1)) {
      const text = /^(\s*)topology:/m.test(block)
        ? block
        : /^\s*- /.test(block)
          ? `${base}workload:\n${block.replace(/^/gm, '  ')}`
          : `${base}${block}`;
      expect(() => parseScenarioText(text), block).not.toThrow();
    }
  });
});

describe('shipped scenarios', () => {
  const files = readdirSync(join(ROOT, 'scenarios'), { recursive: true })
    .map(String)
    .filter((f) => /\.ya?ml$/.test(f));
  it.each(files)('%s validates', (f) => {
    expect(() => loadScenario(join(ROOT, 'scenarios', f))).not.toThrow();
  });
});
