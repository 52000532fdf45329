import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type SignedIn } from '../helpers/auth.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { balancesOf, placeOrder, trader } from '../helpers/trading.ts';

/** The read side of trading over REST: every filter of spec 4.5's open orders and fills, and public trades. */
let server: RunningApp;
let seller: SignedIn;
let buyer: SignedIn;
let btcBuy: string;
let ethBuy: string;
/** Epoch ns between the BTC fills and the ETH fill. */
let between: bigint;

const nowNs = () => BigInt(Date.now()) * 1_000_000n;
const get = (path: string, who: SignedIn) => api(server.url, 'GET', path, undefined, who.auth);

beforeAll(async () => {
  server = await startTestApp();
  seller = await trader(server.url, { BTC: '1', ETH: '1', USDC: '1000' });
  buyer = await trader(server.url, { USDC: '100000' });
  for (const [i, price] of ['30000', '30001', '30002'].entries()) {
    const r = await placeOrder(server.url, seller, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.01', clientOrderId: `ask-${i}`, limitGtc: { price } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }
  btcBuy = (await placeOrder(server.url, buyer, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.03', limitIoc: { price: '30002' } })).body.orderId;
  await new Promise((r) => setTimeout(r, 20));
  between = nowNs();
  await new Promise((r) => setTimeout(r, 20));
  await placeOrder(server.url, seller, { symbol: 'ETH-USDC', side: 'SELL', baseQty: '0.1', limitGtc: { price: '2000' } });
  ethBuy = (await placeOrder(server.url, buyer, { symbol: 'ETH-USDC', side: 'BUY', baseQty: '0.1', limitIoc: { price: '2000' } })).body.orderId;
});
afterAll(async () => {
  await server?.close();
});

describe('GET /v1/spot/trades filters', () => {
  it('filters by symbol, order, side and time window, newest first', async () => {
    const all = (await get('/v1/spot/trades', buyer)).body.trades as { symbol: string; orderId: string; price: string; matchId: string }[];
    expect(all.map((t) => t.symbol)).toEqual(['ETH-USDC', 'BTC-USDC', 'BTC-USDC', 'BTC-USDC']);
    expect((await get('/v1/spot/trades?symbol=BTC-USDC', buyer)).body.trades.map((t: { price: string }) => t.price).sort()).toEqual(['30000', '30001', '30002']);
    expect((await get(`/v1/spot/trades?orderId=${ethBuy}`, buyer)).body.trades).toHaveLength(1);
    expect((await get(`/v1/spot/trades?orderId=${btcBuy}`, buyer)).body.trades).toHaveLength(3);
    expect((await get('/v1/spot/trades?side=SELL', buyer)).body.trades).toHaveLength(0);
    expect((await get('/v1/spot/trades?side=SELL', seller)).body.trades).toHaveLength(4);
    // startTime is inclusive, endTime exclusive, both epoch nanoseconds.
    expect((await get(`/v1/spot/trades?startTime=${between}`, buyer)).body.trades.map((t: { symbol: string }) => t.symbol)).toEqual(['ETH-USDC']);
    expect((await get(`/v1/spot/trades?endTime=${between}`, buyer)).body.trades).toHaveLength(3);
  });

  it('afterMatchId returns only later fills of the symbol; orderId and lineageId exclude each other', async () => {
    const btc = (await get('/v1/spot/trades?symbol=BTC-USDC', buyer)).body.trades as { matchId: string }[];
    const first = btc.map((t) => BigInt(t.matchId)).sort((a, b) => (a < b ? -1 : 1))[0] as bigint;
    const later = (await get(`/v1/spot/trades?symbol=BTC-USDC&afterMatchId=${first}`, buyer)).body.trades as { matchId: string }[];
    expect(later).toHaveLength(2);
    for (const t of later) expect(BigInt(t.matchId)).toBeGreaterThan(first);
    const both = await get(`/v1/spot/trades?orderId=${btcBuy}&lineageId=${btcBuy}`, buyer);
    expect(both.status).toBe(400);
    expect(both.body.violations[0]).toMatchObject({ fieldPath: 'lineageId', ruleId: 'exclusive' });
  });

  it.each(['afterMatchId', 'startTime', 'endTime'])('answers 400, not 500, for a %s beyond int64', async (name) => {
    const r = await get(`/v1/spot/trades?symbol=BTC-USDC&${name}=99999999999999999999999`, buyer);
    expect(r.status).toBe(400);
    expect(r.body.violations[0]).toMatchObject({ fieldPath: name, ruleId: 'int64-range' });
  });

  it('pages with limit and pageToken without repeating or skipping a fill, and a token is bound to its filters', async () => {
    const seen: string[] = [];
    let token = '';
    do {
      const page = await get(`/v1/spot/trades?limit=3${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`, seller);
      expect(page.status).toBe(200);
      expect(page.body.trades.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.trades.map((t: { matchId: string; symbol: string }) => `${t.symbol}:${t.matchId}`));
      token = page.body.nextPageToken;
    } while (token);
    expect(seen).toHaveLength(4);
    expect(new Set(seen).size).toBe(4);
    const firstPage = await get('/v1/spot/trades?limit=1', seller);
    const otherFilter = await get(`/v1/spot/trades?limit=1&side=BUY&pageToken=${encodeURIComponent(firstPage.body.nextPageToken)}`, seller);
    expect(otherFilter.status).toBe(400);
  });

  it('includeTransfers adds the settlement legs of the page’s fills, and only the caller’s', async () => {
    const r = await get(`/v1/spot/trades?orderId=${ethBuy}&includeTransfers=true`, buyer);
    const matchId = r.body.trades[0].matchId;
    expect(r.body.transfers.length).toBeGreaterThan(0);
    for (const leg of r.body.transfers) expect(leg).toMatchObject({ matchId, account: 'TRADING' });
    // The buyer's legs: quote out, base in, and the taker fee out.
    expect(r.body.transfers.map((l: { isDebit: boolean; transferCode: string }) => `${l.transferCode}:${l.isDebit}`).sort()).toEqual(['FEE:true', 'TRADE:false', 'TRADE:true']);
  });
});

describe('GET /v1/orders/open filters', () => {
  it('takes symbols repeated or comma-separated, filters by side, and pages', async () => {
    const o = await trader(server.url, { BTC: '1', ETH: '1', USDC: '10000' });
    await placeOrder(server.url, o, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.01', limitGtc: { price: '90000' } });
    await placeOrder(server.url, o, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', limitGtc: { price: '100' } });
    await placeOrder(server.url, o, { symbol: 'ETH-USDC', side: 'SELL', baseQty: '0.1', limitGtc: { price: '9000' } });
    await placeOrder(server.url, o, { symbol: 'SOL-USDC', side: 'BUY', baseQty: '1', limitGtc: { price: '10' } });
    const symbols = async (q: string) =>
      ((await get(`/v1/orders/open?${q}`, o)).body.orders as { symbol: string; side: string }[]).map((x) => `${x.symbol}:${x.side}`).sort();
    expect(await symbols('symbol=BTC-USDC&symbol=ETH-USDC')).toEqual(['BTC-USDC:BUY', 'BTC-USDC:SELL', 'ETH-USDC:SELL']);
    expect(await symbols('symbol=BTC-USDC,ETH-USDC')).toEqual(['BTC-USDC:BUY', 'BTC-USDC:SELL', 'ETH-USDC:SELL']);
    expect(await symbols('symbol=SOL-USDC')).toEqual(['SOL-USDC:BUY']);
    expect(await symbols('side=BUY')).toEqual(['BTC-USDC:BUY', 'SOL-USDC:BUY']);
    expect(await symbols('side=SELL&symbol=BTC-USDC')).toEqual(['BTC-USDC:SELL']);

    const ids: string[] = [];
    let token = '';
    do {
      const page = await get(`/v1/orders/open?limit=3${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`, o);
      ids.push(...page.body.orders.map((x: { orderId: string }) => x.orderId));
      token = page.body.nextPageToken;
    } while (token);
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(4);
  });
});

describe('order kinds with caps and references', () => {
  it('caps a BUY limit IOC by maxQuoteDebit, fees included, and refuses the cap on a SELL', async () => {
    const maker = await trader(server.url, { SOL: '100' });
    const taker = await trader(server.url, { USDC: '1000' });
    await placeOrder(server.url, maker, { symbol: 'SOL-USDC', side: 'SELL', baseQty: '10', limitGtc: { price: '50' } });
    const r = await placeOrder(server.url, taker, { symbol: 'SOL-USDC', side: 'BUY', baseQty: '10', limitIoc: { price: '50', maxQuoteDebit: '100' } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.submittedMaxQuoteDebit).toBe('100');
    const order = (await get(`/v1/orders/${r.body.orderId}`, taker)).body.order;
    // 1.997 SOL at 50 = 99.85, plus the 0.15% taker fee = 99.999775: the most under 100 at the pair's 0.001 step.
    expect(order).toMatchObject({ status: 'CANCELED', cumQty: '1.997' });
    const usdc = (await balancesOf(server.url, taker))['TRADING:USDC'];
    expect(usdc?.held).toBe('0');
    expect(1000 - Number(usdc?.available)).toBeLessThanOrEqual(100);

    const sell = await placeOrder(server.url, maker, { symbol: 'SOL-USDC', side: 'SELL', baseQty: '1', limitIoc: { price: '50', maxQuoteDebit: '100' } });
    expect(sell.status).toBe(400);
    expect(sell.body.violations[0]).toMatchObject({ fieldPath: 'order.limitIoc.maxQuoteDebit', ruleId: 'buy-only' });
  });

  it('a market order without clientRefPrice against an empty side is refused with NO_REFERENCE_PRICE', async () => {
    // No one bids for ETH in this file's book.
    expect((await api(server.url, 'GET', '/v1/spot/orderbook?symbol=ETH-USDC')).body.bids).toEqual([]);
    const t = await trader(server.url, { ETH: '1' });
    const r = await placeOrder(server.url, t, { symbol: 'ETH-USDC', side: 'SELL', baseQty: '0.1', marketIoc: { maxSlippageBps: 50 } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('NO_REFERENCE_PRICE');
    expect((await balancesOf(server.url, t))['TRADING:ETH']).toEqual({ available: '1', held: '0' });
  });
});

describe('GET /v1/spot/public-trades', () => {
  it('is public and lists a symbol’s trades newest first, with the taker’s side', async () => {
    const r = await api(server.url, 'GET', '/v1/spot/public-trades?symbol=BTC-USDC&limit=2');
    expect(r.status).toBe(200);
    expect(r.body.symbol).toBe('BTC-USDC');
    expect(r.body.trades).toHaveLength(2);
    const [a, b] = r.body.trades as { matchId: string; price: string; qty: string; takerSide: string }[];
    expect(BigInt(a!.matchId)).toBeGreaterThan(BigInt(b!.matchId));
    expect(a).toMatchObject({ price: '30002', qty: '0.01', takerSide: 'BUY' });
    const unknown = await api(server.url, 'GET', '/v1/spot/public-trades?symbol=DOGE-USDC');
    expect(unknown.status).toBe(400);
  });
});
