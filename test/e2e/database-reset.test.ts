import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/auth.ts';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../helpers/env.ts';
import { dropSchema, uniqueName } from '../helpers/infra.ts';
import { freePort } from '../helpers/redisServer.ts';
import { ServiceProcess } from '../helpers/serviceProcess.ts';
import { TcpProxy } from '../helpers/tcpProxy.ts';
import { placeOrder, trader } from '../helpers/trading.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * Issue 16, class 0: the real server process reaches PostgreSQL through a proxy that
 * resets every connection at once, the trading-engine lock's among them. The process must
 * not exit: it refuses trading (503) until it holds the lock again under a new fence
 * epoch, rebuilds from the database, and serves, keeping every order it acknowledged.
 */
const schema = uniqueName('pgreset');
let proxy: TcpProxy | undefined;
let service: ServiceProcess | undefined;
afterAll(async () => {
  service?.kill();
  await proxy?.close();
  await dropSchema(schema);
});

async function fenceEpoch(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path="${schema}"` });
  await client.connect();
  try {
    return (await client.query<{ epoch: string }>(`SELECT epoch::text FROM "EngineFence" WHERE name = 'trading-engine'`)).rows[0]?.epoch;
  } finally {
    await client.end();
  }
}

describe('a reset of every PostgreSQL connection', () => {
  it('under load: the process stays up, takes its engine lock again, keeps every acknowledged order and trades again without a restart', async () => {
    const target = new URL(TEST_DATABASE_URL);
    proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(TEST_DATABASE_URL);
    viaProxy.port = String(proxy.port);
    service = ServiceProcess.start({ port: await freePort(), schema, redisUrl: TEST_REDIS_URL, env: { DATABASE_URL: viaProxy.toString() } });
    await service.listening();
    const url = service.url;
    await pollUntil(async () => (await fetch(`${url}/readyz`)).status === 200, 10_000, 100);
    const t = await trader(url, { USDC: '1000000' });
    expect(await fenceEpoch()).toBe('1');

    const answers: { clientOrderId: string; status: number; code?: string }[] = [];
    let stop = false;
    let n = 0;
    const load = async () => {
      while (!stop) {
        const clientOrderId = `o${n++}`;
        const r = await placeOrder(url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', clientOrderId, limitGtc: { price: '100' } });
        answers.push({ clientOrderId, status: r.status, code: r.body?.code });
      }
    };
    const loops = Array.from({ length: 4 }, load);
    // Twice: the lock taken back must be as good as the first.
    const connections: number[] = [];
    for (let round = 0; round < 2; round++) {
      const acknowledged = answers.filter((a) => a.status === 200).length;
      await pollUntil(() => answers.filter((a) => a.status === 200).length >= acknowledged + 20, 15_000);
      connections.push(proxy.connections);
      proxy.reset();
      await new Promise((r) => setTimeout(r, 500));
      await pollUntil(async () => (await fetch(`${url}/readyz`)).status === 200, 15_000, 100);
    }
    stop = true;
    await Promise.all(loops);

    expect(Math.min(...connections)).toBeGreaterThan(1);
    expect(service.running, service.stderr.join('')).toBe(true);
    // Refusals are the spec's 503, never another 5xx.
    const statuses = new Set(answers.map((a) => a.status));
    expect([...statuses].filter((s) => s !== 200 && s !== 503), JSON.stringify(answers.filter((a) => a.status !== 200))).toEqual([]);
    // One new epoch per lock taken back.
    expect(await fenceEpoch()).toBe('3');

    const after = await placeOrder(url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', clientOrderId: 'after', limitGtc: { price: '100' } });
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    const open = new Set<string>();
    for (let pageToken: string | undefined; ; ) {
      const page = await api(url, 'GET', `/v1/orders/open?limit=500${pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : ''}`, undefined, t.auth);
      expect(page.status).toBe(200);
      for (const o of page.body.orders as { clientOrderId: string }[]) open.add(o.clientOrderId);
      pageToken = page.body.nextPageToken;
      if (!pageToken) break;
    }
    const acknowledged = answers.filter((a) => a.status === 200).map((a) => a.clientOrderId);
    expect(acknowledged.filter((id) => !open.has(id))).toEqual([]);
    expect(open.has('after')).toBe(true);
    // An order refused as not durable may still have been stored; none other is.
    const refused = new Set(answers.filter((a) => a.status === 503 && a.code !== 'COMMIT_FAILED').map((a) => a.clientOrderId));
    expect([...open].filter((id) => refused.has(id))).toEqual([]);
  });
});
