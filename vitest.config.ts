import { defineConfig } from 'vitest/config';

// The default suite: unit, property, virtual-time and real-time tests that fit a CI run.
// Paper-scale reproductions live in vitest.paper.config.ts (`npm run test:paper`).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'nic/**/*.test.ts', 'switch/**/*.test.ts'],
    exclude: ['test/paper/**', 'test/docker/**', 'node_modules/**', 'dist/**'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
