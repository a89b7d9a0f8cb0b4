import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/paper/**/*.test.ts'],
    testTimeout: 1_800_000,
    hookTimeout: 600_000,
    pool: 'forks',
  },
});
