import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/infra/database.ts';
import { api } from '../helpers/auth.ts';
import { TEST_DATABASE_URL } from '../helpers/env.ts';
import { dropSchema, TEST_OPERATOR_TOKEN, tempDir, uniqueName } from '../helpers/infra.ts';
import { balancesOf, placeOrder, trader } from '../helpers/trading.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * `npm start` as a newcomer runs it: no DATABASE_URL, no REDIS_URL. The process is the
 * real entry point (src/main.ts); only PORT and DATA_DIR are chosen so tests can run
 * next to a developer's own server.
 */
const root = path.resolve(import.meta.dirname, '../..');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

function start(env: Record<string, string>): ChildProcess {
  const cleanEnv = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !['DATABASE_URL', 'REDIS_URL', 'NODE_ENV'].includes(k)),
  );
  return spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...cleanEnv, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function waitFor(url: string, deadlineMs = 75_000): Promise<Response> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    try {
      return await fetch(url);
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('the service as a process, on its embedded defaults', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups) await c();
  });

  it('serves health and readiness, stops cleanly on SIGTERM, and keeps its data across restarts', async () => {
    const { dir, remove } = await tempDir();
    cleanups.push(remove);
    const port = await freePort();
    const env = { PORT: String(port), DATA_DIR: dir };

    const first = start(env);
    cleanups.push(async () => void first.kill('SIGKILL'));
    expect((await waitFor(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'ok', tradingEngine: 'ok' } });
    const firstExit = exited(first);
    first.kill('SIGTERM');
    expect(await firstExit).toBe(0);

    // Data written between runs must still be there after the next run.
    const between = await openDatabase({ kind: 'pglite', dataDir: dir });
    await between.prisma.account.create({ data: { publicId: 'SurvivesRestart', kind: 'ROOT' } });
    await between.close();

    const second = start(env);
    cleanups.push(async () => void second.kill('SIGKILL'));
    expect((await waitFor(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    const secondExit = exited(second);
    second.kill('SIGTERM');
    expect(await secondExit).toBe(0);

    const after = await openDatabase({ kind: 'pglite', dataDir: dir });
    try {
      expect(await after.prisma.account.count({ where: { publicId: 'SurvivesRestart' } })).toBe(1);
      const migrations = await after.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM "_prisma_migrations"');
      const distinct = await after.sql.query<{ n: number }>(
        'SELECT count(DISTINCT migration_name)::int AS n FROM "_prisma_migrations"',
      );
      expect(migrations[0]?.n).toBe(distinct[0]?.n);
    } finally {
      await after.close();
    }
  }, 200_000);

  it('trades on the embedded defaults as the README shows (operator credit, then orders), and keeps the book across a restart', async () => {
    const { dir, remove } = await tempDir();
    cleanups.push(remove);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = { PORT: String(port), DATA_DIR: dir, OPERATOR_TOKEN: TEST_OPERATOR_TOKEN, TRUST_PROXY: 'true' };

    const first = start(env);
    cleanups.push(async () => void first.kill('SIGKILL'));
    expect((await waitFor(`${url}/readyz`)).status).toBe(200);
    const seller = await trader(url, { BTC: '1' });
    const buyer = await trader(url, { USDC: '100000' });
    const ask = await placeOrder(url, seller, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.5', limitGtc: { price: '30000' } });
    expect(ask.status, JSON.stringify(ask.body)).toBe(200);
    const bid = await placeOrder(url, buyer, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.2', limitIoc: { price: '30000' } });
    expect((await api(url, 'GET', `/v1/orders/${bid.body.orderId}`, undefined, buyer.auth)).body.order).toMatchObject({ status: 'FILLED', cumQty: '0.2' });
    const balances = await balancesOf(url, seller);
    const firstExit = exited(first);
    first.kill('SIGTERM');
    expect(await firstExit).toBe(0);

    const second = start(env);
    cleanups.push(async () => void second.kill('SIGKILL'));
    expect((await waitFor(`${url}/readyz`)).status).toBe(200);
    const book = await api(url, 'GET', '/v1/spot/orderbook?symbol=BTC-USDC');
    expect(book.body.asks).toEqual([{ price: '30000', qty: '0.3', orders: 1 }]);
    expect(await balancesOf(url, seller)).toEqual(balances);
    const rest = await placeOrder(url, buyer, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.3', limitIoc: { price: '30000' } });
    expect((await api(url, 'GET', `/v1/orders/${rest.body.orderId}`, undefined, buyer.auth)).body.order).toMatchObject({ status: 'FILLED', cumQty: '0.3' });
    const secondExit = exited(second);
    second.kill('SIGTERM');
    expect(await secondExit).toBe(0);
  }, 200_000);
});

describe('a database it cannot use', () => {
  const failure = async (env: Record<string, string>) => {
    const child = start(env);
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += String(d)));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    return { code, lines: stderr.trim().split('\n') };
  };

  it.each([
    ['a database that does not exist', 'postgresql://postgres:hunter2secret@127.0.0.1:5432/sx_no_such_database', /^cannot start: the database "sx_no_such_database" does not exist .*createdb sx_no_such_database/],
    ['nothing listening at the address', 'postgresql://postgres:hunter2secret@127.0.0.1:9/test', /^cannot start: PostgreSQL is not reachable at 127\.0\.0\.1:9 .*start PostgreSQL or fix DATABASE_URL$/],
  ])('%s: one actionable line, no stack trace, no password, exit 1', async (_, url, line) => {
    const { code, lines } = await failure({ DATABASE_URL: url, PORT: String(await freePort()), REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(line);
    expect(lines[0]).not.toContain('hunter2secret');
  }, 60_000);
});

describe('a Redis it cannot reach', () => {
  it('starts all the same (an outage of Redis is waited out) and says so in one actionable line, without the password', async () => {
    const port = await freePort();
    const schema = uniqueName('away');
    const child = start({ DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema, REDIS_URL: 'redis://:hunter2secret@127.0.0.1:9', PORT: String(port) });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += String(d)));
    try {
      expect((await waitFor(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      await pollUntil(() => stderr.includes('warning: Redis'), 30_000);
      const lines = stderr.split('\n').filter((l) => /redis/i.test(l) && !l.includes('Shared store'));
      // The one line, and nothing else about Redis: no error printed per connection or per retry.
      expect(lines).toEqual([expect.stringMatching(/^warning: Redis is not reachable at 127\.0\.0\.1:9 \(REDIS_URL=redis:\/\/:\*\*\*@127\.0\.0\.1:9, ECONNREFUSED\); .*answer 503.*: start Redis or fix REDIS_URL$/)]);
      expect(stderr).not.toContain('hunter2secret');
      expect(stderr).not.toMatch(/^\s+at /m);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(503);
    } finally {
      const exit = exited(child);
      child.kill('SIGTERM');
      await exit;
      await dropSchema(schema);
    }
  }, 120_000);
});
