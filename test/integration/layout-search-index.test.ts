import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/auth/caller.ts';
import { systemClock } from '../../src/infra/clock.ts';
import { createLayoutService } from '../../src/services/layouts/index.ts';
import { PageTokens } from '../../src/services/pageTokens.ts';
import { TEST_DATABASE_URL } from '../helpers/env.ts';
import { testDatabase } from '../helpers/infra.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * Template discovery's title search (a case-insensitive fragment) is served by the pg_trgm
 * GIN index on PostgreSQL, not by reading every listed template: the plan of the search
 * over 20,000 templates uses it, and so does the service's own query (the index's scan
 * counter moves when the service searches).
 */
const INDEX = 'LayoutTemplate_title_trgm_idx';
const ROWS = 20_000;
let database: Awaited<ReturnType<typeof testDatabase>>;
let client: pg.Client;
let caller: Caller;
let ownerId: bigint;

beforeAll(async () => {
  database = await testDatabase();
  client = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path="${database.schema}"` });
  await client.connect();
  const root = await database.prisma.account.create({ data: { publicId: `SearchRoot${Date.now()}`, kind: 'ROOT' } });
  ownerId = root.id;
  caller = { kind: 'session', rootAccountId: root.id, rootPublicId: root.publicId, sessionId: 1n };
  await client.query(
    `INSERT INTO "LayoutTemplate" ("ownerAccountId", "templateId", "sourceLayoutId", "title", "tags", "isListed")
     SELECT $1, 't' || i, i, 'Layout number ' || i || ' ' || md5(i::text), '{}', true FROM generate_series(1, $2::int) AS i`,
    [ownerId, ROWS],
  );
  // What autovacuum does to a table this size: a GIN index without it has no statistics,
  // and the planner prices every search as reading all of it.
  await client.query('VACUUM ANALYZE "LayoutTemplate"');
}, 60_000);

afterAll(async () => {
  await client?.end();
  await database?.drop();
});

async function indexScans(): Promise<number> {
  // A reading session keeps a snapshot of the statistics until told to drop it.
  await client.query('SELECT pg_stat_clear_snapshot()');
  const r = await client.query<{ n: string }>(
    `SELECT idx_scan::text AS n FROM pg_stat_user_indexes WHERE schemaname = current_schema() AND indexrelname = $1`,
    [INDEX],
  );
  return Number(r.rows[0]!.n);
}

describe('layout template title search on PostgreSQL', () => {
  it('the migration installs pg_trgm and the GIN index on the title', async () => {
    const r = await client.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1`, [INDEX]);
    expect(r.rows[0]?.indexdef).toMatch(/USING gin \(title public\.gin_trgm_ops\)/);
  });

  it('the plan of a fragment search over 20,000 templates reads the trigram index', async () => {
    // The shape of the service's query: listed templates, title ILIKE '%fragment%', newest first.
    const plan = await client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT id FROM "LayoutTemplate"
        WHERE "isListed" = true AND "title"::text ILIKE $1
        ORDER BY "updatedAt" DESC, id DESC LIMIT 21`,
      ['%NUMBER 1234 %'],
    );
    const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toContain(INDEX);
    expect(text).not.toMatch(/Seq Scan on "?LayoutTemplate"?/);
  });

  it('the service\'s search uses the index and finds the fragment whatever its case', async () => {
    const layouts = createLayoutService({
      db: database.prisma,
      clock: systemClock(),
      pageTokens: new PageTokens('search-secret'),
      limiter: { admit: async () => undefined },
    });
    const before = await indexScans();
    const found = await layouts.listLayoutTemplates(caller, { query: 'layout NUMBER 4321 ' });
    expect(found.templates.map((t) => t.title)).toEqual([expect.stringMatching(/^Layout number 4321 /)]);
    // Statistics reach the shared counters shortly after the serving session's transaction.
    await pollUntil(async () => (await indexScans()) > before, 10_000);
    expect(await indexScans()).toBeGreaterThan(before);
  });
});
