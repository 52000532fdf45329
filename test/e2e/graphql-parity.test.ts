import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AcceptTermsDocument,
  CancelOrdersBatchDocument,
  CreateApiKeyDocument,
  CreateApiPolicyDocument,
  InternalTransferDocument,
  MyTradingDocument,
  MyTransfersDocument,
  OrderUpdatesDocument,
  RecentPublicTradesDocument,
  SpotConfigDocument,
  ViewerDocument,
} from '../generated/graphql/graphql.ts';
import { api, newKeyPair, type ClientKey, type SignedIn } from '../helpers/auth.ts';
import { apiKeyConnectionParams, collect, gql, wsClient } from '../helpers/graphql.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { balancesOf, credit, placeOrder, trader } from '../helpers/trading.ts';

let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

/** Everything the trading UI does over REST, it can do over GraphQL, through the same services. */

describe('batch cancel over GraphQL', () => {
  it('cancels by orderId and clientOrderId, rejects per item, and answers a repeated requestId from either transport', async () => {
    const t = await trader(server.url, { USDC: '10000' });
    const a = await placeOrder(server.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', limitGtc: { price: '1000' } });
    const b = await placeOrder(server.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', clientOrderId: 'batch-b', limitGtc: { price: '1001' } });
    const items = [{ orderId: a.body.orderId as string }, { clientOrderId: 'batch-b' }, { orderId: 'not-an-order' }];

    const first = await gql(server.url, CancelOrdersBatchDocument, { requestId: 'batch-1', items }, t.auth);
    expect(first.body.errors).toBeUndefined();
    const result = first.body.data!.cancelOrdersBatch;
    expect(result).toMatchObject({ acceptedCount: 2, rejectedCount: 1, tsNs: expect.stringMatching(/^[0-9]+$/) });
    expect(result.results).toEqual([
      { orderId: a.body.orderId, clientOrderId: null, status: 'ACCEPTED', code: null, error: null },
      { orderId: b.body.orderId, clientOrderId: 'batch-b', status: 'ACCEPTED', code: null, error: null },
      { orderId: 'not-an-order', clientOrderId: null, status: 'REJECTED', code: 'ORDER_NOT_FOUND', error: { code: 'ORDER_NOT_FOUND', violations: [], rateLimit: null } },
    ]);
    for (const id of [a.body.orderId, b.body.orderId]) {
      expect((await api(server.url, 'GET', `/v1/orders/${id}`, undefined, t.auth)).body.order.status).toBe('CANCELED');
    }

    // A repeat answers the first result (same timestamps), over GraphQL and over REST alike.
    const again = await gql(server.url, CancelOrdersBatchDocument, { requestId: 'batch-1', items }, t.auth);
    expect(again.body.data?.cancelOrdersBatch).toEqual(result);
    const rest = await api(server.url, 'POST', '/v1/orders/cancel-batch', { requestId: 'batch-1', items }, t.auth);
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ acceptedCount: 2, rejectedCount: 1, ts: result.ts, tsNs: result.tsNs });

    const reused = await gql(server.url, CancelOrdersBatchDocument, { requestId: 'batch-1', items: [{ orderId: a.body.orderId }] }, t.auth);
    expect(reused.body.data).toBeNull();
    expect(reused.body.errors?.[0]?.extensions).toMatchObject({
      code: 'CONFLICT_IDEMPOTENCY_KEY_REUSED',
      key: 'conflict',
      status: 409,
      violations: [{ fieldPath: 'requestId', message: expect.any(String), ruleId: 'idempotency-key' }],
    });
    // The service's own limits, the same as /v1's request schema.
    const empty = await gql(server.url, CancelOrdersBatchDocument, { requestId: 'batch-2', items: [] }, t.auth);
    expect(empty.body.errors?.[0]?.extensions).toMatchObject({ status: 400, violations: [expect.objectContaining({ fieldPath: 'items' })] });
    const longKey = await gql(server.url, CancelOrdersBatchDocument, { requestId: 'k'.repeat(129), items: [{ orderId: a.body.orderId }] }, t.auth);
    expect(longKey.body.errors?.[0]?.extensions).toMatchObject({ status: 400, violations: [expect.objectContaining({ fieldPath: 'requestId' })] });
  });

  it('refuses an anonymous caller with the 401 fields', async () => {
    const r = await gql(server.url, CancelOrdersBatchDocument, { requestId: 'anon', items: [{ orderId: 'x' }] });
    expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: 'CREDENTIALS_REQUIRED', key: 'unauthenticated', status: 401 });
  });
});

describe('ledger transfers over GraphQL', () => {
  it('moves FUNDING to TRADING, refuses what is not available, and pages the legs as /v1 lists them', async () => {
    const t = await trader(server.url, {});
    await credit(server.url, t.rootAccountId, 'USDC', '100', 'FUNDING');

    const moved = await gql(server.url, InternalTransferDocument, { input: { asset: 'USDC', amount: '40', fromLedger: 'FUNDING', toLedger: 'TRADING' } }, t.auth);
    expect(moved.body.errors).toBeUndefined();
    expect(moved.body.data?.internalTransfer).toEqual({ linkId: expect.stringMatching(/^[0-9]+$/), timestamp: expect.stringMatching(/^[0-9]+$/) });
    const expected = { 'FUNDING:USDC': { available: '60', held: '0' }, 'TRADING:USDC': { available: '40', held: '0' } };
    expect(await balancesOf(server.url, t)).toEqual(expected);
    const viewer = await gql(server.url, MyTradingDocument, { first: 1 }, t.auth);
    expect(viewer.body.data?.viewer.balances).toEqual([
      { ledgerAccount: 'FUNDING', asset: 'USDC', available: '60', held: '0' },
      { ledgerAccount: 'TRADING', asset: 'USDC', available: '40', held: '0' },
    ]);

    const tooMuch = await gql(server.url, InternalTransferDocument, { input: { asset: 'USDC', amount: '60.5', fromLedger: 'FUNDING', toLedger: 'TRADING' } }, t.auth);
    expect(tooMuch.body.errors?.[0]?.extensions).toMatchObject({
      code: 'INSUFFICIENT_BALANCE',
      key: 'invalid-argument',
      status: 400,
      violations: [{ fieldPath: 'amount', message: expect.any(String), ruleId: 'balance' }],
    });
    const same = await gql(server.url, InternalTransferDocument, { input: { asset: 'USDC', amount: '1', fromLedger: 'TRADING', toLedger: 'TRADING' } }, t.auth);
    expect(same.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', violations: [expect.objectContaining({ fieldPath: 'toLedger', ruleId: 'distinct' })] });
    expect(await balancesOf(server.url, t)).toEqual(expected);

    // The deposit leg, then the transfer's two legs: a page of two and a page of one.
    const page1 = await gql(server.url, MyTransfersDocument, { first: 2 }, t.auth);
    const c1 = page1.body.data!.viewer.transfers;
    expect(c1.edges).toHaveLength(2);
    expect(c1.pageInfo).toEqual({ hasNextPage: true, endCursor: expect.any(String) });
    const page2 = await gql(server.url, MyTransfersDocument, { first: 2, after: c1.pageInfo.endCursor }, t.auth);
    const c2 = page2.body.data!.viewer.transfers;
    expect(c2.edges).toHaveLength(1);
    expect(c2.pageInfo).toEqual({ hasNextPage: false, endCursor: null });
    const nodes = [...c1.edges, ...c2.edges].map((e) => e.node);
    expect(nodes[0]).toMatchObject({ transferCode: 'DEPOSIT', account: 'FUNDING', isDebit: false, amount: '100', balanceAfter: '100', asset: '4' });
    const linkId = moved.body.data!.internalTransfer.linkId;
    expect(nodes.slice(1).map((n) => [n.account, n.isDebit, n.amount, n.balanceAfter, n.transferCode, n.linkId]).sort()).toEqual([
      ['FUNDING', true, '40', '60', 'INTERNAL_TRANSFER', linkId],
      ['TRADING', false, '40', '40', 'INTERNAL_TRANSFER', linkId],
    ]);

    // Field for field what GET /v1/transfers answers (GraphQL has null where /v1 has an empty flowId).
    const rest = await api(server.url, 'GET', '/v1/transfers', undefined, t.auth);
    expect(nodes).toEqual(rest.body.transfers.map((x: { flowId: string }) => ({ ...x, flowId: x.flowId === '' ? null : x.flowId })));
    expect(nodes[1]!.source).toEqual({ accountId: t.rootAccountId, address: '', chainId: 0, kind: expect.any(String) });

    const trading = await gql(server.url, MyTransfersDocument, { ledger: 'TRADING', reversed: true }, t.auth);
    expect(trading.body.data!.viewer.transfers.edges.map((e) => e.node.linkId)).toEqual([linkId]);
  });

  it('answers paging mistakes with the /v1 error fields', async () => {
    const t = await trader(server.url, {});
    for (const amount of ['1', '2']) await credit(server.url, t.rootAccountId, 'USDC', amount, 'FUNDING');
    const page1 = await gql(server.url, MyTransfersDocument, { first: 1 }, t.auth);
    const cursor = page1.body.data!.viewer.transfers.pageInfo.endCursor;
    expect(cursor).toEqual(expect.any(String));

    // A cursor is bound to the filters it was made with.
    const otherFilter = await gql(server.url, MyTransfersDocument, { first: 1, after: cursor, ledger: 'FUNDING' }, t.auth);
    expect(otherFilter.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', key: 'invalid-argument', status: 400, violations: [expect.objectContaining({ ruleId: 'page-token' })] });
    const backwards = await gql(server.url, MyTransfersDocument, { last: 1 }, t.auth);
    expect(backwards.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', violations: [expect.objectContaining({ fieldPath: 'last', ruleId: 'forward-only' })] });
    const stranger = await trader(server.url, {});
    const foreign = await gql(server.url, MyTransfersDocument, { first: 1, after: cursor }, stranger.auth);
    expect(foreign.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', violations: [expect.objectContaining({ ruleId: 'page-token' })] });

    // Page sizes are checked by the service, so GraphQL gets /v1's limits.
    for (const first of [0, 1001]) {
      const r = await gql(server.url, MyTransfersDocument, { first }, t.auth);
      expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', status: 400, violations: [expect.objectContaining({ fieldPath: 'limit', ruleId: 'range' })] });
    }
    const manyFills = await gql(server.url, MyTradingDocument, { first: 5000 }, t.auth);
    expect(manyFills.body.errors?.[0]?.extensions).toMatchObject({ status: 400, violations: [expect.objectContaining({ fieldPath: 'limit' })] });
  });
});

describe('public market data over GraphQL', () => {
  it('answers the spot configuration of /v1, with camelCase scales', async () => {
    const r = await gql(server.url, SpotConfigDocument, {});
    expect(r.body.errors).toBeUndefined();
    const config = r.body.data!.spotConfig;
    expect(config.markets.map((m) => m.symbol)).toEqual(['BTC-USDC', 'ETH-USDC', 'SOL-USDC']);
    expect(config.markets[0]).toMatchObject({ symbol: 'BTC-USDC', baseAsset: 'BTC', quoteAsset: 'USDC', tickSize: '0.01', tickSizeQ9: '10000000', baseQuantityScale: 6 });
    expect(config.markets[0]!.fees).toHaveLength(11);

    const rest = await api(server.url, 'GET', '/v1/spot/config');
    expect(config.assets).toEqual(rest.body.assets);
    expect(config.markets).toEqual(
      rest.body.markets.map(({ base_quantity_scale, quote_quantity_scale, ...m }: Record<string, unknown>) => ({
        ...m,
        baseQuantityScale: base_quantity_scale,
        quoteQuantityScale: quote_quantity_scale,
      })),
    );
  });

  it('lists the trades of two accounts that crossed, newest first, as /v1 does', async () => {
    const maker = await trader(server.url, { SOL: '10' });
    const taker = await trader(server.url, { USDC: '10000' });
    expect((await gql(server.url, RecentPublicTradesDocument, { symbol: 'SOL-USDC' })).body.data?.publicTrades).toEqual([]);

    await placeOrder(server.url, maker, { symbol: 'SOL-USDC', side: 'SELL', baseQty: '2', limitGtc: { price: '150.5' } });
    for (const baseQty of ['0.5', '1']) {
      const bid = await placeOrder(server.url, taker, { symbol: 'SOL-USDC', side: 'BUY', baseQty, limitIoc: { price: '151' } });
      expect(bid.status).toBe(200);
    }

    const r = await gql(server.url, RecentPublicTradesDocument, { symbol: 'SOL-USDC', limit: 10 });
    expect(r.body.errors).toBeUndefined();
    const trades = r.body.data!.publicTrades;
    expect(trades.map((x) => [x.qty, x.price, x.takerSide])).toEqual([
      ['1', '150.5', 'BUY'],
      ['0.5', '150.5', 'BUY'],
    ]);
    expect(BigInt(trades[0]!.matchId)).toBeGreaterThan(BigInt(trades[1]!.matchId));
    const rest = await api(server.url, 'GET', '/v1/spot/public-trades?symbol=SOL-USDC&limit=10');
    // /v1 names the symbol once beside the list, GraphQL on each trade.
    expect(trades).toEqual(rest.body.trades.map((x: object) => ({ ...x, symbol: rest.body.symbol })));

    const newest = await gql(server.url, RecentPublicTradesDocument, { symbol: 'SOL-USDC', limit: 1 });
    expect(newest.body.data?.publicTrades).toEqual([trades[0]]);
    const tooMany = await gql(server.url, RecentPublicTradesDocument, { symbol: 'SOL-USDC', limit: 501 });
    expect(tooMany.body.errors?.[0]?.extensions).toMatchObject({ status: 400, violations: [expect.objectContaining({ fieldPath: 'limit', ruleId: 'range' })] });
    const unknown = await gql(server.url, RecentPublicTradesDocument, { symbol: 'DOGE-USDC' });
    expect(unknown.body.errors?.[0]?.extensions).toMatchObject({ code: 'UNKNOWN_SYMBOL', key: 'invalid-argument', status: 400, violations: [expect.objectContaining({ fieldPath: 'symbol' })] });
  });
});

describe('graphql-ws authenticated with an API key at connection_init', () => {
  /** A READ key of a trader, made through GraphQL as the web UI would. */
  async function readKey(who: SignedIn): Promise<ClientKey> {
    const version = (await gql(server.url, ViewerDocument, {}, who.auth)).body.data!.viewer.terms.currentVersion;
    await gql(server.url, AcceptTermsDocument, { version }, who.auth);
    const policy = await gql(server.url, CreateApiPolicyDocument, { name: 'read', permissions: ['READ'] }, who.auth);
    const pair = newKeyPair();
    const created = await gql(
      server.url,
      CreateApiKeyDocument,
      { input: { label: 'stream', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), policyId: policy.body.data!.createApiPolicy.policyId } },
      who.auth,
    );
    return { keyId: created.body.data!.createApiKey.keyId, ...pair };
  }

  /** The close code of a connection the server refuses; a result instead fails the test. */
  function refusal(client: Client): Promise<number> {
    return new Promise((resolve, reject) => {
      client.subscribe({ query: OrderUpdatesDocument.toString() }, {
        next: (r) => reject(new Error(`refused connection answered ${JSON.stringify(r)}`)),
        error: (e) => resolve((e as { code: number }).code),
        complete: () => reject(new Error('refused connection completed')),
      });
    });
  }

  it('streams the key owner’s order updates to a correctly signed connection', async () => {
    const t = await trader(server.url, { USDC: '10000' });
    const key = await readKey(t);
    const client = wsClient(server.url, apiKeyConnectionParams(key));
    try {
      // Subscribe first, so the socket stays open: a lazy client closes it after a lone query and
      // would reconnect with the same signature, which is then a replay.
      const updates = collect(client, OrderUpdatesDocument, {}, 1);
      const [viewer] = await collect(client, ViewerDocument, {}, 1);
      expect(viewer?.data?.viewer).toMatchObject({ credential: 'apiKey', rootAccountId: t.rootAccountId });
      await new Promise((r) => setTimeout(r, 300));
      const placed = await placeOrder(server.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', limitGtc: { price: '1000' } });
      const [update] = await updates;
      expect(update?.data?.orderUpdates).toMatchObject({ orderId: placed.body.orderId, status: 'NEW', version: 1 });
    } finally {
      await client.dispose();
    }
  });

  it('closes a connection whose signature does not verify, or is replayed, with 4403', async () => {
    const t = await trader(server.url, {});
    const key = await readKey(t);

    const forged = wsClient(server.url, apiKeyConnectionParams(key, { secretKey: newKeyPair().secretKey }));
    const wrongTarget = wsClient(server.url, apiKeyConnectionParams(key, { signedPath: '/v1/orders' }));
    const params = apiKeyConnectionParams(key);
    const original = wsClient(server.url, params);
    try {
      expect(await refusal(forged)).toBe(4403);
      expect(await refusal(wrongTarget)).toBe(4403);
      const [viewer] = await collect(original, ViewerDocument, {}, 1);
      expect(viewer?.data?.viewer.credential).toBe('apiKey');
      const replay = wsClient(server.url, params);
      try {
        expect(await refusal(replay)).toBe(4403);
      } finally {
        await replay.dispose();
      }
    } finally {
      await Promise.all([forged.dispose(), wrongTarget.dispose(), original.dispose()]);
    }
  });
});
