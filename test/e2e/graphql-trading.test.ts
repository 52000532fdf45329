import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CancelAllAfterDocument, CancelAllOrdersDocument, CancelOrderDocument, CreateOrderAcceptedDocument, CreateOrderDocument, FillsDocument, ModifyOrderDocument, MyTradingDocument, GetOrderDocument, OrderBookDocument, OrderAsRestDocument, OrderBookUpdatesDocument, OrderUpdatesDocument, PublicTradesDocument } from '../generated/graphql/graphql.ts';
import { api } from '../helpers/auth.ts';
import { gql, wsClient, type GraphQLResponse } from '../helpers/graphql.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { trader } from '../helpers/trading.ts';
import { pollUntil } from '../helpers/wait.ts';

let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

describe('trading over GraphQL with a graphql-ws subscriber', () => {
  it('trades between two accounts and streams every order version in order, after commit', async () => {
    const maker = await trader(server.url, { ETH: '10' });
    const taker = await trader(server.url, { USDC: '100000' });

    const client = wsClient(server.url, { authorization: maker.auth.authorization as string });
    const updates: GraphQLResponse<{ orderUpdates: { orderId: string; status: string; version: number; leavesQty: string; closeReason: string | null } }>[] = [];
    const fills: unknown[] = [];
    const done = new Promise<void>((resolve, reject) => {
      client.subscribe({ query: OrderUpdatesDocument.toString() }, {
        next: (r) => {
          updates.push(r as never);
          if (updates.length === 4) resolve();
        },
        error: reject,
        complete: () => undefined,
      });
    });
    client.subscribe({ query: FillsDocument.toString() }, { next: (r) => void fills.push(r), error: () => undefined, complete: () => undefined });
    await new Promise((r) => setTimeout(r, 300));

    const ask = await gql(server.url, CreateOrderDocument, { input: { symbol: 'ETH-USDC', side: 'SELL', baseQty: '3', limitGtc: { price: '2500' } } }, maker.auth);
    expect(ask.body.errors).toBeUndefined();
    const askId = ask.body.data!.createOrder.orderId;
    expect(ask.body.data!.createOrder.submittedMaxQuoteDebit).toBeNull();
    const book = await gql(server.url, OrderBookDocument, { symbol: 'ETH-USDC' });
    expect(book.body.data?.orderBook.asks).toEqual([{ price: '2500', qty: '3' }]);
    const snapshotSequence = BigInt(book.body.data!.orderBook.sequence);

    // A public subscriber (no credentials) follows the book from the snapshot on.
    const market = wsClient(server.url);
    const deltas: { sequence: string; asks: { price: string; qty: string }[] }[] = [];
    const trades: { qty: string; takerSide: string }[] = [];
    const bookDone = new Promise<void>((resolve) => {
      market.subscribe({ query: OrderBookUpdatesDocument.toString(), variables: { symbol: 'ETH-USDC' } }, {
        next: (r) => {
          deltas.push((r.data as { orderBookUpdates: (typeof deltas)[number] }).orderBookUpdates);
          if (deltas.length === 3) resolve();
        },
        error: () => undefined,
        complete: () => undefined,
      });
    });
    market.subscribe({ query: PublicTradesDocument.toString(), variables: { symbol: 'ETH-USDC' } }, {
      next: (r) => void trades.push((r.data as { publicTrades: (typeof trades)[number] }).publicTrades),
      error: () => undefined,
      complete: () => undefined,
    });
    await new Promise((r) => setTimeout(r, 300));

    for (const qty of ['1', '1']) {
      const bid = await gql(server.url, CreateOrderDocument, { input: { symbol: 'ETH-USDC', side: 'BUY', baseQty: qty, limitIoc: { price: '2500', maxQuoteDebit: '10000' } } }, taker.auth);
      expect(bid.body.errors).toBeUndefined();
      // As POST /v1/orders answers it: the debit limit submitted, at the quote scale.
      expect(bid.body.data?.createOrder.submittedMaxQuoteDebit).toBe('10000');
    }
    // What POST /v1/orders/cancel answers.
    expect((await gql(server.url, CancelOrderDocument, { orderId: askId }, maker.auth)).body.data?.cancelOrder).toEqual({
      orderId: askId,
      status: 'ACCEPTED',
      ts: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/),
      tsNs: expect.stringMatching(/^[1-9][0-9]*$/),
    });

    await done;
    await client.dispose();
    await bookDone;
    // Trades and book deltas are paced each on its own (at most one write per 100 ms per
    // selection): the last delta can come before a trade still waiting for its interval.
    await pollUntil(() => trades.length >= 2, 5_000);
    await market.dispose();
    expect(deltas.map((d) => BigInt(d.sequence))).toEqual([snapshotSequence + 1n, snapshotSequence + 2n, snapshotSequence + 3n]);
    expect(deltas.map((d) => d.asks)).toEqual([[{ price: '2500', qty: '2' }], [{ price: '2500', qty: '1' }], [{ price: '2500', qty: '0' }]]);
    expect(trades).toEqual([expect.objectContaining({ qty: '1', takerSide: 'BUY' }), expect.objectContaining({ qty: '1', takerSide: 'BUY' })]);
    const seen = updates.map((u) => u.data!.orderUpdates);
    expect(seen.map((o) => o.version)).toEqual([1, 2, 3, 4]);
    expect(seen.map((o) => o.status)).toEqual(['NEW', 'PARTIALLY_FILLED', 'PARTIALLY_FILLED', 'CANCELED']);
    expect(seen.map((o) => o.leavesQty)).toEqual(['3', '2', '1', '0']);
    expect(seen.map((o) => o.closeReason)).toEqual([null, null, null, 'USER_CANCELED']);
    expect(fills).toHaveLength(2);

    // The API read agrees with the stream's last version.
    const read = await gql(server.url, GetOrderDocument, { orderId: askId }, maker.auth);
    expect(read.body.data?.order).toMatchObject({ status: 'CANCELED', version: 4, cumQty: '2', avgPx: '2500', closeReason: 'USER_CANCELED' });
  });

  it('refuses a subscription without credentials', async () => {
    const client = wsClient(server.url);
    const result = await new Promise<GraphQLResponse<unknown> | Error>((resolve) => {
      client.subscribe({ query: OrderUpdatesDocument.toString() }, { next: (r) => resolve(r as never), error: (e) => resolve(e as Error), complete: () => undefined });
    });
    await client.dispose();
    const errors = (result as GraphQLResponse<unknown>).errors ?? (Array.isArray(result) ? result : []);
    expect(JSON.stringify(errors)).toContain('CREDENTIALS_REQUIRED');
  });
});

describe('the rest of trading over GraphQL', () => {
  it('modifies, reads balances and open orders, arms the dead-man switch and cancels all', async () => {
    const t = await trader(server.url, { USDC: '10000' });
    const a = await gql(server.url, CreateOrderDocument, { input: { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', limitGtc: { price: '1000' } } }, t.auth);
    const b = await gql(server.url, CreateOrderDocument, { input: { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', limitGtc: { price: '1001' } } }, t.auth);
    const id = a.body.data!.createOrder.orderId;
    const m = await gql(server.url, ModifyOrderDocument, { orderId: id, newQty: '0.005' }, t.auth);
    expect(m.body.data?.modifyOrder).toMatchObject({ orderId: id, origQty: '0.005', leavesQty: '0.005', version: 2 });

    const mine = await gql(server.url, MyTradingDocument, { first: 1 }, t.auth);
    expect(mine.body.data?.viewer.balances).toEqual([expect.objectContaining({ ledgerAccount: 'TRADING', asset: 'USDC' })]);
    expect(mine.body.data?.viewer.openOrders.edges.map((e) => e.node.orderId)).toEqual([b.body.data!.createOrder.orderId]);
    expect(mine.body.data?.viewer.openOrders.pageInfo.hasNextPage).toBe(true);

    const dms = await gql(server.url, CancelAllAfterDocument, { requestId: 'g1', timeoutSec: 5 }, t.auth);
    expect(dms.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', violations: [expect.objectContaining({ fieldPath: 'timeoutSec', ruleId: 'dead-man-timeout' })] });
    const armed = await gql(server.url, CancelAllAfterDocument, { requestId: 'g2', timeoutSec: 30 }, t.auth);
    expect(armed.body.data?.cancelAllAfter).toMatchObject({ status: 'ARMED', effectiveTimeoutSec: 30 });

    const all = await gql(server.url, CancelAllOrdersDocument, { symbol: 'BTC-USDC' }, t.auth);
    expect(all.body.data?.cancelAllOrders).toEqual({ canceledCount: 2, ts: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/), tsNs: expect.stringMatching(/^[1-9][0-9]*$/) });
  });
});

describe('attached risk over GraphQL', () => {
  it('stores the legs given to createOrder, the same as REST', async () => {
    const t = await trader(server.url, { USDC: '10000' });
    const r = await gql(
      server.url,
      CreateOrderDocument,
      { input: { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', limitGtc: { price: '1000' }, attachedRisk: { oco: true, stopLoss: { triggerPrice: '900' }, takeProfit: { triggerPrice: '1100', child: { limitPrice: '1099' } } } } },
      t.auth,
    );
    expect(r.body.errors).toBeUndefined();
    const open = await api(server.url, 'GET', '/v1/orders/open?includeAttachedRisk=true', undefined, t.auth);
    expect(open.body.orders[0].attachedRisk).toEqual({
      oco: true,
      stopLoss: { policy: { triggerPrice: '900', child: { marketIoc: {} } } },
      takeProfit: { policy: { triggerPrice: '1100', child: { limit: { price: '1099', postOnly: false } } } },
    });
  });

  it('reads an order with its legs, slippage bounds and batch origin, as REST shows them', async () => {
    const t = await trader(server.url, { USDC: '10000' });
    const r = await gql(
      server.url,
      CreateOrderDocument,
      { input: { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', limitGtc: { price: '1000' }, attachedRisk: { oco: true, stopLoss: { triggerPrice: '900' }, takeProfit: { triggerPrice: '1100', child: { limitPrice: '1099' } } } } },
      t.auth,
    );
    const orderId = r.body.data!.createOrder.orderId;
    const rest = (await api(server.url, 'GET', '/v1/orders/open?includeAttachedRisk=true&includeAttachedRiskState=true', undefined, t.auth)).body.orders[0];
    const read = await gql(server.url, OrderAsRestDocument, { orderId }, t.auth);
    expect(read.body.errors).toBeUndefined();
    const leg = (l: { policy: { triggerPrice: string; child: { limit?: { price: string; postOnly: boolean } } }; state: { status: string; triggerId: string } }) => ({
      policy: { triggerPrice: l.policy.triggerPrice, child: { kind: l.policy.child.limit ? 'LIMIT' : 'MARKET_IOC', marketIoc: !l.policy.child.limit, limitPrice: l.policy.child.limit?.price ?? null, postOnly: l.policy.child.limit?.postOnly ?? false } },
      state: { status: l.state.status, triggerId: l.state.triggerId },
    });
    expect(read.body.data?.order).toEqual({
      orderId,
      batchRequestId: rest.batchRequestId,
      marketClientRefPrice: null,
      marketMaxSlippageBps: null,
      marketMaxSlippageTicks: rest.marketMaxSlippageTicks,
      submittedMaxQuoteDebit: null,
      attachedRisk: { oco: true, stopLoss: leg(rest.attachedRisk.stopLoss), takeProfit: leg(rest.attachedRisk.takeProfit) },
    });
    expect(read.body.data?.order.attachedRisk?.stopLoss?.policy.child).toMatchObject({ kind: 'MARKET_IOC', marketIoc: true });
    expect(read.body.data?.order.batchRequestId).toBe('0');
  });

  it('answers a market order’s quote-debit cap and slippage bounds, as REST does', async () => {
    const maker = await trader(server.url, { BTC: '1' });
    const taker = await trader(server.url, { USDC: '10000' });
    await gql(server.url, CreateOrderDocument, { input: { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.01', limitGtc: { price: '50000' } } }, maker.auth);
    const marketIoc = { clientRefPrice: '50000', maxSlippageBps: 100, maxQuoteDebit: '600' };
    const r = await gql(server.url, CreateOrderAcceptedDocument, { input: { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', marketIoc } }, taker.auth);
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data?.createOrder).toMatchObject({ resolvedBaseQty: '0.01', submittedMaxQuoteDebit: '600' });
    const read = await gql(server.url, OrderAsRestDocument, { orderId: r.body.data!.createOrder.orderId }, taker.auth);
    const rest = await api(server.url, 'GET', `/v1/orders/${r.body.data!.createOrder.orderId}`, undefined, taker.auth);
    expect(read.body.data?.order).toMatchObject({ marketClientRefPrice: '50000', marketMaxSlippageBps: 100, marketMaxSlippageTicks: 0, submittedMaxQuoteDebit: '600', attachedRisk: null });
    expect(read.body.data?.order).toMatchObject({
      marketClientRefPrice: rest.body.order.marketClientRefPrice,
      marketMaxSlippageBps: rest.body.order.marketMaxSlippageBps,
      marketMaxSlippageTicks: rest.body.order.marketMaxSlippageTicks,
      submittedMaxQuoteDebit: rest.body.order.submittedMaxQuoteDebit,
    });
  });
});

describe('order-book deltas through a replace', () => {
  it('remove the replaced order from its level and add the new one, in consecutive sequences', async () => {
    const maker = await trader(server.url, { SOL: '100' });
    const market = wsClient(server.url);
    const deltas: { sequence: string; asks: { price: string; qty: string }[] }[] = [];
    market.subscribe({ query: OrderBookUpdatesDocument.toString(), variables: { symbol: 'SOL-USDC' } }, {
      next: (r) => void deltas.push((r.data as { orderBookUpdates: (typeof deltas)[number] }).orderBookUpdates),
      error: () => undefined,
      complete: () => undefined,
    });
    await new Promise((r) => setTimeout(r, 300));
    const g1 = await api(server.url, 'POST', '/v1/orders', { order: { symbol: 'SOL-USDC', side: 'SELL', baseQty: '6', limitGtc: { price: '200' } } }, maker.auth);
    const g2 = await api(server.url, 'POST', '/v1/orders/replace', { orderId: g1.body.orderId, order: { symbol: 'SOL-USDC', side: 'SELL', baseQty: '5', limitGtc: { price: '201' } } }, maker.auth);
    expect(g2.status, JSON.stringify(g2.body)).toBe(200);
    await pollUntil(() => deltas.length >= 3);
    expect(deltas.map((d) => d.asks)).toEqual([[{ price: '200', qty: '6' }], [{ price: '200', qty: '0' }], [{ price: '201', qty: '5' }]]);
    const sequences = deltas.map((d) => BigInt(d.sequence));
    expect(sequences[1]! - sequences[0]!).toBe(1n);
    expect(sequences[2]! - sequences[1]!).toBe(1n);
    await market.dispose();
  });
});
