import { expectTypeOf, it } from 'vitest';
import type { RunOptions } from '../../src/cli/run-options.js';
import type { runScenario } from '../../src/runtime/run.js';

// Compile-time check (npm run typecheck): what the CLI passes is what the runner accepts.
it('CLI RunOptions fit runScenario', () => {
  expectTypeOf<RunOptions>().toExtend<Parameters<typeof runScenario>[0]>();
});
