import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/auth.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { balancesOf, ledgerViolations, placeOrder, SOUND_LEDGER, trader } from '../helpers/trading.ts';

/**
 * A commit PostgreSQL refuses (here a trigger raising on one client order id): every job
 * of that group is refused, nothing of it is stored, memory is rebuilt from the database,
 * and trading goes on with nothing of the refused group left behind.
 */
let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

const INJECT = `
CREATE FUNCTION refuse_marked_order() RETURNS trigger AS $$
BEGIN
  IF NEW."clientOrderId" = 'fail-me' THEN RAISE EXCEPTION 'injected commit failure'; END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER refuse_marked_order BEFORE INSERT ON "Order" FOR EACH ROW EXECUTE FUNCTION refuse_marked_order();`;

describe('a failed commit', () => {
  it('refuses its whole group, stores none of it, rebuilds, and lets trading go on', async () => {
    const seller = await trader(server.url, { BTC: '1' });
    const buyer = await trader(server.url, { USDC: '100000' });
    const resting = await placeOrder(server.url, seller, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.5', limitGtc: { price: '30000' } });
    expect(resting.status).toBe(200);
    await server.database.sql.exec(INJECT);

    // Sent together, so they share the group that fails; one of them would also trade.
    const group = await Promise.all([
      placeOrder(server.url, buyer, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.1', clientOrderId: 'fail-me', limitGtc: { price: '100' } }),
      placeOrder(server.url, buyer, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.2', clientOrderId: 'taker', limitIoc: { price: '30000' } }),
    ]);
    const failed = group.filter((r) => r.status === 503);
    expect(failed.length).toBeGreaterThanOrEqual(1);
    for (const r of failed) expect(r.body.code).toMatch(/^(COMMIT_FAILED|REBUILDING)$/);
    expect(group[0]!.status).toBe(503);

    await server.database.sql.exec('DROP TRIGGER refuse_marked_order ON "Order"');
    // Whatever was refused left nothing behind: no order, no fill, no hold.
    const stored = await server.database.prisma.order.findMany({ where: { clientOrderId: { in: ['fail-me', 'taker'] } }, select: { clientOrderId: true } });
    const acceptedIds = group.filter((r) => r.status === 200).map((r) => r.body.clientOrderId);
    expect(stored.map((o) => o.clientOrderId).sort()).toEqual(acceptedIds.sort());
    const tradedQty = acceptedIds.includes('taker') ? '0.2' : '0';

    // Memory is rebuilt from the database: until then the book snapshot is refused (never a
    // refused group's state); then the refused client order id is free again and the book
    // is what the database holds.
    let retry = await placeOrder(server.url, buyer, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.1', clientOrderId: 'fail-me', limitGtc: { price: '100' } });
    for (let i = 0; i < 20 && retry.status === 503; i++) {
      expect(retry.body.code).toBe('REBUILDING');
      const snapshot = await api(server.url, 'GET', '/v1/spot/orderbook?symbol=BTC-USDC');
      expect([200, 503]).toContain(snapshot.status);
      await new Promise((r) => setTimeout(r, 50));
      retry = await placeOrder(server.url, buyer, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.1', clientOrderId: 'fail-me', limitGtc: { price: '100' } });
    }
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    const book = await api(server.url, 'GET', '/v1/spot/orderbook?symbol=BTC-USDC');
    expect(book.status, JSON.stringify(book.body)).toBe(200);
    expect(book.body.asks).toEqual([{ price: '30000', qty: tradedQty === '0' ? '0.5' : '0.3', orders: 1 }]);
    const take = await placeOrder(server.url, buyer, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.1', limitIoc: { price: '30000' } });
    expect(take.status).toBe(200);
    expect((await api(server.url, 'GET', `/v1/orders/${take.body.orderId}`, undefined, buyer.auth)).body.order).toMatchObject({ status: 'FILLED', cumQty: '0.1' });

    const seen = await balancesOf(server.url, buyer);
    const rows = await server.database.sql.query<{ assetId: number; available: string; held: string }>(
      `SELECT "assetId", available::text, held::text FROM "Balance" b JOIN "Account" a ON a.id = b."accountId" WHERE a."publicId" = $1 AND "ledgerAccount" = 'TRADING'`,
      [buyer.rootAccountId],
    );
    expect(rows.length).toBe(2);
    // The buyer owns what it bought after the failure, plus the refused group's fill only if that group committed.
    expect(seen['TRADING:BTC']?.available).toBe(tradedQty === '0' ? '0.1' : '0.3');
    expect(await ledgerViolations((text) => server.database.sql.query(text))).toEqual(SOUND_LEDGER);
  });
});
