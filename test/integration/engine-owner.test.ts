import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { ApiError } from '../../src/domain/errorCatalogue.ts';
import { TEST_DATABASE_URL } from '../helpers/env.ts';
import { dropSchema, testConfig, uniqueName } from '../helpers/infra.ts';
import { pollUntil } from '../helpers/wait.ts';
import { projected } from '../helpers/trading.ts';

describe('one engine owner per database', () => {
  it('refuses to start a second process on the same database, and lets one start once the owner is gone', async () => {
    const schema = uniqueName('own');
    const config = testConfig({ DATABASE_SCHEMA: schema, REDIS_KEY_PREFIX: `${schema}:` });
    const owner = await createApp({ config });
    try {
      await expect(createApp({ config })).rejects.toThrow(/another process owns the trading engines/);
    } finally {
      await owner.close();
    }
    const next = await createApp({ config });
    await next.close();
    await dropSchema(schema);
  });

  it('tells the owner when the connection holding its lock dies (another process can take it at once), and not on a normal close', async () => {
    const schema = uniqueName('own');
    const config = testConfig({ DATABASE_SCHEMA: schema, REDIS_KEY_PREFIX: `${schema}:` });
    const lost: Error[] = [];
    // An owner that does not take its lock back, so the successor can take it.
    const owner = await createApp({ config, onEngineLockLost: (err) => lost.push(err), reactToEngineLockLoss: false });
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      const killed = await admin.query('SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1', [`lock:${schema}:trading-engine`]);
      expect(killed.rows).toEqual([{ ok: true }]);
      await pollUntil(() => lost.length > 0, 2000);
      expect(lost).toHaveLength(1);
      // Why the owner must stop: the lock is free for the next process right away.
      const successor = await createApp({ config, onEngineLockLost: (err) => lost.push(err) });
      await successor.close();
      expect(lost).toHaveLength(1);
    } finally {
      await admin.end();
      await owner.close();
      await dropSchema(schema);
    }
  });

  it('fences off an owner that lost its lock: once a successor started, none of its commits is stored', async () => {
    const schema = uniqueName('own');
    const config = testConfig({ DATABASE_SCHEMA: schema, REDIS_KEY_PREFIX: `${schema}:` });
    const lost: Error[] = [];
    const stale = await createApp({ config, onEngineLockLost: (err) => lost.push(err), reactToEngineLockLoss: false });
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path="${schema}"` });
    await admin.connect();
    let successor: Awaited<ReturnType<typeof createApp>> | undefined;
    try {
      const account = await stale.database.prisma.account.create({ data: { publicId: uniqueName('f'), kind: 'ROOT' } });
      const deposit = (app: typeof stale) => app.services.ledger.operatorCredit({ accountId: account.publicId, asset: 'USDC', amount: '5', ledgerAccount: 'TRADING' });
      await deposit(stale);
      const transfers = async () => {
        await projected(async (text) => (await admin.query(text)).rows);
        return (await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM "LedgerTransfer"')).rows[0]?.n;
      };
      expect(await transfers()).toBe(1);

      // The stale owner has not noticed yet (its handler only records): it still tries to commit.
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [`lock:${schema}:trading-engine`]);
      await pollUntil(() => lost.length > 0, 2000);
      successor = await createApp({ config });
      const refused = await deposit(stale).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(ApiError);
      expect(refused).toMatchObject({ status: 503, code: 'COMMIT_FAILED' });
      expect(await transfers()).toBe(1);
      expect(lost.map((e) => e.message)).toEqual([expect.stringMatching(/terminating connection/), expect.stringMatching(/engine fence "trading-engine" moved past epoch 1/)]);
      // It stays fenced off (refusing, not rebuilding from what the successor writes)...
      await expect(deposit(stale)).rejects.toMatchObject({ status: 503, code: 'REBUILDING' });
      // ...while the successor commits, from the state the stale owner left.
      await deposit(successor);
      expect(await transfers()).toBe(2);
      await projected(async (text) => (await admin.query(text)).rows);
      const balance = await admin.query<{ available: string }>('SELECT available::text FROM "Balance" WHERE "accountId" = $1 AND "assetId" = 4', [account.id]);
      expect(balance.rows).toEqual([{ available: '10000000000000000000' }]);
    } finally {
      await admin.end();
      await successor?.close();
      await stale.close();
      await dropSchema(schema);
    }
  });

  it('takes its lock back after the lock connection dies: trading and /readyz refuse meanwhile, then serve again without a restart', async () => {
    const schema = uniqueName('own');
    const config = testConfig({ DATABASE_SCHEMA: schema, REDIS_KEY_PREFIX: `${schema}:` });
    const lost: Error[] = [];
    const owner = await createApp({ config, onEngineLockLost: (err) => lost.push(err) });
    const url = await owner.listen();
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path="${schema}"` });
    await admin.connect();
    try {
      const account = await owner.database.prisma.account.create({ data: { publicId: uniqueName('r'), kind: 'ROOT' } });
      const deposit = () => owner.services.ledger.operatorCredit({ accountId: account.publicId, asset: 'USDC', amount: '5', ledgerAccount: 'TRADING' });
      await deposit();

      // Another session takes the lock the moment the owner's connection dies, so the
      // owner cannot take it back until that session lets go.
      const key = `${schema}:trading-engine`;
      const blocker = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await blocker.connect();
      const taken = blocker.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [`lock:${key}`]);
      await taken;
      await pollUntil(() => lost.length > 0, 2000);
      expect(lost[0]?.message).toMatch(/terminating connection/);

      await expect(deposit()).rejects.toMatchObject({ status: 503, code: 'REBUILDING' });
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ code: 'NOT_READY', checks: { database: 'ok', tradingEngine: 'REBUILDING' } });

      await blocker.end();
      // The owner retries with backoff (at most 5 s apart).
      await pollUntil(async () => (await fetch(`${url}/readyz`)).status === 200, 10_000, 100);
      await deposit();
      await projected(async (text) => (await admin.query(text)).rows);
      const balance = await admin.query<{ available: string }>('SELECT available::text FROM "Balance" WHERE "accountId" = $1 AND "assetId" = 4', [account.id]);
      expect(balance.rows).toEqual([{ available: '10000000000000000000' }]);
      // It holds the lock again, under a new fence epoch: a second process is refused.
      await expect(createApp({ config })).rejects.toThrow(/another process owns the trading engines/);
      const fence = await admin.query<{ epoch: string }>('SELECT epoch::text FROM "EngineFence" WHERE name = $1', ['trading-engine']);
      expect(fence.rows).toEqual([{ epoch: '2' }]);
      expect(lost).toHaveLength(1);
    } finally {
      await admin.end();
      await owner.close();
      await dropSchema(schema);
    }
  });
});
