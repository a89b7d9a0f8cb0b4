import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// `npm run test:docker`: the docker testbed end to end (installs docker.io, docker-compose and
// prometheus when missing, starts dockerd, builds the image locally, compose up, Prometheus on
// the host). Not part of `npm test`; .ci/run runs it after the main suite.
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/docker/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 300_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
