import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateSubaccountDocument, RateLimitCatalogDocument } from '../generated/graphql/graphql.ts';
import { api, signIn } from '../helpers/auth.ts';
import { gql } from '../helpers/graphql.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';

let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

describe('quota rejections (spec 7.1, 8)', () => {
  it('stops at the documented burst, answers the exact 429, admits again after retry_after_ms, and shares the quota with GraphQL', async () => {
    const who = await signIn(server.url);
    // ACCOUNT_ADMIN: 30 units of burst, 2 units per subaccount: 15 immediate creations, plus
    // one per second that the requests themselves take (the bucket refills continuously).
    const started = Date.now();
    let admitted = 0;
    let rejected = await api(server.url, 'POST', '/v1/auth/subaccounts', { label: 's0' }, who.auth);
    while (rejected.status === 200) {
      admitted++;
      rejected = await api(server.url, 'POST', '/v1/auth/subaccounts', { label: `s${admitted}` }, who.auth);
    }
    const elapsedSeconds = (Date.now() - started) / 1000;
    expect(admitted).toBeGreaterThanOrEqual(15);
    expect(admitted).toBeLessThanOrEqual(15 + Math.ceil(elapsedSeconds));
    expect(rejected.status).toBe(429);
    expect(rejected.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const retryAfterMs = Number(rejected.body.rate_limit.retry_after_ms);
    expect(retryAfterMs).toBeGreaterThan(0);
    expect(retryAfterMs).toBeLessThanOrEqual(1000);
    expect(rejected.body).toEqual({
      type: 'https://errors.spot.example/problems/rate-limit-exceeded',
      title: 'Rate limit exceeded',
      status: 429,
      detail: expect.any(String),
      code: 'RATE_LIMIT_EXCEEDED',
      requestId: expect.any(String),
      rate_limit: {
        reason: 'QUOTA_EXCEEDED',
        limit: '30',
        remaining: expect.stringMatching(/^[01]$/),
        retry_after_ms: String(retryAfterMs),
        policy_version: '1',
        operation_id: 'account.create_subaccount',
        policy_class: 'ACCOUNT_ADMIN',
        scope: 'ACCOUNT',
        refill_model: 'CONTINUOUS',
      },
    });
    expect(rejected.headers.get('ratelimit-limit')).toBe('30');
    expect(rejected.headers.get('ratelimit-remaining')).toBe(rejected.body.rate_limit.remaining);
    expect(rejected.headers.get('retry-after')).toBe('1');
    expect(rejected.headers.get('ratelimit-reset')).toBe('1');
    expect(rejected.headers.get('x-service-ratelimit-policy-version')).toBe('1');
    // Nothing was created by the rejected request.
    const listed = await api(server.url, 'GET', '/v1/auth/subaccounts?limit=100', undefined, who.auth);
    expect(listed.body.subaccounts).toHaveLength(admitted);

    await new Promise((r) => setTimeout(r, retryAfterMs));
    const retried = await api(server.url, 'POST', '/v1/auth/subaccounts', { label: 'after waiting' }, who.auth);
    expect(retried.status).toBe(200);

    // The GraphQL alias of the same action draws on the same, now empty, quota.
    expect((await api(server.url, 'POST', '/v1/auth/subaccounts', { label: 'empty again' }, who.auth)).status).toBe(429);
    const viaGraphql = await gql(server.url, CreateSubaccountDocument, { label: 'via graphql' }, who.auth);
    expect(viaGraphql.status).toBe(429);
    expect(viaGraphql.headers.get('retry-after')).toBe('1');
    expect(viaGraphql.headers.get('x-service-ratelimit-policy-version')).toBe('1');
    expect(viaGraphql.body.errors?.[0]?.extensions).toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
      rate_limit: { operation_id: 'account.create_subaccount', policy_class: 'ACCOUNT_ADMIN', scope: 'ACCOUNT' },
    });
  });

  it('limits sign-in per client address (AUTH_PUBLIC, 30 per minute)', async () => {
    const from = { 'x-forwarded-for': '203.0.113.77' };
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) {
      const r = await api(server.url, 'POST', '/v1/auth/wallet/nonce', { address: `0x${(i + 1).toString(16).padStart(40, '0')}` }, from);
      statuses.push(r.status);
    }
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    expect(statuses[30]).toBe(429);
  });
});

describe('the catalog', () => {
  it('is public over REST and GraphQL', async () => {
    const r = await api(server.url, 'GET', '/v1/rate-limits');
    expect(r.status).toBe(200);
    expect(r.body.policyVersion).toBe('1');
    expect(Date.parse(r.body.effectiveFrom)).not.toBeNaN();
    expect(r.body.rules).toHaveLength(22);
    expect(r.body.rules[0]).toEqual({ vipTier: 0, policyClass: 'PLACE', periodMs: '10000', quotaWeight: '100', burstWeight: '100' });
    const g = await gql(server.url, RateLimitCatalogDocument);
    expect(g.body.data?.rateLimits.rules).toHaveLength(22);
  });

  it('tells an authenticated caller its effective trading limits', async () => {
    const who = await signIn(server.url);
    const r = await api(server.url, 'GET', '/v1/trading/rate-limits', undefined, who.auth);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ vipTier: 0, accountId: who.rootAccountId, policyVersion: '1' });
    expect(r.body.rules).toEqual([
      { scope: 'ACCOUNT', policyClass: 'PLACE', source: 'CATALOG', periodMs: '10000', quotaWeight: '100', burstWeight: '100' },
      { scope: 'ACCOUNT', policyClass: 'CANCEL', source: 'CATALOG', periodMs: '10000', quotaWeight: '150', burstWeight: '150' },
    ]);
  });
});

describe('authority failure (spec 7.3)', () => {
  it('answers 503 RATE_LIMIT_AUTHORITY_UNAVAILABLE when Redis is unreachable, and does not perform the mutation', async () => {
    const own = await startTestApp();
    try {
      const who = await signIn(own.url);
      own.store.redis!.disconnect();
      const r = await api(own.url, 'POST', '/v1/auth/subaccounts', { label: 'must not exist' }, who.auth);
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ status: 503, code: 'RATE_LIMIT_AUTHORITY_UNAVAILABLE', reason: 'AUTHORITY_UNAVAILABLE', type: expect.stringMatching(/unavailable$/) });
      const count = await own.database.prisma.account.count({ where: { kind: 'SUBACCOUNT', rootAccount: { publicId: who.rootAccountId } } });
      expect(count).toBe(0);
      // Reads do not depend on the limiter.
      expect((await api(own.url, 'GET', '/v1/auth/subaccounts', undefined, who.auth)).status).toBe(200);
    } finally {
      await own.store.redis!.connect().catch(() => undefined);
      await own.close();
    }
  });
});
