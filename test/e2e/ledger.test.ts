import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/auth.ts';
import { startTestApp, TEST_OPERATOR_TOKEN, type RunningApp } from '../helpers/infra.ts';
import { balancesOf, credit, trader } from '../helpers/trading.ts';

let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

describe('ledger', () => {
  it('moves funds FUNDING -> TRADING and root -> subaccount, never more than is available', async () => {
    const t = await trader(server.url, {});
    await credit(server.url, t.rootAccountId, 'USDC', '100', 'FUNDING');
    const sub = (await api(server.url, 'POST', '/v1/auth/subaccounts', { label: 'desk' }, t.auth)).body.subaccount.subaccountId;

    const toTrading = await api(server.url, 'POST', '/v1/transfers/internal', { asset: 'USDC', amount: '60', fromLedger: 'FUNDING', toLedger: 'TRADING' }, t.auth);
    expect(toTrading.status, JSON.stringify(toTrading.body)).toBe(200);
    const toSub = await api(server.url, 'POST', '/v1/transfers/internal', { asset: '4', amount: '25.5', fromLedger: 'TRADING', toLedger: 'TRADING', toSubaccountId: sub }, t.auth);
    expect(toSub.status).toBe(200);
    const tooMuch = await api(server.url, 'POST', '/v1/transfers/internal', { asset: 'USDC', amount: '41', fromLedger: 'FUNDING', toLedger: 'TRADING' }, t.auth);
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.code).toBe('INSUFFICIENT_BALANCE');

    expect(await balancesOf(server.url, t)).toEqual({
      'FUNDING:USDC': { available: '40', held: '0' },
      'TRADING:USDC': { available: '34.5', held: '0' },
    });
    expect(await balancesOf(server.url, t, sub)).toEqual({ 'TRADING:USDC': { available: '25.5', held: '0' } });
  });

  it('lists transfer legs oldest first or reversed, with snake_case paging bound to the filters', async () => {
    const t = await trader(server.url, {});
    for (const amount of ['1', '2', '3']) await credit(server.url, t.rootAccountId, 'USDC', amount, 'FUNDING');
    const page1 = await api(server.url, 'GET', '/v1/transfers?limit=2&ledger=FUNDING', undefined, t.auth);
    expect(page1.body.transfers.map((l: { amount: string }) => l.amount)).toEqual(['1', '2']);
    expect(page1.body.transfers[0]).toMatchObject({
      account: 'FUNDING',
      asset: '4',
      isDebit: false,
      balanceAfter: '1',
      transferCode: 'DEPOSIT',
      linkId: expect.stringMatching(/^[0-9]+$/),
      timestamp: expect.stringMatching(/^[0-9]+$/),
      destination: { accountId: t.rootAccountId, address: '', chainId: 0, kind: 'FUNDING_ACCOUNT' },
      source: { accountId: '', kind: 'EXTERNAL_ADDRESS' },
    });
    const page2 = await api(server.url, 'GET', `/v1/transfers?limit=2&ledger=FUNDING&page_token=${page1.body.nextPageToken}`, undefined, t.auth);
    expect(page2.body).toMatchObject({ transfers: [expect.objectContaining({ amount: '3', balanceAfter: '6' })], nextPageToken: '' });
    const reversed = await api(server.url, 'GET', '/v1/transfers?reversed=true&limit=1', undefined, t.auth);
    expect(reversed.body.transfers[0].amount).toBe('3');
    const otherFilter = await api(server.url, 'GET', `/v1/transfers?limit=2&ledger=TRADING&page_token=${page1.body.nextPageToken}`, undefined, t.auth);
    expect(otherFilter.status).toBe(400);
    expect(otherFilter.body.violations[0]).toMatchObject({ fieldPath: 'page_token', ruleId: 'page-token' });
    const tooBig = await api(server.url, 'GET', '/v1/transfers?limit=1001', undefined, t.auth);
    expect(tooBig.status).toBe(400);
  });
});

describe('operator API', () => {
  it('refuses a wrong token', async () => {
    const r = await api(server.url, 'POST', '/operator/v1/credits', { accountId: 'x', asset: 'USDC', amount: '1', ledgerAccount: 'TRADING' }, { authorization: 'Bearer wrong-token-wrong-token' });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('OPERATOR_TOKEN_REQUIRED');
  });

  it('does not exist unless OPERATOR_TOKEN is set', async () => {
    const plain = await startTestApp({ env: { OPERATOR_TOKEN: '' } });
    try {
      const r = await api(plain.url, 'POST', '/operator/v1/credits', { accountId: 'x', asset: 'USDC', amount: '1', ledgerAccount: 'TRADING' }, { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('ROUTE_NOT_FOUND');
    } finally {
      await plain.close();
    }
  });
});
