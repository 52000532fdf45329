import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase, type Database } from '../../src/infra/database.ts';
import { apiErrorFromDatabase, isReadTimeout } from '../../src/infra/databaseErrors.ts';
import { Journal } from '../../src/services/trading/journal.ts';
import { advanceEngineFence } from '../../src/services/trading/persist.ts';
import { WriteSet } from '../../src/services/trading/writeSet.ts';
import { TEST_DATABASE_URL } from '../helpers/env.ts';
import { dropSchema, uniqueName } from '../helpers/infra.ts';
import { TcpProxy } from '../helpers/tcpProxy.ts';

/**
 * Issue 22, "waits on PostgreSQL are bounded", at the pool: PostgreSQL ends a long
 * statement and an idle transaction, the client gives up a connection that went silent
 * (and never reuses it), each as an error that answers 503; and the journal's deadline is
 * decided on one clock.
 */
const schema = uniqueName('pgtimeouts');
const TIMEOUTS = { statementMs: 300, connectMs: 500, idleInTransactionMs: 500 };
let proxy: TcpProxy;
let db: Database;
beforeAll(async () => {
  // Migrated directly (migrations are not bounded), then used through the proxy.
  await (await openDatabase({ kind: 'postgres', url: TEST_DATABASE_URL, schema })).close();
  const target = new URL(TEST_DATABASE_URL);
  proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
  const viaProxy = new URL(TEST_DATABASE_URL);
  viaProxy.port = String(proxy.port);
  db = await openDatabase({ kind: 'postgres', url: viaProxy.toString(), schema, timeouts: TIMEOUTS }, { migrate: false });
});
afterAll(async () => {
  await proxy?.close();
  await db?.close().catch(() => undefined);
  await dropSchema(schema);
});

const failure = (p: Promise<unknown>) => p.then(() => undefined, (err: unknown) => err);

describe('bounded waits on PostgreSQL', () => {
  it('PostgreSQL ends a statement at the statement timeout, on raw SQL and Prisma alike, as a 503; the connection serves on', async () => {
    const raw = await failure(db.sql.query('SELECT pg_sleep(5)'));
    expect((raw as { code?: string }).code).toBe('57014');
    expect(apiErrorFromDatabase(raw)?.code).toBe('DATABASE_UNAVAILABLE');
    const viaPrisma = await failure(db.prisma.$queryRawUnsafe('SELECT pg_sleep(5)'));
    expect(apiErrorFromDatabase(viaPrisma)?.code).toBe('DATABASE_UNAVAILABLE');
    expect(await db.sql.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('PostgreSQL ends a transaction left idle, freeing its locks', async () => {
    await advanceEngineFence(db.sql, 'idle-test');
    let lockedMeanwhile: unknown;
    const err = await failure(
      db.sql.transaction(async (tx) => {
        await tx.query(`SELECT * FROM "EngineFence" WHERE name = 'idle-test' FOR UPDATE`);
        await new Promise((r) => setTimeout(r, TIMEOUTS.idleInTransactionMs * 3));
        // Another connection takes the row at once: the idle transaction's lock is gone.
        lockedMeanwhile = await db.sql.query(`SELECT name FROM "EngineFence" WHERE name = 'idle-test' FOR UPDATE NOWAIT`);
        await tx.query('SELECT 1');
      }),
    );
    expect(lockedMeanwhile).toEqual([{ name: 'idle-test' }]);
    expect(apiErrorFromDatabase(err)?.code, String(err)).toBe('DATABASE_UNAVAILABLE');
  });

  it('gives up a connection that went silent (blackholed), answers 503, and never hands it out again', async () => {
    // Several pooled connections, all through the proxy.
    await Promise.all(Array.from({ length: 4 }, () => db.sql.query('SELECT pg_sleep(0.05)')));
    proxy.blackhole();
    try {
      const silent = await Promise.all(Array.from({ length: 4 }, () => failure(db.sql.query('SELECT 1'))));
      for (const err of silent) expect(apiErrorFromDatabase(err)?.code, String(err)).toBe('DATABASE_UNAVAILABLE');
      expect(silent.some(isReadTimeout)).toBe(true);
      // A new connection cannot open either: refused at the connect timeout.
      expect(apiErrorFromDatabase(await failure(db.prisma.apiKey.findFirst()))?.code).toBe('DATABASE_UNAVAILABLE');
    } finally {
      proxy.restore();
    }
    // Had a silent connection gone back to the pool, a query on it would wait behind the
    // lost one and time out again.
    const after = await Promise.all(Array.from({ length: 8 }, () => db.sql.query<{ one: number }>('SELECT 1 AS one')));
    expect(after.flat()).toEqual(Array.from({ length: 8 }, () => ({ one: 1 })));
  });

  it('outlives a reset of its idle connections, the projection pool\'s (relaxed commit) among them: both pools serve again', async () => {
    // One idle connection in each pool: pg's pool re-emits an idle connection's error on
    // itself, which ends the process unless the pool has a listener.
    await db.sql.query('SELECT 1');
    await db.sql.query('SELECT 1', [], { relaxedCommit: true });
    proxy.reset();
    await new Promise((r) => setTimeout(r, 300));
    expect(await db.sql.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    expect(await db.sql.query<{ one: number }>('SELECT 1 AS one', [], { relaxedCommit: true })).toEqual([{ one: 1 }]);
  });

  it("decides an append's deadline on PostgreSQL's clock alone: a Node clock an hour behind neither refuses nor admits an append wrongly", async () => {
    const fence = await advanceEngineFence(db.sql, 'clock-test');
    const journal = new Journal(db.sql, () => fence);
    await journal.open(0n);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() - 3_600_000 });
    try {
      // By Node's clock the deadline is 2 s away; compared with PostgreSQL's clock it would be an hour past.
      const seq = await journal.append(new WriteSet(), Date.now() + 2_000);
      expect(seq).toBe(1n);
      // And a deadline already passed by Node's clock is refused, however far PostgreSQL's clock is.
      const late = await failure(journal.append(new WriteSet(), Date.now() - 1));
      expect((late as { code?: string }).code).toBe('EJ001');
    } finally {
      vi.useRealTimers();
    }
    const stored = await db.sql.query<{ seq: string }>(`SELECT seq::text AS seq FROM "TradingJournal" ORDER BY seq`);
    expect(stored).toEqual([{ seq: '1' }]);
  });
});
