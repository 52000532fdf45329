import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/auth.ts';
import { startTestApp, TEST_OPERATOR_TOKEN, type RunningApp } from '../helpers/infra.ts';
import { placeOrder, projected, trader } from '../helpers/trading.ts';

/**
 * Trade and LedgerTransferLeg have no foreign keys (docs/scaling.md, "Projected write
 * set"); the reference check stands in for them. It must find nothing after real trading,
 * and must find a reference planted to point at nothing.
 */
let server: RunningApp;
const operator = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };
const query = <T>(text: string) => server.database.sql.query(text) as Promise<T[]>;
const check = () => api(server.url, 'GET', '/operator/v1/consistency/references', undefined, operator);

beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

describe('the reference check of the projected tables', () => {
  it('finds nothing after trading, and names each planted dangling reference', async () => {
    const seller = await trader(server.url, { BTC: '1' });
    const buyer = await trader(server.url, { USDC: '100000' });
    expect((await placeOrder(server.url, seller, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.5', limitGtc: { price: '20000' } })).status).toBe(200);
    expect((await placeOrder(server.url, buyer, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.5', limitGtc: { price: '20000' } })).status).toBe(200);
    await projected(query);
    const [trades] = await query<{ n: string }>('SELECT count(*)::text AS n FROM "Trade"');
    expect(Number(trades!.n)).toBeGreaterThanOrEqual(2);

    const clean = await check();
    expect(clean.status).toBe(200);
    expect(clean.body).toEqual({ dangling: [] });

    // Nothing refuses these now: the check is what notices.
    const [trade] = await query<{ id: string }>('SELECT id::text AS id FROM "Trade" ORDER BY id LIMIT 1');
    await query(`UPDATE "Trade" SET "orderId" = 999999999 WHERE id = ${trade!.id}`);
    const [leg] = await query<{ id: string }>('SELECT id::text AS id FROM "LedgerTransferLeg" ORDER BY id LIMIT 1');
    await query(`UPDATE "LedgerTransferLeg" SET "assetId" = 999999 WHERE id = ${leg!.id}`);

    const dirty = await check();
    expect(dirty.status).toBe(200);
    expect(dirty.body).toEqual({
      dangling: [
        { reference: 'Trade.orderId -> Order.id', count: 1, rowIds: [trade!.id] },
        { reference: 'LedgerTransferLeg.assetId -> Asset.unifiedAssetId', count: 1, rowIds: [leg!.id] },
      ],
    });
  });

  it('is the operator\'s alone', async () => {
    expect((await api(server.url, 'GET', '/operator/v1/consistency/references', undefined, {})).status).toBe(401);
  });
});
