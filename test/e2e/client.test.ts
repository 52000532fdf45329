import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpotClient, placeOrder, reconcileOrder, type SpotClient, type SpotClientOptions } from '../../client/index.ts';
import { api, clientAddress, liftLimits, newKeyPair, onboard } from '../helpers/auth.ts';
import { startTestApp, TEST_OPERATOR_TOKEN, type RunningApp } from '../helpers/infra.ts';
import { credit } from '../helpers/trading.ts';

/** The typed client (client/) against the whole service: signing, skew, 429 retries, reconciliation. */
let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

/** A fetch that records the status of every request it sends, retries included. */
function recordingFetch() {
  const statuses: number[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    statuses.push(res.status);
    return res;
  };
  return { statuses, fetchFn };
}

async function keyedTrader(options: { lift?: boolean; client?: Partial<SpotClientOptions> } = {}) {
  const who = await onboard(server.url);
  if (options.lift !== false) await liftLimits(server.url, who.rootAccountId, ['TRADING_PLACE', 'TRADING_CANCEL']);
  const session = createSpotClient({ baseUrl: server.url, sessionToken: who.token, headers: clientAddress() });
  const policy = await session.POST('/v1/auth/api-policies', { body: { name: 'bot', permissions: ['READ', 'TRADE'] } });
  const pair = newKeyPair();
  const created = await session.POST('/v1/auth/api-keys', {
    body: { label: 'bot', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), policyId: policy.data!.policy.policyId },
  });
  await credit(server.url, who.rootAccountId, 'USDC', '100000');
  const apiKey = { keyId: created.data!.apiKey.keyId, seed: pair.secretKey };
  const client: SpotClient = createSpotClient({ baseUrl: server.url, apiKey, maxJitterMs: 20, ...options.client });
  return { who, client, apiKey };
}

/** Caps the account's order placement at one per `periodMs`. */
async function throttle(accountId: string, periodMs: string) {
  const r = await api(
    server.url,
    'PUT',
    '/operator/v1/rate-limit-overrides',
    { pool: 'TRADING_PLACE', accountId, quotaWeight: '1', periodMs, burstWeight: '1' },
    { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` },
  );
  expect(r.status).toBe(200);
}

const bid = (clientOrderId: string) => ({
  order: { symbol: 'BTC-USDC', side: 'BUY' as const, baseQty: '0.001', limitGtc: { price: '1000' }, clientOrderId },
});

describe('the typed /v1 client', () => {
  it('corrects its clock from the 401 that carries the server time, once, and keeps the offset', async () => {
    const { statuses, fetchFn } = recordingFetch();
    const { client } = await keyedTrader({ client: { now: () => Date.now() - 120_000, fetch: fetchFn } });
    const first = await client.GET('/v1/balances');
    expect(first.response.status).toBe(200);
    expect(statuses).toEqual([401, 200]);
    const second = await client.GET('/v1/orders/open', { params: { query: { symbol: 'BTC-USDC' } } });
    expect(second.response.status).toBe(200);
    expect(statuses).toEqual([401, 200, 200]);
  });

  it('retries a 429 after retry_after_ms with the same request, freshly signed', async () => {
    const { statuses, fetchFn } = recordingFetch();
    const { who, client } = await keyedTrader({ lift: false, client: { fetch: fetchFn } });
    await throttle(who.rootAccountId, '1000');
    expect((await client.POST('/v1/orders', { body: bid('retry-1') })).response.status).toBe(200);
    const second = await client.POST('/v1/orders', { body: bid('retry-2') });
    expect(second.response.status, JSON.stringify(second.error)).toBe(200);
    expect(statuses).toEqual([200, 429, 200]);
    const placed = await reconcileOrder(client, 'retry-2');
    expect(placed).toMatchObject({ outcome: 'found', order: { clientOrderId: 'retry-2' } });
  });

  it('returns the 429 problem once its retries are spent', async () => {
    const { statuses, fetchFn } = recordingFetch();
    const { who, client } = await keyedTrader({ lift: false, client: { fetch: fetchFn, maxRetries: 0 } });
    await throttle(who.rootAccountId, '60000');
    expect((await client.POST('/v1/orders', { body: bid('spent-1') })).response.status).toBe(200);
    const refused = await client.POST('/v1/orders', { body: bid('spent-2') });
    expect(refused.response.status).toBe(429);
    expect(refused.error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', rate_limit: { policy_class: 'TRADING_PLACE' } });
    expect(statuses).toEqual([200, 429]);
  });

  it('reconciles by client order id: found when it was placed, unknown when never seen', async () => {
    const { client } = await keyedTrader();
    const placed = await placeOrder(client, bid('reconcile-me'));
    expect(placed.response?.status).toBe(200);
    expect(placed.reconciled).toBeUndefined();
    expect(await reconcileOrder(client, 'reconcile-me')).toMatchObject({ outcome: 'found', order: { clientOrderId: 'reconcile-me' } });
    expect(await reconcileOrder(client, 'never-sent', { attempts: 2, delayMs: 10 })).toEqual({ outcome: 'unknown' });
  });

  it('reconciles instead of resending when the answer to an order is lost in transit', async () => {
    const sent: string[] = [];
    // The order reaches the server, but its answer is lost: the client sees a network error.
    const lossy: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const res = await fetch(request);
      sent.push(`${request.method} ${new URL(request.url).pathname}`);
      if (request.method === 'POST' && new URL(request.url).pathname === '/v1/orders') throw new TypeError('fetch failed');
      return res;
    };
    const { client } = await keyedTrader({ client: { fetch: lossy } });
    const placed = await placeOrder(client, bid('lost-answer'));
    expect(placed.reconciled).toMatchObject({ outcome: 'found', order: { clientOrderId: 'lost-answer' } });
    expect(sent.filter((s) => s === 'POST /v1/orders')).toHaveLength(1);
  });
});
