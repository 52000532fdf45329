import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzIdentity, graphqlOperations, restOperations, type FuzzIdentity, type Operation } from '../fuzz/fuzzer.ts';
import { api, signHeaders, signIn, type SignedIn } from '../helpers/auth.ts';
import { TEST_DATABASE_URL } from '../helpers/env.ts';
import { startTestApp, testDatabase, type RunningApp } from '../helpers/infra.ts';
import { BOARDS, createBoard } from '../helpers/rooms.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * Issue 24: every signed mutation uses its signature up before its handler runs, over REST
 * and GraphQL, charged to a limiter pool or not. The route table and the GraphQL schema are
 * walked (what the service publishes about itself, so a mutation added later is covered):
 * each mutation is sent once, signed, then sent again byte for byte; the second answer is
 * 401 REPLAYED_REQUEST and the database is exactly as the first left it.
 */
let server: RunningApp;
let database: Awaited<ReturnType<typeof testDatabase>>;
let client: pg.Client;
let id: FuzzIdentity;
let member: SignedIn;
let boardId: string;

beforeAll(async () => {
  database = await testDatabase();
  server = await startTestApp({ database });
  client = new pg.Client(TEST_DATABASE_URL);
  await client.connect();
  id = await fuzzIdentity(server.url);
  member = await signIn(server.url);
  boardId = (await createBoard(server.url, id.session)).board.boardId;
}, 60_000);

afterAll(async () => {
  await client?.end();
  await server?.close();
  await database?.drop();
});

/**
 * Every row of every table of the test's schema, as one text per table. `lastUsedAt` is
 * left out: the last use of a key is flushed to its row in the background.
 */
async function snapshot(): Promise<Record<string, string>> {
  const tables = await client.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY table_name`,
    [database.schema],
  );
  const out: Record<string, string> = {};
  for (const { table_name } of tables.rows) {
    const r = await client.query<{ digest: string | null }>(
      `SELECT md5(string_agg((to_jsonb(t) - 'lastUsedAt')::text, '|' ORDER BY (to_jsonb(t) - 'lastUsedAt')::text)) AS digest FROM "${database.schema}"."${table_name}" t`,
    );
    out[table_name] = r.rows[0]?.digest ?? '';
  }
  return out;
}

/** The database once whatever the first request set going (projections, flushes) is done. */
async function settled(): Promise<Record<string, string>> {
  let last = await snapshot();
  await pollUntil(async () => {
    await new Promise((r) => setTimeout(r, 150));
    const next = await snapshot();
    const same = JSON.stringify(next) === JSON.stringify(last);
    last = next;
    return same;
  }, 10_000);
  return last;
}

/** Values for the path parameters the walk meets; others get a well-formed id that names nothing. */
function pathOf(op: Operation): string {
  return op.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    if (name === 'boardId') return boardId;
    if (name === 'accountId') return member.rootAccountId;
    return 'ffffffff-ffff-4fff-bfff-ffffffffffff';
  });
}

/** Bodies that apply, where one is known; `{}` otherwise (the replay must be refused either way). */
function bodyOf(op: Operation): unknown {
  const key = `${op.method} ${op.path}`;
  const known: Record<string, unknown> = {
    [`POST ${BOARDS}`]: { title: 'replayed?' },
    [`PATCH ${BOARDS}/{boardId}`]: { title: 'renamed once' },
    [`PUT ${BOARDS}/{boardId}/members/{accountId}`]: { role: 'EDITOR' },
  };
  if (key in known) return known[key];
  return op.body ? {} : undefined;
}

async function sendTwice(target: string, method: string, body: string | undefined) {
  const headers = { ...signHeaders(id.key, method, target, body ?? ''), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) };
  const send = async () => {
    const res = await fetch(`${server.url}${target}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const first = await send();
  const before = await settled();
  const replay = await send();
  const after = await settled();
  return { first, replay, before, after };
}

describe('a replayed signed mutation is refused with nothing done', () => {
  it('every REST mutation of /v1/openapi.json', async () => {
    const mutations = (await restOperations(server.url)).filter((op) => op.method !== 'GET' && !op.path.startsWith('/operator/'));
    expect(mutations.map((op) => op.path)).toContain(BOARDS);
    for (const op of mutations) {
      const body = bodyOf(op);
      const { first, replay, before, after } = await sendTwice(pathOf(op), op.method, body === undefined ? undefined : JSON.stringify(body));
      expect({ op: op.name, first: first.status < 500 }).toEqual({ op: op.name, first: true });
      expect({ op: op.name, status: replay.status, code: replay.body?.code }).toEqual({ op: op.name, status: 401, code: 'REPLAYED_REQUEST' });
      expect({ op: op.name, db: after }).toEqual({ op: op.name, db: before });
    }
    // The known bodies applied the first time: the walk replayed real changes.
    const boards = await api(server.url, 'GET', BOARDS, undefined, id.session.auth);
    expect(boards.body.boards.filter((b: { board: { title: string } }) => b.board.title === 'replayed?')).toHaveLength(1);
  }, 300_000);

  it('every GraphQL mutation of the schema', async () => {
    const { operations } = await graphqlOperations(server.url, id.session.auth);
    const mutations = operations.filter((op) => op.graphql?.operation === 'mutation');
    expect(mutations.map((op) => op.graphql!.field)).toContain('createWhiteboard');
    const known: Record<string, Record<string, unknown>> = {
      createWhiteboard: { input: { title: 'replayed over GraphQL?' } },
    };
    for (const op of mutations) {
      const g = op.graphql!;
      // Every argument a variable: the document always validates, so it reaches execution,
      // where the signature is claimed whatever the values are.
      const vars = g.args.map((a) => `$${a.name}: ${typeText(a.type)}`).join(', ');
      const args = g.args.map((a) => `${a.name}: $${a.name}`).join(', ');
      const query = `mutation Replay${vars ? `(${vars})` : ''} { ${g.field}${args ? `(${args})` : ''} ${g.selection} }`;
      const body = JSON.stringify({ query, variables: known[g.field] ?? {} });
      const { replay, before, after } = await sendTwice('/graphql', 'POST', body);
      expect({ op: op.name, code: replay.body?.errors?.[0]?.extensions?.code, status: replay.body?.errors?.[0]?.extensions?.status }).toEqual({
        op: op.name,
        code: 'REPLAYED_REQUEST',
        status: 401,
      });
      expect(replay.body?.data?.[g.field] ?? null).toBeNull();
      expect({ op: op.name, db: after }).toEqual({ op: op.name, db: before });
    }
    const boards = await api(server.url, 'GET', BOARDS, undefined, id.session.auth);
    expect(boards.body.boards.filter((b: { board: { title: string } }) => b.board.title === 'replayed over GraphQL?')).toHaveLength(1);
  }, 300_000);
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function typeText(ref: any): string {
  if (ref.kind === 'NON_NULL') return `${typeText(ref.ofType)}!`;
  if (ref.kind === 'LIST') return `[${typeText(ref.ofType)}]`;
  return ref.name as string;
}
