import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scale } from '../../src/domain/ratelimit/tokenBucket.ts';
import { openSharedStore, type BucketCharge, type SharedStore } from '../../src/infra/redis.ts';
import { api, liftLimits, newKeyPair, signed } from '../helpers/auth.ts';
import { startTestApp } from '../helpers/infra.ts';
import { RedisServer } from '../helpers/redisServer.ts';
import { trader } from '../helpers/trading.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * Issue 11: one Redis round trip per signed request. The replay claim and every bucket are
 * one script call; a replayed signature charges nothing; a signature is used up whatever
 * the buckets answer. The in-process stand-in keeps the same semantics.
 */
let redis: RedisServer;
const stores: SharedStore[] = [];
beforeAll(async () => {
  redis = await RedisServer.start();
});
afterAll(async () => {
  for (const s of stores) await s.close();
  await redis.kill();
});

/**
 * A connection in MONITOR mode. monitor() opens it as a copy of the client it is called
 * on, which stays unconnected here: a connected one would be left behind, retrying for
 * the rest of the worker's life once its server is killed.
 */
const monitorOf = (url: string) => new Redis(url, { lazyConnect: true }).monitor();
const bucket = (key: string, burst: number): BucketCharge => ({ key, ...scale({ quota: 1, periodMs: 3_600_000, burst }, 1) });
const claim = (n: number) => ({ key: `sig:${n}`, ttlMs: 60_000, lastUsed: { hash: 'lastUsed', field: 'ak_1', value: String(n) } });

describe.each([
  ['Redis', async () => openSharedStore({ kind: 'redis', url: redis.url, keyPrefix: 'claim:' })],
  ['in-process', async () => openSharedStore({ kind: 'memory', keyPrefix: 'claim:' })],
])('claiming a signature with the charges (%s)', (name, open) => {
  it('charges and claims together; a replay charges nothing; a rejected charge still uses the signature up', async () => {
    const store = await open();
    stores.push(store);
    const charges = [bucket(`a:${name}`, 2), bucket(`b:${name}`, 5)];
    expect(await store.chargeBuckets(charges, claim(1))).toMatchObject({ admitted: true, remaining: [1, 4] });
    expect(await store.chargeBuckets(charges, claim(1))).toEqual({ admitted: false, replayed: true });
    expect(await store.chargeBuckets(charges, claim(2))).toMatchObject({ admitted: true, remaining: [0, 3] });
    expect(await store.chargeBuckets(charges, claim(3))).toMatchObject({ admitted: false, rejectedIndex: 0 });
    expect(await store.chargeBuckets(charges, claim(3))).toEqual({ admitted: false, replayed: true });
    expect(await store.hashGet('lastUsed', ['ak_1'])).toEqual(['3']);
    // No bucket at all: the claim alone.
    expect(await store.chargeBuckets([], claim(4))).toMatchObject({ admitted: true });
    expect(await store.chargeBuckets([], claim(4))).toEqual({ admitted: false, replayed: true });
  });
});

describe('round trips', () => {
  it('a signed mutation costs one Redis command: the claim, the last-use write and three buckets in one EVALSHA', async () => {
    const store = await openSharedStore({ kind: 'redis', url: redis.url, keyPrefix: 'trips:' });
    stores.push(store);
    const charges = [bucket('x', 100), bucket('y', 100), bucket('z', 100)];
    await store.chargeBuckets(charges, claim(100));
    const monitor = await monitorOf(redis.url);
    try {
      const seen: string[] = [];
      // Commands a script runs are reported with source "lua": only the client's own count.
      monitor.on('monitor', (_time: string, args: string[], source: string) => {
        if (!source.includes('lua')) seen.push(String(args[0]).toLowerCase());
      });
      await new Promise((r) => setTimeout(r, 100));
      await store.chargeBuckets(charges, claim(101));
      await new Promise((r) => setTimeout(r, 100));
      expect(seen).toEqual(['evalsha']);
    } finally {
      monitor.disconnect();
    }
  });

  it('a signed POST /v1/orders makes one Redis call (the signature claimed in the script that charges it; the events it publishes after commit aside), a signed read one round trip (SET, and HSET pipelined with it when the last use is due)', async () => {
    const store = await openSharedStore({ kind: 'redis', url: redis.url, keyPrefix: 'e2e:' });
    stores.push(store);
    const server = await startTestApp({ store });
    const monitor = await monitorOf(redis.url);
    try {
      const owner = await trader(server.url, { USDC: '100000' });
      await liftLimits(server.url, owner.rootAccountId);
      const terms = await api(server.url, 'GET', '/v1/auth/terms', undefined, owner.auth);
      await api(server.url, 'POST', '/v1/auth/terms/accept', { version: terms.body.currentVersion }, owner.auth);
      const policy = await api(server.url, 'POST', '/v1/auth/api-policies', { name: 'rt', permissions: ['READ', 'TRADE'] }, owner.auth);
      const pair = newKeyPair();
      const created = await api(server.url, 'POST', '/v1/auth/api-keys', { label: 'k', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), policyId: policy.body.policy.policyId }, owner.auth);
      const key = { keyId: created.body.apiKey.keyId, ...pair };
      const order = { order: { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.001', limitGtc: { price: '1000' } } };
      // Warm: the key and the account's tier and overrides are cached after a first request.
      expect((await signed(server.url, key, 'POST', '/v1/orders', order)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 100));
      const seen: string[] = [];
      monitor.on('monitor', (_time: string, args: string[], source: string) => {
        if (!source.includes('lua')) seen.push(String(args[0]).toLowerCase());
      });
      expect((await signed(server.url, key, 'POST', '/v1/orders', order)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 100));
      // Order entry's first effect is its charge: the signature is used up in the same script (issue 29).
      expect(seen.filter((c) => c !== 'publish')).toEqual(['evalsha']);
      seen.length = 0;
      expect((await signed(server.url, key, 'GET', '/v1/orders/open?symbol=BTC-USDC')).status).toBe(200);
      await new Promise((r) => setTimeout(r, 100));
      expect(seen.filter((c) => c !== 'publish').length).toBeLessThanOrEqual(2);
      expect(seen).toContain('set');
    } finally {
      monitor.disconnect();
      await server.close();
    }
  });
});


describe('order entry claims its signature with its charge (issue 29)', () => {
  async function keyWith(url: string, permissions: string[]) {
    const owner = await trader(url, { USDC: '100000' });
    await liftLimits(url, owner.rootAccountId);
    const terms = await api(url, 'GET', '/v1/auth/terms', undefined, owner.auth);
    await api(url, 'POST', '/v1/auth/terms/accept', { version: terms.body.currentVersion }, owner.auth);
    const policy = await api(url, 'POST', '/v1/auth/api-policies', { name: 'p', permissions }, owner.auth);
    const pair = newKeyPair();
    const created = await api(url, 'POST', '/v1/auth/api-keys', { label: 'k', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), policyId: policy.body.policy.policyId }, owner.auth);
    return { keyId: created.body.apiKey.keyId as string, ...pair };
  }
  const order = { order: { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.001', limitGtc: { price: '1000' } } };

  it('a refusal before the charge (403) uses the signature up before its answer: the replay is 401, the Redis calls a SET each', async () => {
    const own = await RedisServer.start();
    const store = await openSharedStore({ kind: 'redis', url: own.url, keyPrefix: 'refused:' });
    const server = await startTestApp({ store });
    const monitor = await monitorOf(own.url);
    try {
      const key = await keyWith(server.url, ['READ']);
      const timestamp = String(Date.now());
      const seen: string[] = [];
      monitor.on('monitor', (_time: string, args: string[], source: string) => {
        if (!source.includes('lua')) seen.push(String(args[0]).toLowerCase());
      });
      const first = await signed(server.url, key, 'POST', '/v1/orders', order, { timestamp });
      expect({ status: first.status, code: first.body.code }).toEqual({ status: 403, code: 'MISSING_PERMISSION' });
      const replay = await signed(server.url, key, 'POST', '/v1/orders', order, { timestamp });
      expect({ status: replay.status, code: replay.body.code }).toEqual({ status: 401, code: 'REPLAYED_REQUEST' });
      await new Promise((r) => setTimeout(r, 100));
      expect(seen.filter((c) => c === 'set' || c === 'evalsha')).toEqual(['set', 'set']);
    } finally {
      monitor.disconnect();
      await server.close();
      await store.close();
      await own.kill();
    }
  });

  it('while Redis is away an order is 503 with nothing done, and its replay 401 (this process keeps the claim)', async () => {
    const own = await RedisServer.start();
    const store = await openSharedStore({ kind: 'redis', url: own.url, keyPrefix: 'away:' });
    const server = await startTestApp({ store });
    try {
      const key = await keyWith(server.url, ['READ', 'TRADE']);
      expect((await signed(server.url, key, 'POST', '/v1/orders', order)).status).toBe(200);
      await own.kill();
      await pollUntil(() => !store.available, 5_000);
      const timestamp = String(Date.now());
      const first = await signed(server.url, key, 'POST', '/v1/orders', order, { timestamp });
      expect({ status: first.status, code: first.body.code }).toEqual({ status: 503, code: 'RATE_LIMIT_AUTHORITY_UNAVAILABLE' });
      const replay = await signed(server.url, key, 'POST', '/v1/orders', order, { timestamp });
      expect({ status: replay.status, code: replay.body.code }).toEqual({ status: 401, code: 'REPLAYED_REQUEST' });
      const open = await signed(server.url, key, 'GET', '/v1/orders/open?symbol=BTC-USDC');
      expect(open.body.orders).toHaveLength(1);
    } finally {
      await server.close();
      await store.close();
      await own.kill();
    }
  });
});
