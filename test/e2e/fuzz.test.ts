import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testStore, type RunningApp } from '../helpers/infra.ts';
import { errorLogLines, STORE_DEADLINE_MS, Fuzzer, fuzzIdentity, graphqlOperations, restOperations, runFuzz, type Operation } from '../fuzz/fuzzer.ts';

/**
 * The bounded fuzz run of `npm test` (the long run is `npm run fuzz`): a few thousand
 * generated requests over every operation the service publishes. A violation fails with
 * the smallest request fast-check could shrink it to.
 */
let server: RunningApp;
let store: Awaited<ReturnType<typeof testStore>>;
beforeAll(async () => {
  // Answers to inputs are judged here; a Redis round trip slowed past 250 ms by the other
  // test files on this machine would be a 503 of the fault tests' kind.
  store = await testStore({ commandTimeoutMs: STORE_DEADLINE_MS });
  server = await startTestApp({ store });
});
afterAll(async () => {
  await server?.close();
  await store?.flush();
});

const SEED = Number(process.env.FUZZ_SEED ?? 1616);
const BUDGET = 3000;

describe('fuzzing every published operation', () => {
  it('never answers 5xx, every error is problem+json with a code (GraphQL: extensions.code, never INTERNAL), nothing logs an error', async () => {
    const identity = await fuzzIdentity(server.url);
    const rest = await restOperations(server.url);
    const graphql = await graphqlOperations(server.url, identity.session.auth);
    const operations: Operation[] = [...rest, ...graphql.operations];
    // Every /v1 route the service has is in the document the fuzzer walks.
    expect(rest.length).toBeGreaterThan(40);
    expect(graphql.operations.length).toBeGreaterThan(20);
    const fuzzer = new Fuzzer(server.url, identity);
    // A fixed budget however many operations land, so the round stays well under a minute.
    const runsPerOperation = Math.max(10, Math.floor(BUDGET / operations.length));
    await runFuzz(fuzzer, operations, { runsPerOperation, parallel: 4, seed: SEED, stopOnViolation: true, schema: graphql.schema });
    expect(fuzzer.stats.violations).toEqual([]);
    for (const op of operations) expect(fuzzer.stats.byOperation[op.name] ?? 0, op.name).toBeGreaterThan(0);
    expect(fuzzer.stats.requests).toBeGreaterThan(BUDGET * 0.8);
    expect(errorLogLines(server.logs)).toEqual([]);
  }, 120_000);
});
