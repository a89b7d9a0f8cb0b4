import { defineConfig } from 'vitest/config';

// The default suite: unit, property and virtual-time tests, files in parallel.
// Timing-sensitive suites (real-time processes, network namespaces) run afterwards, one file at a
// time, from vitest.realtime.config.ts; paper-scale reproductions from vitest.paper.config.ts
// (`npm run test:paper`); docker from test/docker/vitest.config.ts (`npm run test:docker`).
export const SEQUENTIAL_SUITES = ['test/realtime/**', 'test/netns/**', 'test/k8s/**'];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'nic/**/*.test.ts', 'switch/**/*.test.ts'],
    exclude: ['test/paper/**', 'test/docker/**', ...SEQUENTIAL_SUITES, 'node_modules/**', 'dist/**'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Temporary files under one directory per run, removed at its end.
    globalSetup: ['test/support/tmp-dir-setup.ts'],
  },
});
