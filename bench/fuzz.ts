import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorLogLines, Fuzzer, fuzzIdentity, graphqlOperations, restOperations, runFuzz, STORE_DEADLINE_MS, type Operation } from '../test/fuzz/fuzzer.ts';
import { startTestApp, testStore } from '../test/helpers/infra.ts';

/**
 * The long fuzz run (`npm run fuzz`): the fuzzer of test/e2e/fuzz.test.ts against the
 * whole service on PostgreSQL and Redis, round after round with new seeds until
 * FUZZ_REQUESTS requests (default 50,000) were answered. Figures go to bench/fuzz-report.md.
 */
const target = Number(process.env.FUZZ_REQUESTS ?? 50_000);
const firstSeed = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
const started = Date.now();
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
// The fuzzer judges answers to inputs: a Redis round trip slower than the default 250 ms
// on this shared machine is a 503 of the fault tests' kind, not of the input's.
const store = await testStore({ commandTimeoutMs: STORE_DEADLINE_MS });
const server = await startTestApp({ store });
let exitCode = 0;
try {
  const identity = await fuzzIdentity(server.url);
  const rest = await restOperations(server.url);
  const graphql = await graphqlOperations(server.url, identity.session.auth);
  const operations: Operation[] = [...rest, ...graphql.operations];
  const fuzzer = new Fuzzer(server.url, identity, { maxViolations: 20 });
  const seeds: number[] = [];
  for (let seed = firstSeed; fuzzer.stats.requests < target; seed++) {
    seeds.push(seed);
    await runFuzz(fuzzer, operations, { runsPerOperation: 100, parallel: 4, seed, stopOnViolation: false, schema: graphql.schema });
    console.log(`seed ${seed}: ${fuzzer.stats.requests} requests, ${fuzzer.stats.violationCount} violations`);
  }
  const errorLines = errorLogLines(server.logs);
  const { stats } = fuzzer;
  const errors = Object.entries(stats.byStatus).filter(([s]) => Number(s) >= 400).reduce((n, [, c]) => n + c, 0);
  const counts = Object.values(stats.byOperation);
  const report = [
    '# Fuzz report',
    '',
    'Written by `npm run fuzz` (bench/fuzz.ts, the fuzzer of test/fuzz/fuzzer.ts): every operation of `/v1/openapi.json` and every Query and Mutation field of the GraphQL schema (introspected), unsigned, with a session, signed with an API key and with the operator token, on PostgreSQL and Redis.',
    '',
    `- date: ${new Date().toISOString()}, commit ${commit}, node ${process.version}`,
    `- seeds: ${seeds[0]} to ${seeds.at(-1)} (rerun one with FUZZ_SEED)`,
    `- duration: ${Math.round((Date.now() - started) / 1000)} s; Redis command deadline ${STORE_DEADLINE_MS} ms (the default 250 ms is the fault tests' subject)`,
    `- operations: ${rest.length} REST + ${graphql.operations.length} GraphQL; requests per operation: ${Math.min(...counts)} to ${Math.max(...counts)}`,
    '',
    '| figure | value |',
    '|---|---:|',
    `| requests answered | ${stats.requests.toLocaleString('en')} |`,
    `| error answers (4xx) | ${errors.toLocaleString('en')} |`,
    `| 5xx answers | ${stats.serverErrors} |`,
    `| answers not in the error form (problem+json with code; GraphQL extensions.code, not INTERNAL) | ${stats.violationCount - stats.serverErrors} |`,
    `| error-level log lines | ${errorLines.length} |`,
    '',
    '## Answers by status',
    '',
    '| status | count |',
    '|---|---:|',
    ...Object.entries(stats.byStatus).map(([s, c]) => `| ${s} | ${c.toLocaleString('en')} |`),
    '',
    ...(stats.violations.length > 0 ? ['## First violations', '', '```json', JSON.stringify(stats.violations, null, 2), '```', ''] : []),
    ...(errorLines.length > 0 ? ['## First error log lines', '', '```', ...errorLines.slice(0, 10), '```', ''] : []),
  ].join('\n');
  await writeFile(path.join(import.meta.dirname, 'fuzz-report.md'), report);
  console.log(report);
  if (stats.violationCount > 0 || errorLines.length > 0) exitCode = 1;
} finally {
  await server.close();
  await store.flush();
}
process.exit(exitCode);
