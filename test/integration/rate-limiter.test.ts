import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKeyCaller, SessionCaller } from '../../src/auth/caller.ts';
import { ApiError } from '../../src/domain/errorCatalogue.ts';
import { openSharedStore, type SharedStore } from '../../src/infra/redis.ts';
import { createRateLimiter, type RateLimiter } from '../../src/services/rateLimits.ts';
import { TEST_REDIS_URL } from '../helpers/env.ts';
import { testDatabase, testStore, uniqueName } from '../helpers/infra.ts';

let db: Awaited<ReturnType<typeof testDatabase>>;
let store: Awaited<ReturnType<typeof testStore>>;
let limiter: RateLimiter;

beforeAll(async () => {
  db = await testDatabase();
  store = await testStore();
  limiter = createRateLimiter({ db: db.prisma, store });
});
afterAll(async () => {
  await store.flush();
  await db.drop();
});

async function newRoot() {
  const publicId = uniqueName('acct');
  const row = await db.prisma.account.create({ data: { publicId, kind: 'ROOT' } });
  const session: SessionCaller = { kind: 'session', rootAccountId: row.id, rootPublicId: publicId, sessionId: 1n };
  return { row, session };
}

async function newKey(root: { row: { id: bigint; publicId: string } }): Promise<ApiKeyCaller> {
  const keyId = `ak_${uniqueName('k').replace(/[^0-9a-f]/g, '').padEnd(32, '0').slice(0, 32)}`;
  const key = await db.prisma.apiKey.create({
    // Active keys' public keys are unique platform-wide.
    data: { keyId, rootAccountId: root.row.id, label: 'k', publicKeyEd25519: new Uint8Array(randomBytes(32)), createdByActor: 'test' },
  });
  return { kind: 'apiKey', rootAccountId: root.row.id, rootPublicId: root.row.publicId, keyId, keyDbId: key.id, permissions: new Set() };
}

async function outcome(p: Promise<void>): Promise<'ok' | ApiError> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
}

describe('the limiter on real Redis', () => {
  it('never over-admits concurrent requests arriving over several connections', async () => {
    const { session } = await newRoot();
    const stores: SharedStore[] = [];
    for (let i = 0; i < 4; i++) stores.push(await openSharedStore({ kind: 'redis', url: TEST_REDIS_URL, keyPrefix: store.keyPrefix }));
    try {
      const limiters = stores.map((s) => createRateLimiter({ db: db.prisma, store: s }));
      // SOCIAL_PROVIDER-like small quota: DEPOSIT_CREATE holds 3 and refills 10 per minute.
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => outcome((limiters[i % 4] as RateLimiter).admit('deposit.create_address', { caller: session }))),
      );
      expect(results.filter((r) => r === 'ok')).toHaveLength(3);
      for (const r of results.filter((x) => x !== 'ok')) expect((r as ApiError).code).toBe('RATE_LIMIT_EXCEEDED');
    } finally {
      for (const s of stores) await s.close();
    }
  });

  it('charges nothing when one scope rejects, and reports the scope that was empty', async () => {
    const root = await newRoot();
    const key = await newKey(root);
    await db.prisma.rateLimitOverride.create({
      data: { pool: 'ACCOUNT_SECURITY', apiKeyId: key.keyDbId, quotaWeight: 1n, periodMs: 3_600_000n, burstWeight: 5n },
    });
    // The key's bucket (5 units) pays for one 5-unit creation; the account (20) could pay four.
    expect(await outcome(limiter.admit('security.api_key_create', { caller: key }))).toBe('ok');
    const rejected = await outcome(limiter.admit('security.api_key_create', { caller: key }));
    expect(rejected).toBeInstanceOf(ApiError);
    const body = (rejected as ApiError).extensions.rate_limit as Record<string, string>;
    expect(body).toMatchObject({ scope: 'API_KEY', policy_class: 'ACCOUNT_SECURITY', operation_id: 'security.api_key_create', limit: '5' });
    // The account bucket was charged once (5 of 20), not twice: three more 5-unit sessions fit.
    for (let i = 0; i < 3; i++) expect(await outcome(limiter.admit('security.api_key_create', { caller: root.session }))).toBe('ok');
    const empty = await outcome(limiter.admit('security.api_key_create', { caller: root.session }));
    expect(((empty as ApiError).extensions.rate_limit as Record<string, string>).scope).toBe('ACCOUNT');
  });

  it('makes two API keys of one account share the ACCOUNT bucket: extra keys add no capacity', async () => {
    const root = await newRoot();
    const [a, b] = [await newKey(root), await newKey(root)];
    let admitted = 0;
    for (let i = 0; i < 20; i++) {
      if ((await outcome(limiter.admit('account.create_subaccount', { caller: i % 2 === 0 ? a : b }))) === 'ok') admitted++;
    }
    expect(admitted).toBe(15);
    const r = (await outcome(limiter.admit('account.create_subaccount', { caller: a }))) as ApiError;
    expect((r.extensions.rate_limit as Record<string, string>).scope).toBe('ACCOUNT');
  });

  it('keeps placement and cancellation in separate pools', async () => {
    const { session } = await newRoot();
    let placed = 0;
    const started = Date.now();
    while ((await outcome(limiter.admit('trading.place', { caller: session }))) === 'ok') placed++;
    // The burst of 100, plus what the pool refills (100 per 10 s) while the loop runs on a slow machine.
    const refilled = Math.ceil(((Date.now() - started) / 10_000) * 100);
    expect(placed).toBeGreaterThanOrEqual(100);
    expect(placed).toBeLessThanOrEqual(100 + refilled);
    expect(await outcome(limiter.admit('trading.cancel', { caller: session }))).toBe('ok');
  });

  it('answers RATE_LIMIT_AUTHORITY_UNAVAILABLE when Redis cannot be reached', async () => {
    const { session } = await newRoot();
    const dead = await openSharedStore({ kind: 'redis', url: TEST_REDIS_URL, keyPrefix: store.keyPrefix });
    dead.redis!.disconnect();
    const r = (await outcome(createRateLimiter({ db: db.prisma, store: dead }).admit('account.create_subaccount', { caller: session }))) as ApiError;
    expect(r.status).toBe(503);
    expect(r.code).toBe('RATE_LIMIT_AUTHORITY_UNAVAILABLE');
    await dead.close();
  });
});

describe('the in-process substitute', () => {
  it('has the same semantics: 15 ACCOUNT_ADMIN mutations, then a truthful retry-after', async () => {
    const { session } = await newRoot();
    const memory = await openSharedStore({ kind: 'memory', keyPrefix: 'm:' });
    const local = createRateLimiter({ db: db.prisma, store: memory });
    for (let i = 0; i < 15; i++) expect(await outcome(local.admit('account.create_subaccount', { caller: session }))).toBe('ok');
    const r = (await outcome(local.admit('account.create_subaccount', { caller: session }))) as ApiError;
    const info = r.extensions.rate_limit as Record<string, string>;
    expect(Number(info.retry_after_ms)).toBeGreaterThan(0);
    expect(Number(info.retry_after_ms)).toBeLessThanOrEqual(1000);
    await new Promise((resolve) => setTimeout(resolve, Number(info.retry_after_ms)));
    expect(await outcome(local.admit('account.create_subaccount', { caller: session }))).toBe('ok');
    await memory.close();
  });
});
