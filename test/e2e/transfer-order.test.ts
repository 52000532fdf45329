import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/auth.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { credit, placeOrder, trader } from '../helpers/trading.ts';

/**
 * List Transfers is the account's ledger in the order it was applied: each leg's
 * `balanceAfter` is the previous leg's (of the same ledger and asset) plus or minus its
 * amount, however many operations raced each other. The time of a leg is read inside its
 * sequenced job, so the listing order (time, then leg) is the order of application.
 */
let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

const E18 = 10n ** 18n;
const units = (text: string) => {
  const [whole, fraction = ''] = text.split('.') as [string, string?];
  return BigInt(whole) * E18 + BigInt(fraction.padEnd(18, '0') || '0');
};

describe('List Transfers under concurrent operations', () => {
  it('lists legs in the order they were applied, so balanceAfter chains', async () => {
    const t = await trader(server.url, { USDC: '100000', BTC: '10' });
    const other = await trader(server.url, { USDC: '100000', BTC: '10' });
    // Credits, transfers between ledgers and crossing orders, all at once.
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => {
        switch (i % 4) {
          case 0:
            return credit(server.url, t.rootAccountId, 'USDC', `${i + 1}`);
          case 1:
            return api(server.url, 'POST', '/v1/transfers/internal', { asset: 'USDC', amount: '3', fromLedger: 'TRADING', toLedger: 'FUNDING' }, t.auth);
          case 2:
            return placeOrder(server.url, t, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.001', limitIoc: { price: '30000' } });
          default:
            return placeOrder(server.url, other, { symbol: 'BTC-USDC', side: 'SELL', baseQty: '0.001', limitGtc: { price: '30000' } });
        }
      }),
    );
    const r = await api(server.url, 'GET', '/v1/transfers?limit=1000', undefined, t.auth);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const legs = r.body.transfers as { account: string; asset: string; amount: string; balanceAfter: string; isDebit: boolean }[];
    expect(legs.length).toBeGreaterThan(30);
    const last = new Map<string, bigint>();
    for (const leg of legs) {
      const key = `${leg.account}:${leg.asset}`;
      const before = last.get(key) ?? 0n;
      const after = before + (leg.isDebit ? -units(leg.amount) : units(leg.amount));
      expect(units(leg.balanceAfter), `${key} after ${leg.amount}`).toBe(after);
      last.set(key, after);
    }
  });
});
