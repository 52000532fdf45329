import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS and ESM builds; Node (and so Pothos, Yoga) loads the CJS one, so
    // our own imports must too, or graphql sees two copies of itself.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Each file opens its own PostgreSQL schema and Redis key prefix, so files run in parallel.
    pool: 'forks',
    fileParallelism: true,
    // A worker process runs file after file, importing src/ once: a fresh process per file
    // cost about 2.7 s of CPU each (forking, then loading Prisma, GraphQL, viem and the
    // app's modules again), a third of a run's time. No file mocks modules; the few spies
    // and fake clocks restore themselves, and each file's state lives in its own schema.
    isolate: false,
    // Two files at a time on the two-core CI machine (vitest's default is one: cores - 1).
    // Most files wait on processes, sockets and simulated blocks rather than compute: a
    // clean-clone .ci/run took 11 min this way against 18 min with one worker, all passing.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/helpers/global-setup.ts'],
    // The JSON report lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});
