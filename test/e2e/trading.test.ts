import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpotClient } from '../../client/index.ts';
import { api, clientAddress, liftLimits, newKeyPair, onboard } from '../helpers/auth.ts';
import { startTestApp, TEST_OPERATOR_TOKEN, type RunningApp } from '../helpers/infra.ts';
import { balancesOf, credit, placeOrder, trader } from '../helpers/trading.ts';

let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

describe('spot configuration', () => {
  it('is public and lists every market with its scales, tick size, minimums and fee rates per VIP tier', async () => {
    const r = await api(server.url, 'GET', '/v1/spot/config');
    expect(r.status).toBe(200);
    expect(r.body.markets.map((m: { symbol: string }) => m.symbol)).toEqual(['BTC-USDC', 'ETH-USDC', 'SOL-USDC']);
    const btc = r.body.markets[0];
    expect(btc).toMatchObject({
      symbolId: 1,
      baseAsset: 'BTC',
      baseAssetId: 1,
      quoteAsset: 'USDC',
      quoteAssetId: 4,
      base_quantity_scale: 6,
      quote_quantity_scale: 6,
      tickSize: '0.01',
      tickSizeQ9: '10000000',
      minQty: '0.00001',
      minNotional: '1',
    });
    expect(btc.fees).toHaveLength(11);
    expect(btc.fees[0]).toEqual({ vipTier: 0, makerFeePpm: 1000, takerFeePpm: 1500 });
    // The top tier's maker rate is a rebate.
    expect(btc.fees[10]).toEqual({ vipTier: 10, makerFeePpm: -50, takerFeePpm: 400 });
    expect(r.body.assets).toContainEqual({ unifiedAssetId: 4, symbol: 'USDC', decimals: 6 });
  });
});

describe('two accounts trade over REST', () => {
  it('rests a sell, fills it with a buy, settles both sides with fees, and lists fills and transfers', async () => {
    const seller = await trader(server.url, { BTC: '2' });
    const buyer = await trader(server.url, { USDC: '100000' });

    const ask = await placeOrder(server.url, seller, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.5', clientOrderId: 'ask-1', limitGtc: { price: '30000.5' } });
    expect(ask.status, JSON.stringify(ask.body)).toBe(200);
    expect(ask.body).toMatchObject({ orderId: expect.any(String), clientOrderId: 'ask-1', resolvedBaseQty: '0.5', acceptedAtTsNs: expect.stringMatching(/^[0-9]+$/) });

    const open = await api(server.url, 'GET', '/v1/orders/open?symbol=BTC-USDC', undefined, seller.auth);
    expect(open.body.orders).toHaveLength(1);
    expect(open.body.orders[0]).toMatchObject({ orderId: ask.body.orderId, status: 'NEW', price: '30000.5', origQty: '0.5', leavesQty: '0.5', cumQty: '0', version: 1, lineage: { generation: 1, id: ask.body.orderId } });

    const book = await api(server.url, 'GET', '/v1/spot/orderbook?symbol=BTC-USDC');
    expect(book.body.asks).toEqual([{ price: '30000.5', qty: '0.5', orders: 1 }]);

    const bid = await placeOrder(server.url, buyer, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.2', limitIoc: { price: '31000' } });
    expect(bid.status, JSON.stringify(bid.body)).toBe(200);

    const filled = await api(server.url, 'GET', `/v1/orders/${bid.body.orderId}`, undefined, buyer.auth);
    expect(filled.body.order).toMatchObject({ status: 'FILLED', cumQty: '0.2', leavesQty: '0', avgPx: '30000.5' });
    const partial = await api(server.url, 'GET', `/v1/orders/${ask.body.orderId}`, undefined, seller.auth);
    expect(partial.body.order).toMatchObject({ status: 'PARTIALLY_FILLED', cumQty: '0.2', leavesQty: '0.3', version: 2 });

    // 0.2 BTC at 30000.5 = 6000.1 USDC; taker fee 0.15%, maker fee 0.10%.
    const b = await balancesOf(server.url, buyer);
    expect(b['TRADING:BTC']).toEqual({ available: '0.2', held: '0' });
    expect(b['TRADING:USDC']).toEqual({ available: '93990.89985', held: '0' });
    const s = await balancesOf(server.url, seller);
    expect(s['TRADING:BTC']).toEqual({ available: '1.5', held: '0.3' });
    expect(s['TRADING:USDC']).toEqual({ available: '5994.0999', held: '0' });

    const fills = await api(server.url, 'GET', '/v1/spot/trades?symbol=BTC-USDC&includeTransfers=true', undefined, buyer.auth);
    expect(fills.body.trades).toEqual([
      expect.objectContaining({ orderId: bid.body.orderId, side: 'BUY', price: '30000.5', qty: '0.2', isMaker: false, fee: '9.00015', feeAsset: 'QUOTE', feeIsRebate: false }),
    ]);
    // The buyer's settlement legs of that fill (2.10): BTC in, USDC out, the USDC fee out.
    const matchId = fills.body.trades[0].matchId;
    const leg = (asset: string, isDebit: boolean, transferCode: string) => ({ matchId, symbolId: 1, account: 'TRADING', asset, isDebit, transferCode, txId: '', timestamp: expect.stringMatching(/^[0-9]+$/) });
    expect(fills.body.transfers).toEqual(expect.arrayContaining([leg('1', false, 'TRADE'), leg('4', true, 'TRADE'), leg('4', true, 'FEE')]));
    expect(fills.body.transfers).toHaveLength(3);

    // The same legs in the ledger (2.11), newest first, one linkId, each with its running balance.
    const legs = await api(server.url, 'GET', '/v1/transfers?reversed=true&limit=3', undefined, buyer.auth);
    expect(legs.status).toBe(200);
    const rows = legs.body.transfers as { amount: string; balanceAfter: string; asset: string; isDebit: boolean; transferCode: string; linkId: string }[];
    expect(rows.map(({ amount, balanceAfter, asset, isDebit, transferCode }) => ({ amount, balanceAfter, asset, isDebit, transferCode }))).toEqual([
      { amount: '9.00015', balanceAfter: '93990.89985', asset: '4', isDebit: true, transferCode: 'FEE' },
      { amount: '6000.1', balanceAfter: '93999.9', asset: '4', isDebit: true, transferCode: 'TRADE' },
      { amount: '0.2', balanceAfter: '0.2', asset: '1', isDebit: false, transferCode: 'TRADE' },
    ]);
    expect(new Set(rows.map((r) => r.linkId)).size).toBe(1);

    const cancel = await api(server.url, 'POST', '/v1/orders/cancel', { clientOrderId: 'ask-1' }, seller.auth);
    expect(cancel.body).toMatchObject({ orderId: ask.body.orderId, status: 'ACCEPTED' });
    const after = await balancesOf(server.url, seller);
    expect(after['TRADING:BTC']).toEqual({ available: '1.8', held: '0' });

    const dup = await placeOrder(server.url, seller, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.1', clientOrderId: 'ask-1', limitGtc: { price: '40000' } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('CONFLICT_DUPLICATE_CLIENT_ORDER_ID');
  });
});

describe('fees by VIP tier', () => {
  it('charges each side at its own tier, and pays a maker rebate at VIP10', async () => {
    const maker = await trader(server.url, { ETH: '1' });
    const taker = await trader(server.url, { USDC: '10000' });
    const op = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };
    expect((await api(server.url, 'PUT', `/operator/v1/accounts/${maker.rootAccountId}/vip-tier`, { vipTier: 10 }, op)).status).toBe(200);
    expect((await api(server.url, 'PUT', `/operator/v1/accounts/${taker.rootAccountId}/vip-tier`, { vipTier: 5 }, op)).status).toBe(200);
    await placeOrder(server.url, maker, { symbol: 'ETH-USDC', side: 'SELL', baseQty: '1', limitGtc: { price: '2000' } });
    await placeOrder(server.url, taker, { symbol: 'ETH-USDC', side: 'BUY', baseQty: '1', limitIoc: { price: '2000' } });
    const makerFill = (await api(server.url, 'GET', '/v1/spot/trades', undefined, maker.auth)).body.trades[0];
    const takerFill = (await api(server.url, 'GET', '/v1/spot/trades', undefined, taker.auth)).body.trades[0];
    // VIP10 maker: -50 ppm of 2000 = 0.1 rebate; VIP5 taker: 1000 ppm = 2.
    expect(makerFill).toMatchObject({ isMaker: true, fee: '0.1', feeIsRebate: true });
    expect(takerFill).toMatchObject({ isMaker: false, fee: '2', feeIsRebate: false });
    expect((await balancesOf(server.url, maker))['TRADING:USDC']).toEqual({ available: '2000.1', held: '0' });
  });
});

describe('signed API-key trading', () => {
  it('two accounts trade through the typed client (Ed25519-signed requests), and a key without TRADE may not', async () => {
    const keyFor = async (permissions: ('READ' | 'TRADE')[]) => {
      const who = await onboard(server.url);
      await liftLimits(server.url, who.rootAccountId, ['TRADING_PLACE', 'TRADING_CANCEL']);
      const session = createSpotClient({ baseUrl: server.url, sessionToken: who.token, headers: clientAddress() });
      const policy = await session.POST('/v1/auth/api-policies', { body: { name: 'bot', permissions } });
      const pair = newKeyPair();
      const created = await session.POST('/v1/auth/api-keys', {
        body: { label: 'bot', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), policyId: (policy.data as any).policy.policyId },
      });
      const keyId = (created.data as any).apiKey.keyId as string;
      return { who, client: createSpotClient({ baseUrl: server.url, apiKey: { keyId, seed: pair.secretKey } }) };
    };
    const seller = await keyFor(['READ', 'TRADE']);
    const buyer = await keyFor(['READ', 'TRADE']);
    await credit(server.url, seller.who.rootAccountId, 'SOL', '10');
    await credit(server.url, buyer.who.rootAccountId, 'USDC', '10000');

    const ask = await seller.client.POST('/v1/orders', { body: { order: { symbol: 'SOL-USDC', side: 'SELL', baseQty: '2', limitGtc: { price: '150' } } } });
    expect(ask.response.status, JSON.stringify(ask.error)).toBe(200);
    const bid = await buyer.client.POST('/v1/orders', { body: { order: { symbol: 'SOL-USDC', side: 'BUY', baseQty: '2', limitIoc: { price: '150' } } } });
    expect(bid.response.status).toBe(200);
    const fills = await buyer.client.GET('/v1/spot/trades', { params: { query: { symbol: 'SOL-USDC', limit: '10' } } });
    expect((fills.data as any).trades).toEqual([expect.objectContaining({ orderId: (bid.data as any).orderId, qty: '2', price: '150', isMaker: false })]);
    // A comma-separated filter goes into the signed path exactly as the client encodes it.
    const open = await seller.client.GET('/v1/orders/open', { params: { query: { symbol: 'SOL-USDC,BTC-USDC', limit: '5' } } });
    expect(open.response.status).toBe(200);
    expect((open.data as any).orders).toEqual([]);

    const readOnly = await keyFor(['READ']);
    const refused = await readOnly.client.POST('/v1/orders', { body: { order: { symbol: 'SOL-USDC', side: 'BUY', baseQty: '1', limitGtc: { price: '1' } } } });
    expect(refused.response.status).toBe(403);
    expect(refused.response.headers.get('content-type')).toContain('application/problem+json');
    expect((refused.error as any).code).toBe('MISSING_PERMISSION');
  });
});
