import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, onboard, type SignedIn } from '../helpers/auth.ts';
import { startTestApp, TEST_OPERATOR_TOKEN, type RunningApp } from '../helpers/infra.ts';

/**
 * Integers beyond what the service stores are a 400 `invalid-argument` naming the field,
 * in the query, the path and the body alike; operator inputs have bounds; the limiter's
 * answers stay sane for the largest policy an operator may set.
 */
let server: RunningApp;
let me: SignedIn;
const operator = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };
const ENTRIES = '/v1/auth/address-book-entries';
const TOO_BIG = '9223372036854775808';

beforeAll(async () => {
  server = await startTestApp();
  me = await onboard(server.url);
});
afterAll(async () => {
  await server?.close();
});

function expectRange(r: { status: number; body: any }, fieldPath: string, ruleId: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.body.code).toBe('BAD_REQUEST');
  expect(r.body.violations).toContainEqual(expect.objectContaining({ fieldPath, ruleId }));
}

describe('revisions above int64', () => {
  it('are refused in the query of a delete and in the body of an update alike, leaving the entry', async () => {
    const created = await api(server.url, 'POST', ENTRIES, { kind: 'EXTERNAL_CHAIN', label: 'x', external: { address: '0x52908400098527886E0F7030069857D2E4169EE7', registryChainId: 1 } }, me.auth);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const url = `${ENTRIES}/${created.body.entry.addressBookEntryId}`;
    expectRange(await api(server.url, 'DELETE', `${url}?expectedRevision=${TOO_BIG}`, undefined, me.auth), 'expectedRevision', 'int64-range');
    expectRange(await api(server.url, 'PATCH', url, { expectedRevision: TOO_BIG, label: 'y' }, me.auth), 'expectedRevision', 'int64-range');
    expect((await api(server.url, 'GET', url, undefined, me.auth)).body.entry).toMatchObject({ label: 'x', revision: '1' });
  });

  it('are refused on an API key update', async () => {
    const r = await api(server.url, 'PATCH', `/v1/auth/api-keys/ak_${'0'.repeat(32)}`, { expectedRevision: '18446744073709551615', label: 'z' }, me.auth);
    expectRange(r, 'expectedRevision', 'int64-range');
  });
});

describe('operator rate-limit overrides', () => {
  const put = (values: Record<string, string>) =>
    api(server.url, 'PUT', '/operator/v1/rate-limit-overrides', { pool: 'ACCOUNT_SECURITY', accountId: me.rootAccountId, quotaWeight: '1', periodMs: '1000', burstWeight: '1', ...values }, operator);

  it.each([
    ['quotaWeight', '9223372036854775808'],
    ['burstWeight', '18446744073709551615'],
    ['periodMs', '9223372036854775807'],
    ['periodMs', '86400001'],
    ['quotaWeight', '0'],
  ])('refuse %s = %s with a range violation', async (field, value) => {
    expectRange(await put({ [field]: value }), field, 'range');
  });

  it('refuse a burst whose bucket, over its period, would leave exact integer arithmetic', async () => {
    expectRange(await put({ burstWeight: '1000000000', periodMs: '86400000' }), 'burstWeight', 'range');
    expect((await put({ burstWeight: '10000000', periodMs: '1000', quotaWeight: '10000000' })).status).toBe(200);
  });

  it('refuse a VIP tier beyond int32', async () => {
    const r = await api(server.url, 'PUT', `/operator/v1/accounts/${me.rootAccountId}/vip-tier`, { vipTier: 2 ** 40 }, operator);
    expectRange(r, 'vipTier', 'max');
  });

  it('at the largest accepted period, a rejection says when to retry, never a negative time', async () => {
    expect((await put({ quotaWeight: '1', periodMs: '86400000', burstWeight: '1' })).status).toBe(200);
    // A policy costs 2 units: more than the burst of 1, so the first one waits a day.
    const r = await api(server.url, 'POST', '/v1/auth/api-policies', { name: 'p', permissions: ['READ'] }, me.auth);
    expect(r.status, JSON.stringify(r.body)).toBe(429);
    const retryMs = BigInt(r.body.rate_limit.retry_after_ms);
    expect(retryMs).toBeGreaterThan(0n);
    expect(retryMs).toBeLessThanOrEqual(2n * 86_400_000n);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
