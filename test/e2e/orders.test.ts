import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/auth.ts';
import { shiftableClock } from '../helpers/clock.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { balancesOf, placeOrder, projected, trader } from '../helpers/trading.ts';

let server: RunningApp;
/** Moved forward by the dead-man switch tests, to reach a switch's deadline at once. */
const clock = shiftableClock();
beforeAll(async () => {
  server = await startTestApp({ clock });
});
afterAll(async () => {
  await server?.close();
});

const gtc = (side: 'BUY' | 'SELL', qty: string, price: string, extra: Record<string, unknown> = {}) => ({
  symbol: 'BTC-USDC',
  side,
  baseQty: qty,
  limitGtc: { price },
  ...extra,
});

describe('order validation', () => {
  it('needs exactly one order variant', async () => {
    const t = await trader(server.url, { USDC: '1000' });
    const none = await placeOrder(server.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.001' });
    expect(none.status).toBe(400);
    expect(none.body.violations[0]).toMatchObject({ fieldPath: 'order', ruleId: 'one-of' });
    const two = await placeOrder(server.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.001', limitGtc: { price: '1' }, limitIoc: { price: '1' } });
    expect(two.status).toBe(400);
  });

  it.each([
    [{ baseQty: '0.0000001' }, 'order.baseQty', 'scale'],
    [{ limitGtc: { price: '100.001' } }, 'order.limitGtc.price', 'tick-size'],
    [{ symbol: 'DOGE-USDC' }, 'order.symbol', 'symbol'],
    [{ side: 'SELL', feeAsset: 'BASE' }, 'order.feeAsset', 'sell-fee-asset'],
    [{ baseQty: '0.00001', limitGtc: { price: '1' } }, 'order.baseQty', 'min-notional'],
    [{ baseQty: '0.00001', limitGtc: undefined, marketIoc: { clientRefPrice: '100', maxSlippageBps: 50 } }, 'order.baseQty', 'min-notional'],
  ])('refuses %j naming %s', async (change, fieldPath, ruleId) => {
    const t = await trader(server.url, { USDC: '1000', BTC: '1' });
    const r = await placeOrder(server.url, t, { ...gtc('BUY', '0.001', '100'), ...change });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.violations[0]).toMatchObject({ fieldPath, ruleId });
  });

  it('refuses an order the balance cannot pay, and changes nothing', async () => {
    const t = await trader(server.url, { USDC: '10' });
    const r = await placeOrder(server.url, t, gtc('BUY', '1', '100'));
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('INSUFFICIENT_BALANCE');
    expect((await balancesOf(server.url, t))['TRADING:USDC']).toEqual({ available: '10', held: '0' });
  });

  it('accepts one order per clientOrderId, however the duplicates race it across commits', async () => {
    const t = await trader(server.url, { USDC: '100000' });
    // Staggered, so some duplicates are checked before the first one commits and run after it.
    const attempts = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        await new Promise((r) => setTimeout(r, (i % 8) * 3));
        return placeOrder(server.url, t, gtc('BUY', '0.01', '100', { clientOrderId: 'only-once' }));
      }),
    );
    expect(attempts.map((a) => a.status).sort()).toEqual([200, ...Array<number>(39).fill(409)]);
    expect(attempts.find((a) => a.status === 409)?.body.code).toBe('CONFLICT_DUPLICATE_CLIENT_ORDER_ID');
    const open = await api(server.url, 'GET', '/v1/orders/open', undefined, t.auth);
    expect(open.body.orders).toHaveLength(1);
    // A replacement may not take a retained id either.
    const r = await api(server.url, 'POST', '/v1/orders/replace', { orderId: open.body.orders[0].orderId, order: gtc('BUY', '0.01', '101', { clientOrderId: 'only-once' }) }, t.auth);
    expect(r.status).toBe(409);
  });

  it('rejects GTD expiries outside 1 second to 30 days', async () => {
    const t = await trader(server.url, { USDC: '1000' });
    for (const ms of [500, 31 * 24 * 3600 * 1000]) {
      const r = await placeOrder(server.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.001', limitGtd: { price: '100', expireAt: new Date(Date.now() + ms).toISOString() } });
      expect(r.status).toBe(400);
      expect(r.body.violations[0]).toMatchObject({ fieldPath: 'order.limitGtd.expireAt', ruleId: 'expiry-range' });
    }
  });

  it('keeps a GTD expiry exact to the nanosecond, whatever offset it was written in', async () => {
    const t = await trader(server.url, { USDC: '1000' });
    const inAnHour = new Date(Date.now() + 3600_000);
    inAnHour.setUTCMilliseconds(0);
    const utc = `${inAnHour.toISOString().slice(0, 19)}.123456789Z`;
    const shifted = new Date(inAnHour.getTime() + 2 * 3600_000).toISOString().slice(0, 19) + '.123456789+02:00';
    const r = await placeOrder(server.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', limitGtd: { price: '100', expireAt: shifted } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const order = (await api(server.url, 'GET', `/v1/orders/${r.body.orderId}`, undefined, t.auth)).body.order;
    expect(order.expireAt).toBe(utc);
    const row = await server.database.prisma.order.findUniqueOrThrow({ where: { publicId: r.body.orderId }, select: { expireAtTsNs: true } });
    expect(row.expireAtTsNs).toBe(BigInt(inAnHour.getTime()) * 1_000_000n + 123_456_789n);
    const impossible = await placeOrder(server.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', limitGtd: { price: '100', expireAt: '2027-02-30T00:00:00Z' } });
    expect(impossible.status).toBe(400);
    expect(impossible.body.violations[0]).toMatchObject({ fieldPath: 'order.limitGtd.expireAt', ruleId: 'rfc3339' });
  });
});

describe('order kinds', () => {
  it('post-only is refused whole when it would take; a market order respects its slippage allowance', async () => {
    const maker = await trader(server.url, { BTC: '1' });
    const taker = await trader(server.url, { USDC: '100000' });
    await placeOrder(server.url, maker, gtc('SELL', '0.1', '50000'));
    await placeOrder(server.url, maker, gtc('SELL', '0.1', '50010'));
    const postOnly = await placeOrder(server.url, taker, gtc('BUY', '0.1', '50000', { clientOrderId: 'po-1', limitGtc: { price: '50000', postOnly: true } }));
    expect(postOnly.status).toBe(400);
    expect(postOnly.body).toMatchObject({ code: 'POST_ONLY_WOULD_TAKE', violations: [{ fieldPath: 'order.limitGtc.postOnly', ruleId: 'post-only' }] });
    // Nothing was reserved or recorded, and the clientOrderId is still free.
    expect((await balancesOf(server.url, taker))['TRADING:USDC']).toEqual({ available: '100000', held: '0' });
    expect((await api(server.url, 'GET', '/v1/orders/by-client-order-id/po-1', undefined, taker.auth)).status).toBe(404);
    const resting = await placeOrder(server.url, taker, gtc('BUY', '0.1', '49999.99', { clientOrderId: 'po-1', limitGtc: { price: '49999.99', postOnly: true } }));
    expect(resting.status).toBe(200);
    await api(server.url, 'POST', '/v1/orders/cancel', { orderId: resting.body.orderId }, taker.auth);

    const market = await placeOrder(server.url, taker, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.2', marketIoc: { clientRefPrice: '50000', maxSlippageTicks: 500 } });
    expect(market.status, JSON.stringify(market.body)).toBe(200);
    const m = await api(server.url, 'GET', `/v1/orders/${market.body.orderId}`, undefined, taker.auth);
    // 500 ticks of 0.01 = 5.00: 50010 is beyond the allowance, so only the first level fills.
    expect(m.body.order).toMatchObject({ orderType: 'MARKET', status: 'CANCELED', cumQty: '0.1', avgPx: '50000', marketClientRefPrice: '50000', marketMaxSlippageTicks: 500 });
    expect((await balancesOf(server.url, taker))['TRADING:USDC']?.held).toBe('0');
  });

  it('caps a BUY market order by maxQuoteDebit, fees included', async () => {
    const maker = await trader(server.url, { BTC: '1' });
    const taker = await trader(server.url, { USDC: '100000' });
    await placeOrder(server.url, maker, gtc('SELL', '0.5', '40000'));
    const r = await placeOrder(server.url, taker, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.5', marketIoc: { maxSlippageBps: 100, maxQuoteDebit: '1000' } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.submittedMaxQuoteDebit).toBe('1000');
    const b = await balancesOf(server.url, taker);
    const spent = 100000 - Number(b['TRADING:USDC']?.available);
    expect(spent).toBeGreaterThan(990);
    expect(spent).toBeLessThanOrEqual(1000);
  });

  it('self-trade prevention: the taker’s EXPIRE_TAKER keeps the maker and never trades with itself', async () => {
    // Its own book (SOL-USDC), so no other test's resting orders can fill the taker first.
    const t = await trader(server.url, { SOL: '10', USDC: '100000' });
    const ask = await placeOrder(server.url, t, { symbol: 'SOL-USDC', side: 'SELL', baseQty: '1', limitGtc: { price: '150' } });
    const bid = await placeOrder(server.url, t, { symbol: 'SOL-USDC', side: 'BUY', baseQty: '1', limitGtc: { price: '150' }, selfTradePreventionMode: 'EXPIRE_TAKER' });
    const taker = await api(server.url, 'GET', `/v1/orders/${bid.body.orderId}`, undefined, t.auth);
    expect(taker.body.order).toMatchObject({ status: 'CANCELED', cumQty: '0' });
    const maker = await api(server.url, 'GET', `/v1/orders/${ask.body.orderId}`, undefined, t.auth);
    expect(maker.body.order).toMatchObject({ status: 'NEW', leavesQty: '1' });
    const fills = await api(server.url, 'GET', '/v1/spot/trades', undefined, t.auth);
    expect(fills.body.trades).toEqual([]);
    // Leave the SOL-USDC book empty for the tests after this one.
    await api(server.url, 'POST', '/v1/orders/cancel', { orderId: ask.body.orderId }, t.auth);
  });

  it('expires a GTD order at its expiry and releases its reservation', async () => {
    const t = await trader(server.url, { USDC: '1000' });
    const r = await placeOrder(server.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', limitGtd: { price: '100', expireAt: new Date(Date.now() + 1200).toISOString() } });
    expect(r.status).toBe(200);
    expect((await balancesOf(server.url, t))['TRADING:USDC']?.held).not.toBe('0');
    await new Promise((res) => setTimeout(res, 1800));
    const o = await api(server.url, 'GET', `/v1/orders/${r.body.orderId}`, undefined, t.auth);
    expect(o.body.order).toMatchObject({ status: 'EXPIRED', leavesQty: '0', tif: 'GTD' });
    expect((await balancesOf(server.url, t))['TRADING:USDC']).toEqual({ available: '1000', held: '0' });
  });
});

describe('cancellation', () => {
  it('cancels a batch with per-item results, and answers a repeated requestId without re-executing', async () => {
    const t = await trader(server.url, { USDC: '10000' });
    const a = await placeOrder(server.url, t, gtc('BUY', '0.01', '100', { clientOrderId: 'batch-a' }));
    const b = await placeOrder(server.url, t, gtc('BUY', '0.01', '100', { clientOrderId: 'batch-b' }));
    const c = await placeOrder(server.url, t, gtc('BUY', '0.01', '100', { clientOrderId: 'batch-c' }));
    const items = [
      { orderId: a.body.orderId },
      { clientOrderId: 'nope' },
      { orderId: 'unknownId' },
      // Both ids (spec: "and/or"): accepted when they name the same order, not found otherwise.
      { orderId: b.body.orderId, clientOrderId: 'batch-b' },
      { orderId: c.body.orderId, clientOrderId: 'batch-b' },
    ];
    const body = { requestId: 'batch-1', items };
    const first = await api(server.url, 'POST', '/v1/orders/cancel-batch', body, t.auth);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      acceptedCount: 2,
      rejectedCount: 3,
      results: [
        { orderId: a.body.orderId, status: 'ACCEPTED' },
        { orderId: '', clientOrderId: 'nope', status: 'REJECTED', code: 'ORDER_NOT_FOUND', error: { code: 'ORDER_NOT_FOUND', violations: [] } },
        { orderId: 'unknownId', status: 'REJECTED', code: 'ORDER_NOT_FOUND' },
        { orderId: b.body.orderId, clientOrderId: 'batch-b', status: 'ACCEPTED' },
        { orderId: c.body.orderId, clientOrderId: 'batch-b', status: 'REJECTED', code: 'ORDER_NOT_FOUND' },
      ],
    });
    const stillOpen = await api(server.url, 'GET', '/v1/orders/open', undefined, t.auth);
    expect(stillOpen.body.orders.map((o: { orderId: string }) => o.orderId)).toEqual([c.body.orderId]);
    const single = await api(server.url, 'POST', '/v1/orders/cancel', { orderId: c.body.orderId, clientOrderId: 'batch-c' }, t.auth);
    expect(single.status).toBe(400);
    const again = await api(server.url, 'POST', '/v1/orders/cancel-batch', body, t.auth);
    expect(again.body).toEqual(first.body);
    const other = await api(server.url, 'POST', '/v1/orders/cancel-batch', { ...body, items: [{ orderId: a.body.orderId }] }, t.auth);
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('CONFLICT_IDEMPOTENCY_KEY_REUSED');
    const tooMany = await api(server.url, 'POST', '/v1/orders/cancel-batch', { requestId: 'b2', items: Array.from({ length: 51 }, () => ({ orderId: 'x' })) }, t.auth);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.violations[0]).toMatchObject({ fieldPath: 'items', ruleId: 'max' });
  });

  it('cancels all orders by symbol and side', async () => {
    const t = await trader(server.url, { USDC: '10000', BTC: '1' });
    await placeOrder(server.url, t, gtc('BUY', '0.01', '100'));
    await placeOrder(server.url, t, gtc('BUY', '0.01', '101'));
    await placeOrder(server.url, t, gtc('SELL', '0.01', '90000'));
    const r = await api(server.url, 'POST', '/v1/orders/cancel-all', { symbol: 'BTC-USDC', side: 'BUY' }, t.auth);
    expect(r.body.canceledCount).toBe(2);
    const open = await api(server.url, 'GET', '/v1/orders/open', undefined, t.auth);
    expect(open.body.orders.map((o: { side: string }) => o.side)).toEqual(['SELL']);
    // Open orders are read from the engine; the table is the projection's, behind the acknowledgement.
    await projected((text) => server.database.sql.query(text));
    const closed = await server.database.prisma.order.findMany({ where: { account: { publicId: t.rootAccountId }, isOpen: false }, select: { closeReason: true } });
    expect(closed.map((o) => o.closeReason)).toEqual(['CANCEL_ALL', 'CANCEL_ALL']);
  });

  it('checks the symbol routing hint of a cancel', async () => {
    const t = await trader(server.url, { USDC: '10000' });
    const o = await placeOrder(server.url, t, gtc('BUY', '0.01', '100'));
    const unknown = await api(server.url, 'POST', '/v1/orders/cancel', { orderId: o.body.orderId, symbol: 'DOGE-USDC' }, t.auth);
    expect(unknown.status).toBe(400);
    expect(unknown.body.violations[0]).toMatchObject({ fieldPath: 'symbol', ruleId: 'symbol' });
    const elsewhere = await api(server.url, 'POST', '/v1/orders/cancel', { orderId: o.body.orderId, symbol: 'ETH-USDC' }, t.auth);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.code).toBe('ORDER_NOT_FOUND');
    expect((await api(server.url, 'GET', `/v1/orders/${o.body.orderId}`, undefined, t.auth)).body.order.status).toBe('NEW');
    const right = await api(server.url, 'POST', '/v1/orders/cancel', { orderId: o.body.orderId, symbol: 'BTC-USDC' }, t.auth);
    expect(right.status).toBe(200);
  });

  it('another account’s order is not found', async () => {
    const mine = await trader(server.url, { USDC: '10000' });
    const theirs = await trader(server.url, { USDC: '10000' });
    const o = await placeOrder(server.url, mine, gtc('BUY', '0.01', '100'));
    const r = await api(server.url, 'POST', '/v1/orders/cancel', { orderId: o.body.orderId }, theirs.auth);
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('ORDER_NOT_FOUND');
    expect((await api(server.url, 'GET', `/v1/orders/${o.body.orderId}`, undefined, theirs.auth)).status).toBe(404);
  });
});

describe('dead-man switch (cancel-all-after)', () => {
  it('refuses 1..9 and above 120 seconds, arms, refreshes and disables', async () => {
    const t = await trader(server.url, { USDC: '1000' });
    for (const timeoutSec of [1, 9, 121]) {
      const r = await api(server.url, 'POST', '/v1/orders/cancel-all-after', { requestId: `r${timeoutSec}`, timeoutSec }, t.auth);
      expect(r.status).toBe(400);
      expect(r.body.violations[0]).toMatchObject({ fieldPath: 'timeoutSec', ruleId: 'dead-man-timeout' });
    }
    const armed = await api(server.url, 'POST', '/v1/orders/cancel-all-after', { requestId: 'hb', timeoutSec: 60 }, t.auth);
    expect(armed.body).toMatchObject({ status: 'ARMED', effectiveTimeoutSec: 60 });
    expect(BigInt(armed.body.expiresAtTsNs)).toBe(BigInt(armed.body.tsNs) + 60_000_000_000n);
    // A heartbeat that reuses its requestId still moves the deadline (and may change the timeout).
    await new Promise((r) => setTimeout(r, 20));
    const beat = await api(server.url, 'POST', '/v1/orders/cancel-all-after', { requestId: 'hb', timeoutSec: 30 }, t.auth);
    expect(beat.body).toMatchObject({ status: 'ARMED', effectiveTimeoutSec: 30 });
    expect(BigInt(beat.body.tsNs)).toBeGreaterThan(BigInt(armed.body.tsNs));
    expect(BigInt(beat.body.expiresAtTsNs)).toBe(BigInt(beat.body.tsNs) + 30_000_000_000n);
    // The table is a projection: read it once it holds what was acknowledged.
    await server.app.services.orders.engine.readable();
    const stored = await server.database.prisma.deadManSwitch.findFirstOrThrow({ where: { account: { publicId: t.rootAccountId } } });
    expect(stored.expiresAtTsNs).toBe(BigInt(beat.body.expiresAtTsNs));
    const off = await api(server.url, 'POST', '/v1/orders/cancel-all-after', { requestId: 'hb', timeoutSec: 0 }, t.auth);
    expect(off.body).toMatchObject({ status: 'DISABLED', effectiveTimeoutSec: 0, expiresAtTsNs: '0' });
  });

  it('cancels the orders in scope when it expires, and only those', async () => {
    const t = await trader(server.url, { USDC: '10000', BTC: '1', ETH: '1' });
    const o = await placeOrder(server.url, t, gtc('BUY', '0.01', '100'));
    const otherSide = await placeOrder(server.url, t, gtc('SELL', '0.01', '900000'));
    const otherSymbol = await placeOrder(server.url, t, { symbol: 'ETH-USDC', side: 'BUY', baseQty: '0.01', limitGtc: { price: '100' } });
    const armed = await api(server.url, 'POST', '/v1/orders/cancel-all-after', { requestId: 'short', timeoutSec: 10, symbol: 'BTC-USDC', side: 'BUY' }, t.auth);
    expect(armed.status).toBe(200);
    clock.skip(10_001);
    await new Promise((r) => setTimeout(r, 800));
    const after = await api(server.url, 'GET', `/v1/orders/${o.body.orderId}`, undefined, t.auth);
    expect(after.body.order.status).toBe('CANCELED');
    for (const kept of [otherSide, otherSymbol]) {
      expect((await api(server.url, 'GET', `/v1/orders/${kept.body.orderId}`, undefined, t.auth)).body.order.status).toBe('NEW');
    }
    await projected((text) => server.database.sql.query(text));
    const row = await server.database.prisma.order.findUniqueOrThrow({ where: { publicId: o.body.orderId }, select: { closeReason: true } });
    expect(row.closeReason).toBe('DEAD_MAN_SWITCH');
    const sw = await server.database.prisma.deadManSwitch.findFirstOrThrow({ where: { account: { publicId: t.rootAccountId } } });
    expect(sw).toMatchObject({ status: 'DISABLED', expiresAtTsNs: 0n });
  });
});

describe('dead-man switch against its heartbeats', () => {
  it('never cancels an order placed after a disable was acknowledged, even with the firing already under way', async () => {
    const t = await trader(server.url, { USDC: '10000' });
    const before = await Promise.all(['BTC-USDC', 'ETH-USDC'].map((symbol) => placeOrder(server.url, t, { symbol, side: 'BUY', baseQty: '0.01', limitGtc: { price: '100' } })));
    await api(server.url, 'POST', '/v1/orders/cancel-all-after', { requestId: 'all', timeoutSec: 10 }, t.auth);
    clock.skip(10_001);
    // The firing (this call, or the timer's) and the disable race; each is one job of the
    // sequencer, so one of them comes wholly first. Whichever does, the order placed after
    // the disable was acknowledged stays, and the orders from before it share one fate.
    const firing = server.app.services.orders.fireDeadManSwitches();
    const off = await api(server.url, 'POST', '/v1/orders/cancel-all-after', { requestId: 'off', timeoutSec: 0 }, t.auth);
    expect(off.body.status).toBe('DISABLED');
    const after = await placeOrder(server.url, t, { symbol: 'SOL-USDC', side: 'BUY', baseQty: '1', limitGtc: { price: '10' } });
    const fired = await firing;
    await server.app.services.orders.fireDeadManSwitches();
    expect((await api(server.url, 'GET', `/v1/orders/${after.body.orderId}`, undefined, t.auth)).body.order.status).toBe('NEW');
    const fates = await Promise.all(before.map(async (o) => (await api(server.url, 'GET', `/v1/orders/${o.body.orderId}`, undefined, t.auth)).body.order.status));
    expect(new Set(fates).size).toBe(1);
    if (fired > 0) expect(fates[0]).toBe('CANCELED');
  });
});

describe('modify', () => {
  // ETH-USDC here, so no other test's orders sit on this book.
  const eth = (side: 'BUY' | 'SELL', qty: string, price: string) => ({ symbol: 'ETH-USDC', side, baseQty: qty, limitGtc: { price } });

  it('keeps time priority on a decrease, loses it on an increase, and moves the reservation', async () => {
    const a = await trader(server.url, { ETH: '10' });
    const b = await trader(server.url, { ETH: '10' });
    const taker = await trader(server.url, { USDC: '100000' });
    const first = await placeOrder(server.url, a, eth('SELL', '2', '3000'));
    const second = await placeOrder(server.url, b, eth('SELL', '2', '3000'));

    const down = await api(server.url, 'POST', '/v1/orders/modify', { orderId: first.body.orderId, newQty: '1' }, a.auth);
    expect(down.status, JSON.stringify(down.body)).toBe(200);
    expect(down.body.order).toMatchObject({ origQty: '1', leavesQty: '1', version: 2 });
    expect((await balancesOf(server.url, a))['TRADING:ETH']).toEqual({ available: '9', held: '1' });

    // Still first in line: a 1 ETH buy fills `first`.
    await placeOrder(server.url, taker, { symbol: 'ETH-USDC', side: 'BUY', baseQty: '1', limitIoc: { price: '3000' } });
    expect((await api(server.url, 'GET', `/v1/orders/${first.body.orderId}`, undefined, a.auth)).body.order.status).toBe('FILLED');

    const third = await placeOrder(server.url, a, eth('SELL', '1', '3000'));
    const up = await api(server.url, 'POST', '/v1/orders/modify', { orderId: second.body.orderId, newQty: '3' }, b.auth);
    expect(up.body.order).toMatchObject({ origQty: '3', leavesQty: '3' });
    // `second` went to the back: the next 1 ETH buy fills `third`.
    await placeOrder(server.url, taker, { symbol: 'ETH-USDC', side: 'BUY', baseQty: '1', limitIoc: { price: '3000' } });
    expect((await api(server.url, 'GET', `/v1/orders/${third.body.orderId}`, undefined, a.auth)).body.order.status).toBe('FILLED');
    expect((await api(server.url, 'GET', `/v1/orders/${second.body.orderId}`, undefined, b.auth)).body.order.leavesQty).toBe('3');
  });

  it('re-prices a BUY, reserving for the new price, and refuses what the balance cannot pay', async () => {
    const t = await trader(server.url, { USDC: '1000' });
    const o = await placeOrder(server.url, t, eth('BUY', '0.1', '1000'));
    const before = (await balancesOf(server.url, t))['TRADING:USDC']!;
    const moved = await api(server.url, 'POST', '/v1/orders/modify', { orderId: o.body.orderId, newPrice: '2000' }, t.auth);
    expect(moved.body.order).toMatchObject({ price: '2000' });
    const after = (await balancesOf(server.url, t))['TRADING:USDC']!;
    expect(Number(after.held)).toBeGreaterThan(Number(before.held));
    const tooMuch = await api(server.url, 'POST', '/v1/orders/modify', { orderId: o.body.orderId, newQty: '100' }, t.auth);
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.code).toBe('INSUFFICIENT_BALANCE');
    expect((await balancesOf(server.url, t))['TRADING:USDC']).toEqual(after);
  });
});

describe('replace', () => {
  it('starts the next generation of the lineage, inherits the filled quantity, and filters fills by lineage', async () => {
    const maker = await trader(server.url, { SOL: '100' });
    const taker = await trader(server.url, { USDC: '100000' });
    const g1 = await placeOrder(server.url, maker, { symbol: 'SOL-USDC', side: 'SELL', baseQty: '10', limitGtc: { price: '200' } });
    await placeOrder(server.url, taker, { symbol: 'SOL-USDC', side: 'BUY', baseQty: '4', limitIoc: { price: '200' } });

    // The replacement's baseQty is the lineage's total (FIX cancel/replace): 4 filled + 5 to work.
    const replace = (baseQty: string) =>
      api(server.url, 'POST', '/v1/orders/replace', { orderId: g1.body.orderId, order: { symbol: 'SOL-USDC', side: 'SELL', baseQty, limitGtc: { price: '201' } } }, maker.auth);
    const nothingLeft = await replace('4');
    expect(nothingLeft.status).toBe(400);
    expect(nothingLeft.body.violations[0]).toMatchObject({ fieldPath: 'order.baseQty', ruleId: 'above-filled' });
    const r = await replace('9');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const old = (await api(server.url, 'GET', `/v1/orders/${g1.body.orderId}`, undefined, maker.auth)).body.order;
    expect(old).toMatchObject({ status: 'REPLACED', cumQty: '4', leavesQty: '0' });
    const g2 = (await api(server.url, 'GET', `/v1/orders/${r.body.orderId}`, undefined, maker.auth)).body.order;
    expect(g2).toMatchObject({ lineage: { generation: 2, id: g1.body.orderId }, inheritedCumQty: '4', cumQty: '4', avgPx: '200', origQty: '9', leavesQty: '5', price: '201' });
    // 6 SOL were reserved before; now only the new 5.
    expect((await balancesOf(server.url, maker))['TRADING:SOL']).toEqual({ available: '91', held: '5' });

    await placeOrder(server.url, taker, { symbol: 'SOL-USDC', side: 'BUY', baseQty: '2', limitIoc: { price: '201' } });
    const g2after = (await api(server.url, 'GET', `/v1/orders/${r.body.orderId}`, undefined, maker.auth)).body.order;
    // Across the lineage: (4 x 200 + 2 x 201) / 6.
    expect(g2after).toMatchObject({ origQty: '9', cumQty: '6', avgPx: '200.333333333', leavesQty: '3', status: 'PARTIALLY_FILLED' });
    // A modify's newQty is the lineage's total too: 8 leaves 8 - 6 = 2 to work.
    const smaller = await api(server.url, 'POST', '/v1/orders/modify', { orderId: r.body.orderId, newQty: '8' }, maker.auth);
    expect(smaller.body.order).toMatchObject({ origQty: '8', cumQty: '6', leavesQty: '2' });
    expect((await balancesOf(server.url, maker))['TRADING:SOL']).toEqual({ available: '92', held: '2' });

    const lineage = await api(server.url, 'GET', `/v1/spot/trades?lineageId=${g1.body.orderId}`, undefined, maker.auth);
    expect(lineage.body.trades.map((t: { qty: string }) => t.qty).sort()).toEqual(['2', '4']);
    const firstGen = await api(server.url, 'GET', `/v1/spot/trades?lineageId=${g1.body.orderId}&throughGeneration=1`, undefined, maker.auth);
    expect(firstGen.body.trades.map((t: { qty: string }) => t.qty)).toEqual(['4']);
    // The data migration that backfilled replacements made before the column existed
    // restores exactly what a replace records.
    const g2row = { publicId: r.body.orderId as string };
    const recorded = (await server.database.prisma.order.findUniqueOrThrow({ where: g2row })).inheritedNotionalQ9.toFixed(0);
    expect(recorded).toBe('800000000000000');
    await server.database.prisma.order.update({ where: g2row, data: { inheritedNotionalQ9: 0 } });
    await server.database.sql.exec(await readFile(new URL('../../prisma/migrations/20261123144500_order_inherited_notional_backfill/migration.sql', import.meta.url), 'utf8'));
    expect((await server.database.prisma.order.findUniqueOrThrow({ where: g2row })).inheritedNotionalQ9.toFixed(0)).toBe(recorded);

    const needsSymbol = await api(server.url, 'GET', '/v1/spot/trades?afterMatchId=1', undefined, maker.auth);
    expect(needsSymbol.status).toBe(400);
    expect(needsSymbol.body.violations[0]).toMatchObject({ fieldPath: 'afterMatchId', ruleId: 'requires' });
  });
});

describe('attached risk (stored with the order; executed by triggers, see triggers.test.ts)', () => {
  it('stores the legs with the order and shows their policy and state when asked', async () => {
    const t = await trader(server.url, { USDC: '100000' });
    const attachedRisk = {
      oco: true,
      stopLoss: { triggerPrice: '90', child: { marketIoc: {} } },
      takeProfit: { triggerPrice: '120', child: { limit: { price: '119.5', postOnly: true } } },
      trailingStop: { trailingDistanceTicks: '500000000', maxSlippageTicks: 10 },
    };
    const r = await placeOrder(server.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.5', limitGtc: { price: '100' }, attachedRisk });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ stopLossTriggerId: expect.stringMatching(/.+/), takeProfitTriggerId: expect.stringMatching(/.+/), trailingStopTriggerId: expect.stringMatching(/.+/) });
    const plain = await api(server.url, 'GET', '/v1/orders/open', undefined, t.auth);
    expect(plain.body.orders[0]).not.toHaveProperty('attachedRisk');
    // No trigger has created a child order yet: filtering by a trigger id finds nothing.
    const byTrigger = await api(server.url, 'GET', '/v1/orders/open?triggerId=NoSuchTrigger1', undefined, t.auth);
    expect(byTrigger.body.orders).toEqual([]);
    const both = await api(server.url, 'GET', '/v1/orders/open?includeAttachedRisk=true&includeAttachedRiskState=true', undefined, t.auth);
    expect(both.body.orders[0].attachedRisk).toEqual({
      oco: true,
      stopLoss: {
        policy: { triggerPrice: '90', child: { marketIoc: {} } },
        state: { armedAt: '0', childOrderId: '', status: 'PENDING', terminalAt: '0', triggerId: r.body.stopLossTriggerId },
      },
      takeProfit: {
        policy: { triggerPrice: '120', child: { limit: { price: '119.5', postOnly: true } } },
        state: expect.objectContaining({ status: 'PENDING' }),
      },
      trailingStop: {
        policy: { trailingDistanceTicks: '500000000', maxSlippageTicks: 10 },
        state: expect.objectContaining({ status: 'PENDING' }),
      },
    });
  });

  it('refuses legs on the wrong side of the order and an OCO without both legs', async () => {
    const t = await trader(server.url, { USDC: '100000' });
    const wrong = await placeOrder(server.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.5', limitGtc: { price: '100' }, attachedRisk: { stopLoss: { triggerPrice: '110', child: { marketIoc: {} } } } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.violations[0]).toMatchObject({ fieldPath: 'order.attachedRisk.stopLoss.triggerPrice', ruleId: 'protective-side' });
    const oco = await placeOrder(server.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.5', limitGtc: { price: '100' }, attachedRisk: { oco: true, stopLoss: { triggerPrice: '90', child: { marketIoc: {} } } } });
    expect(oco.status).toBe(400);
    expect(oco.body.violations[0]).toMatchObject({ fieldPath: 'order.attachedRisk.oco', ruleId: 'oco-pair' });
  });
});
