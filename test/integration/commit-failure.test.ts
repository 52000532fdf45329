import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/auth.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { balancesOf, ledgerViolations, placeOrder, projected, SOUND_LEDGER, trader } from '../helpers/trading.ts';

/**
 * A commit PostgreSQL refuses (here a trigger on the journal raising on one client order id,
 * which the entry's order versions carry): every job
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
  IF NEW.payload LIKE '%"fail-me"%' THEN RAISE EXCEPTION 'injected commit failure'; END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER refuse_marked_order BEFORE INSERT ON "TradingJournal" FOR EACH ROW EXECUTE FUNCTION refuse_marked_order();`;

/** Makes PostgreSQL refuse any commit that cancels the order with this client order id; returns the undo. */
async function refuseCancelOf(clientOrderId: string): Promise<() => Promise<void>> {
  await server.database.sql.exec(`
    CREATE FUNCTION refuse_cancel() RETURNS trigger AS $$
    BEGIN
      IF NEW.payload LIKE '%"${clientOrderId}"%' AND NEW.payload LIKE '%"CANCELED"%' THEN RAISE EXCEPTION 'injected commit failure'; END IF;
      RETURN NEW;
    END $$ LANGUAGE plpgsql;
    CREATE TRIGGER refuse_cancel BEFORE INSERT ON "TradingJournal" FOR EACH ROW EXECUTE FUNCTION refuse_cancel();`);
  return () => server.database.sql.exec('DROP TRIGGER refuse_cancel ON "TradingJournal"; DROP FUNCTION refuse_cancel();');
}

describe('a failed commit', () => {
  it('refuses its whole group, stores none of it, rebuilds, and lets trading go on', async () => {
    const seller = await trader(server.url, { BTC: '1' });
    const buyer = await trader(server.url, { USDC: '100000' });
    const resting = await placeOrder(server.url, seller, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.5', limitGtc: { price: '30000' } });
    expect(resting.status).toBe(200);
    const sequenceBefore = BigInt((await api(server.url, 'GET', '/v1/spot/orderbook?symbol=BTC-USDC')).body.sequence);
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

    await server.database.sql.exec('DROP TRIGGER refuse_marked_order ON "TradingJournal"');
    await projected((text) => server.database.sql.query(text));
    // Whatever was refused left nothing behind: no order, no fill, no hold.
    const stored = await server.database.prisma.order.findMany({ where: { clientOrderId: { in: ['fail-me', 'taker'] } }, select: { clientOrderId: true } });
    const acceptedIds = group.filter((r) => r.status === 200).map((r) => r.body.clientOrderId);
    expect(stored.map((o) => o.clientOrderId).sort()).toEqual(acceptedIds.sort());
    const tradedQty = acceptedIds.includes('taker') ? '0.2' : '0';

    // Memory is rebuilt from the database: then the refused client order id is free again
    // and the book is what the database holds.
    let retry = await placeOrder(server.url, buyer, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.1', clientOrderId: 'fail-me', limitGtc: { price: '100' } });
    for (let i = 0; i < 20 && retry.status === 503; i++) {
      expect(retry.body.code).toBe('REBUILDING');
      await new Promise((r) => setTimeout(r, 50));
      retry = await placeOrder(server.url, buyer, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.1', clientOrderId: 'fail-me', limitGtc: { price: '100' } });
    }
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    const book = await api(server.url, 'GET', '/v1/spot/orderbook?symbol=BTC-USDC');
    expect(book.status, JSON.stringify(book.body)).toBe(200);
    expect(book.body.asks).toEqual([{ price: '30000', qty: tradedQty === '0' ? '0.5' : '0.3', orders: 1 }]);
    // The refused group may have shown its changes under sequenceBefore + 1: the rebuilt book
    // starts past every number handed out, so none is reused with other content.
    expect(BigInt(book.body.sequence)).toBeGreaterThan(sequenceBefore + 1n);
    const take = await placeOrder(server.url, buyer, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.1', limitIoc: { price: '30000' } });
    expect(take.status).toBe(200);
    expect((await api(server.url, 'GET', `/v1/orders/${take.body.orderId}`, undefined, buyer.auth)).body.order).toMatchObject({ status: 'FILLED', cumQty: '0.1' });

    const seen = await balancesOf(server.url, buyer);
    await projected((text) => server.database.sql.query(text));
    const rows = await server.database.sql.query<{ assetId: number; available: string; held: string }>(
      `SELECT "assetId", available::text, held::text FROM "Balance" b JOIN "Account" a ON a.id = b."accountId" WHERE a."publicId" = $1 AND "ledgerAccount" = 'TRADING'`,
      [buyer.rootAccountId],
    );
    expect(rows.length).toBe(2);
    // The buyer owns what it bought after the failure, plus the refused group's fill only if that group committed.
    expect(seen['TRADING:BTC']?.available).toBe(tradedQty === '0' ? '0.1' : '0.3');
    expect(await ledgerViolations((text) => server.database.sql.query(text))).toEqual(SOUND_LEDGER);
  });

  it('does not remember a batch cancel whose items were refused for a moment: the same requestId runs again', async () => {
    const t = await trader(server.url, { USDC: '10000' });
    const o = await placeOrder(server.url, t, { symbol: 'ETH-USDC', side: 'BUY', baseQty: '0.1', clientOrderId: 'keep-me', limitGtc: { price: '100' } });
    expect(o.status).toBe(200);
    const allowCancel = await refuseCancelOf('keep-me');
    const body = { requestId: 'retry-me', items: [{ clientOrderId: 'keep-me' }] };
    const first = await api(server.url, 'POST', '/v1/orders/cancel-batch', body, t.auth);
    expect(first.body).toMatchObject({ acceptedCount: 0, rejectedCount: 1, results: [{ status: 'REJECTED', code: 'COMMIT_FAILED' }] });
    await allowCancel();

    let again = await api(server.url, 'POST', '/v1/orders/cancel-batch', body, t.auth);
    for (let i = 0; i < 20 && again.body.results?.[0]?.code === 'REBUILDING'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      again = await api(server.url, 'POST', '/v1/orders/cancel-batch', body, t.auth);
    }
    expect(again.body).toMatchObject({ acceptedCount: 1, rejectedCount: 0, results: [{ orderId: o.body.orderId, status: 'ACCEPTED' }] });
    // Now it is remembered: a repeat answers the same without running again.
    const repeat = await api(server.url, 'POST', '/v1/orders/cancel-batch', body, t.auth);
    expect(repeat.body).toEqual(again.body);
  });

  it('refuses a cancel-all whole (no market half canceled), and tells book subscribers their book is stale', async () => {
    const t = await trader(server.url, { USDC: '10000' });
    const btc = await placeOrder(server.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.01', clientOrderId: 'btc-1', limitGtc: { price: '100' } });
    const eth = await placeOrder(server.url, t, { symbol: 'ETH-USDC', side: 'BUY', baseQty: '0.1', clientOrderId: 'eth-stuck', limitGtc: { price: '100' } });
    const deltas = server.app.services.orders.subscribeMarket('SOL-USDC', 'book');
    const firstDelta = deltas.next();
    const allowCancel = await refuseCancelOf('eth-stuck');
    try {
      const all = await api(server.url, 'POST', '/v1/orders/cancel-all', {}, t.auth);
      expect(all.status).toBe(503);
      expect(all.body.code).toBe('COMMIT_FAILED');
    } finally {
      await allowCancel();
    }
    await projected((text) => server.database.sql.query(text));
    const stored = await server.database.prisma.order.findMany({ where: { publicId: { in: [btc.body.orderId, eth.body.orderId] } }, select: { status: true } });
    expect(stored.map((o) => o.status)).toEqual(['NEW', 'NEW']);
    // A market untouched by the failure still gets an empty delta under the jumped sequence:
    // the gap tells a subscriber to take a new snapshot now, not at the next change.
    const delta = (await firstDelta).value as { sequence: bigint; bids: unknown[]; asks: unknown[] };
    expect(delta).toMatchObject({ bids: [], asks: [] });
    await deltas.return?.();
    let book = await api(server.url, 'GET', '/v1/spot/orderbook?symbol=SOL-USDC');
    for (let i = 0; i < 20 && book.status === 503; i++) {
      await new Promise((r) => setTimeout(r, 50));
      book = await api(server.url, 'GET', '/v1/spot/orderbook?symbol=SOL-USDC');
    }
    expect(BigInt(book.body.sequence)).toBe(delta.sequence);
  });
});
