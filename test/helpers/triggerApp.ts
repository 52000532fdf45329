import { expect } from 'vitest';
import type { SignedIn } from './auth.ts';
import { shiftableClock } from './clock.ts';
import { startTestApp, testDatabase, type RunningApp } from './infra.ts';

/** The trigger tests' own server and GraphQL calls (test/e2e/trigger-*.test.ts). */

/** A GraphQL request with the caller's session: the whole response body. */
export async function graphqlRaw(url: string, who: SignedIn, query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...who.auth },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as { data?: Record<string, any>; errors?: { extensions?: Record<string, any> }[] };
}

/** A GraphQL request with the caller's session that must succeed: its data. */
export async function graphql(url: string, who: SignedIn, query: string, variables: Record<string, unknown> = {}) {
  const body = await graphqlRaw(url, who, query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data as Record<string, any>;
}

/** Runs `run` against a server of its own; `restart` stops it and starts another on the same database. */
export async function withApp(
  run: (app: RunningApp, clock: ReturnType<typeof shiftableClock>, restart: () => Promise<RunningApp>) => Promise<void>,
  env: Record<string, string> = {},
) {
  const db = await testDatabase();
  const clock = shiftableClock();
  let app = await startTestApp({ database: db, clock, env });
  const restart = async () => {
    await app.close();
    app = await startTestApp({ database: db, clock, env });
    return app;
  };
  try {
    await run(app, clock, restart);
  } finally {
    await app.close();
    await db.drop();
  }
}
