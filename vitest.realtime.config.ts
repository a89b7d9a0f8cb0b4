import { defineConfig } from 'vitest/config';
import { SEQUENTIAL_SUITES } from './vitest.config.js';

// Real-time suites measure wall-clock behaviour (time dilation, clock sync, tc shaping): they get
// the machine to themselves, one file at a time, after the parallel suite.
export default defineConfig({
  test: {
    include: SEQUENTIAL_SUITES.map((g) => `${g.replace('/**', '')}/**/*.test.ts`),
    testTimeout: 300_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
    // Temporary files under one directory per run, removed at its end.
    globalSetup: ['test/support/tmp-dir-setup.ts'],
  },
});
