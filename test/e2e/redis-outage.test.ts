import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrderUpdatesDocument } from '../generated/graphql/graphql.ts';
import { api, liftLimits, newKeyPair, signed, type ClientKey, type SignedIn } from '../helpers/auth.ts';
import { wsClient } from '../helpers/graphql.ts';
import { dropSchema, uniqueName } from '../helpers/infra.ts';
import { freePort, RedisServer } from '../helpers/redisServer.ts';
import { ServiceProcess } from '../helpers/serviceProcess.ts';
import { placeOrder, trader } from '../helpers/trading.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * Issue 16, class 0: the real server process against a redis-server of the test's own,
 * killed under load and restarted. The process must never exit; reads keep being served;
 * mutations answer the spec's 503 until Redis is back; events committed meanwhile (a
 * dead-man switch firing) reach this process's subscribers.
 */
const schema = uniqueName('redisdown');
let redis: RedisServer;
let port: number;
const services: ServiceProcess[] = [];

beforeAll(async () => {
  redis = await RedisServer.start();
  port = await freePort();
});
afterAll(async () => {
  for (const s of services) s.kill();
  await redis.kill();
  await dropSchema(schema);
});

function start(): ServiceProcess {
  const s = ServiceProcess.start({ port, schema, redisUrl: redis.url });
  services.push(s);
  return s;
}

const BUY = { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', limitGtc: { price: '20000' } };
let owner: SignedIn;
let key: ClientKey;
let restingId: string;

describe('a Redis outage', () => {
  it('under load: the process stays up, signed reads work, mutations answer 503 RATE_LIMIT_AUTHORITY_UNAVAILABLE, a dead-man switch fires and its cancels reach the subscriber, and trading resumes once Redis is back', async () => {
    const service = start();
    await service.listening();
    const url = service.url;
    owner = await trader(url, { USDC: '1000000' });
    await liftLimits(url, owner.rootAccountId);
    const terms = await api(url, 'GET', '/v1/auth/terms', undefined, owner.auth);
    await api(url, 'POST', '/v1/auth/terms/accept', { version: terms.body.currentVersion }, owner.auth);
    const policy = await api(url, 'POST', '/v1/auth/api-policies', { name: 'rt', permissions: ['READ', 'TRADE'] }, owner.auth);
    const pair = newKeyPair();
    const created = await api(url, 'POST', '/v1/auth/api-keys', { label: 'k', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), policyId: policy.body.policy.policyId }, owner.auth);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    key = { keyId: created.body.apiKey.keyId, ...pair };

    const resting = await placeOrder(url, owner, BUY);
    expect(resting.status).toBe(200);
    restingId = resting.body.orderId;
    const armed = await api(url, 'POST', '/v1/orders/cancel-all-after', { requestId: 'dms', timeoutSec: 10, symbol: 'BTC-USDC' }, owner.auth);
    expect(armed.body.status).toBe('ARMED');

    const updates: { orderId: string; status: string; closeReason: string | null }[] = [];
    const client = wsClient(url, { authorization: owner.auth.authorization as string });
    client.subscribe({ query: OrderUpdatesDocument.toString() }, {
      next: (r) => void updates.push((r.data as { orderUpdates: (typeof updates)[number] }).orderUpdates),
      error: () => undefined,
      complete: () => undefined,
    });
    await new Promise((r) => setTimeout(r, 300));

    // Load: orders in flight continuously while Redis dies under them.
    let loading = true;
    const statuses: number[] = [];
    const load = Promise.all(
      Array.from({ length: 8 }, async () => {
        while (loading) statuses.push((await placeOrder(url, owner, BUY).catch(() => ({ status: 0 }))).status);
      }),
    );
    await new Promise((r) => setTimeout(r, 400));
    await redis.kill();
    await new Promise((r) => setTimeout(r, 600));
    loading = false;
    await load;
    expect(service.running, service.stderr.join('')).toBe(true);
    expect(statuses).not.toContain(0);
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);

    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    // The load rests however many orders the machine's speed allows: read every page.
    const listed: string[] = [];
    let pageToken = '';
    do {
      const open = await signed(url, key, 'GET', `/v1/orders/open?symbol=BTC-USDC&limit=1000${pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : ''}`);
      expect(open.status, JSON.stringify(open.body)).toBe(200);
      listed.push(...open.body.orders.map((o: { orderId: string }) => o.orderId));
      pageToken = open.body.nextPageToken;
    } while (pageToken);
    expect(listed).toContain(restingId);
    const write = await signed(url, key, 'POST', '/v1/orders', { order: BUY });
    expect(write.status).toBe(503);
    expect(write.body.code).toBe('RATE_LIMIT_AUTHORITY_UNAVAILABLE');
    expect((await placeOrder(url, owner, BUY)).body.code).toBe('RATE_LIMIT_AUTHORITY_UNAVAILABLE');

    // The switch fires while Redis is down: committed, and published to this process's subscriber.
    await pollUntil(() => updates.some((u) => u.orderId === restingId && u.status === 'CANCELED'), 15_000, 100);
    expect(updates.find((u) => u.orderId === restingId && u.status === 'CANCELED')?.closeReason).toBe('DEAD_MAN_SWITCH');
    const after = await api(url, 'GET', `/v1/orders/${restingId}`, undefined, owner.auth);
    expect(after.body.order.status).toBe('CANCELED');
    expect(service.running, service.stderr.join('')).toBe(true);

    await redis.up();
    let resumed = 0;
    await pollUntil(async () => (resumed = (await placeOrder(url, owner, BUY)).status) === 200, 10_000, 100);
    expect(resumed).toBe(200);
    expect(service.running).toBe(true);
    await client.dispose();
    expect(await service.stop()).toBe(0);
  }, 60_000);

  it('at start-up: the service starts without Redis and serves reads, mutations answer 503 until Redis comes', async () => {
    await redis.kill();
    const service = start();
    await service.listening();
    const url = service.url;
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { checks: Record<string, string> }).checks).toEqual({ database: 'ok', redis: 'unreachable', tradingEngine: 'ok' });
    expect((await api(url, 'GET', '/v1/balances', undefined, owner.auth)).status).toBe(200);
    expect((await api(url, 'GET', '/v1/spot/orderbook?symbol=BTC-USDC')).status).toBe(200);
    const read = await signed(url, key, 'GET', `/v1/orders/${restingId}`);
    expect(read.status).toBe(200);
    expect(read.body.order.status).toBe('CANCELED');
    expect((await placeOrder(url, owner, BUY)).body.code).toBe('RATE_LIMIT_AUTHORITY_UNAVAILABLE');

    await redis.up();
    let resumed = 0;
    await pollUntil(async () => (resumed = (await signed(url, key, 'POST', '/v1/orders', { order: BUY })).status) === 200, 10_000, 100);
    expect(resumed).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect(await service.stop()).toBe(0);
  }, 60_000);
});
