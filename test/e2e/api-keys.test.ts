import { LAST_USED_HASH } from '../../src/auth/authenticate.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, newKeyPair, onboard, signed, signIn, type ClientKey, type SignedIn } from '../helpers/auth.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';

let server: RunningApp;
let owner: SignedIn;
let readPolicy: string;
let tradePolicy: string;

beforeAll(async () => {
  server = await startTestApp();
  owner = await onboard(server.url);
  readPolicy = (await api(server.url, 'POST', '/v1/auth/api-policies', { name: 'read', permissions: ['READ'] }, owner.auth)).body.policy.policyId;
  tradePolicy = (await api(server.url, 'POST', '/v1/auth/api-policies', { name: 'trade', permissions: ['TRADE'] }, owner.auth)).body.policy.policyId;
});
afterAll(async () => {
  await server?.close();
});

async function makeKey(who: SignedIn, extra: Record<string, unknown> = {}): Promise<ClientKey & { body: any }> {
  const pair = newKeyPair();
  const r = await api(
    server.url,
    'POST',
    '/v1/auth/api-keys',
    { label: 'bot', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), ...extra },
    who.auth,
  );
  if (r.status !== 200) throw new Error(`create key: ${r.status} ${JSON.stringify(r.body)}`);
  return { keyId: r.body.apiKey.keyId, ...pair, body: r.body.apiKey };
}

function expectProblem(r: { status: number; body: any }, status: number, code: string) {
  expect(r.status).toBe(status);
  expect(r.body).toMatchObject({ status, code, type: expect.stringMatching(status === 401 ? /unauthenticated$/ : /permission-denied$/) });
}

describe('a third party onboards and signs requests', () => {
  it('signs in with a wallet, accepts terms, creates a policy and an Ed25519 key, then makes signed requests', async () => {
    const me = await signIn(server.url);
    const terms = await api(server.url, 'GET', '/v1/auth/terms', undefined, me.auth);
    await api(server.url, 'POST', '/v1/auth/terms/accept', { version: terms.body.currentVersion }, me.auth);
    const policy = await api(server.url, 'POST', '/v1/auth/api-policies', { name: 'reader', permissions: ['READ'] }, me.auth);
    expect(policy.body.policy).toEqual({ policyId: expect.any(String), name: 'reader', permissions: ['READ'], createdAt: expect.any(String) });

    const key = await makeKey(me, { policyId: policy.body.policy.policyId, icon: '🤖', color: 'teal', ipWhitelist: ['127.0.0.1/32', '::1'] });
    expect(key.keyId).toMatch(/^ak_[0-9a-f]{32}$/);
    expect(key.body).toEqual({
      keyId: key.keyId,
      label: 'bot',
      icon: '🤖',
      color: 'teal',
      ipWhitelist: ['127.0.0.1/32', '::1/128'],
      status: 'ACTIVE',
      subaccountId: '',
      policyId: policy.body.policy.policyId,
      createdAt: expect.any(String),
      publicKeyEd25519: Buffer.from(key.publicKey).toString('base64'),
      createdByActor: `session:${me.rootAccountId}`,
      updatedAt: expect.any(String),
      revision: '1',
    });
    expect(key.body).not.toHaveProperty('lastUsedAt');

    const listed = await signed(server.url, key, 'GET', '/v1/auth/api-keys?limit=10');
    expect(listed.status).toBe(200);
    expect(listed.body.apiKeys.map((k: { keyId: string }) => k.keyId)).toEqual([key.keyId]);

    const one = await signed(server.url, key, 'GET', `/v1/auth/api-keys/${key.keyId}`);
    expect(one.status).toBe(200);
    expect(Date.parse(one.body.apiKey.lastUsedAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('keeps lastUsedAt current without writing the database on each request, and flushes it later', async () => {
    const key = await makeKey(owner, { policyId: readPolicy });
    const before = Date.now();
    expect((await signed(server.url, key, 'GET', '/v1/auth/terms')).status).toBe(200);
    const row = await server.database.prisma.apiKey.findUniqueOrThrow({ where: { keyId: key.keyId } });
    expect(row.lastUsedAt).toBeNull();
    const seen = await api(server.url, 'GET', `/v1/auth/api-keys/${key.keyId}`, undefined, owner.auth);
    expect(Date.parse(seen.body.apiKey.lastUsedAt)).toBeGreaterThanOrEqual(before);

    await server.app.services.apiKeys.flushLastUsed();
    const flushed = await server.database.prisma.apiKey.findUniqueOrThrow({ where: { keyId: key.keyId } });
    expect(flushed.lastUsedAt?.toISOString()).toBe(seen.body.apiKey.lastUsedAt);
  });

  it('records a busy key’s use once a second, not once a request', async () => {
    const key = await makeKey(owner, { policyId: readPolicy });
    const lastUsed = async () => Number((await server.store.hashGet(LAST_USED_HASH, [key.keyId]))[0]);
    expect((await signed(server.url, key, 'GET', '/v1/auth/terms')).status).toBe(200);
    const first = await lastUsed();
    for (let i = 0; i < 3; i++) expect((await signed(server.url, key, 'GET', '/v1/auth/terms')).status).toBe(200);
    // Unless a second passed meanwhile (a very slow machine), those were not written.
    if (Date.now() - first < 1_000) expect(await lastUsed()).toBe(first);
    await new Promise((r) => setTimeout(r, 1_050));
    expect((await signed(server.url, key, 'GET', '/v1/auth/terms')).status).toBe(200);
    expect(await lastUsed()).toBeGreaterThanOrEqual(first + 1_000);
  });
});

describe('signed requests rejected with 401', () => {
  it('unknown key', async () => {
    const key = { keyId: `ak_${'0'.repeat(32)}`, ...newKeyPair() };
    expectProblem(await signed(server.url, key, 'GET', '/v1/auth/terms'), 401, 'UNKNOWN_API_KEY');
  });

  it('bad signature: signed with another private key', async () => {
    const key = await makeKey(owner, { policyId: readPolicy });
    expectProblem(await signed(server.url, key, 'GET', '/v1/auth/terms', undefined, { secretKey: newKeyPair().secretKey }), 401, 'INVALID_SIGNATURE');
  });

  it('bad signature: the query string was changed after signing', async () => {
    const key = await makeKey(owner, { policyId: readPolicy });
    const r = await signed(server.url, key, 'GET', '/v1/auth/api-keys?limit=2', undefined, { signedPath: '/v1/auth/api-keys?limit=1' });
    expectProblem(r, 401, 'INVALID_SIGNATURE');
  });

  it('bad signature: the body was changed after signing', async () => {
    const key = await makeKey(owner, { policyId: readPolicy });
    const r = await signed(server.url, key, 'POST', '/v1/auth/subaccounts', { label: 'x' }, { signedBody: '{"label":"y"}' });
    expectProblem(r, 401, 'INVALID_SIGNATURE');
  });

  it('a timestamp more than 30 seconds from the server clock, either way', async () => {
    const key = await makeKey(owner, { policyId: readPolicy });
    expectProblem(await signed(server.url, key, 'GET', '/v1/auth/terms', undefined, { timestamp: String(Date.now() - 31_000) }), 401, 'TIMESTAMP_OUT_OF_WINDOW');
    expectProblem(await signed(server.url, key, 'GET', '/v1/auth/terms', undefined, { timestamp: String(Date.now() + 31_000) }), 401, 'TIMESTAMP_OUT_OF_WINDOW');
    // The refusal carries the server's clock, so a client can correct its skew.
    const sent = Date.now() - 31_000;
    const late = await signed(server.url, key, 'GET', '/v1/auth/terms', undefined, { timestamp: String(sent) });
    expect(late.body.serverTimeMs).toMatch(/^[0-9]+$/);
    expect(Number(late.body.serverTimeMs) - sent).toBeGreaterThan(30_000);
    expect((await signed(server.url, key, 'GET', '/v1/auth/terms', undefined, { timestamp: String(Date.now() - 20_000) })).status).toBe(200);
  });

  it('the same signature seen before (replay)', async () => {
    const key = await makeKey(owner, { policyId: readPolicy });
    const first = await signed(server.url, key, 'GET', '/v1/auth/terms');
    expect(first.status).toBe(200);
    const replay = await fetch(`${server.url}/v1/auth/terms`, { headers: first.sent });
    expectProblem({ status: replay.status, body: await replay.json() }, 401, 'REPLAYED_REQUEST');
    // The other 15 spellings of the same 64 bytes (the last character's 4 unused bits) are
    // not a way around the replay guard.
    const sig = first.sent['x-api-signature'];
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const last = alphabet.indexOf(sig[85] as string);
    for (let low = 1; low < 16; low++) {
      const variant = `${sig.slice(0, 85)}${alphabet[(last & ~15) | ((last & 15) ^ low)]}==`;
      expect(Buffer.from(variant, 'base64').equals(Buffer.from(sig, 'base64'))).toBe(true);
      const r = await fetch(`${server.url}/v1/auth/terms`, { headers: { ...first.sent, 'x-api-signature': variant } });
      expectProblem({ status: r.status, body: await r.json() }, 401, 'INVALID_SIGNATURE');
    }
  });

  it('a revoked key', async () => {
    const key = await makeKey(owner, { policyId: readPolicy });
    expect((await signed(server.url, key, 'GET', '/v1/auth/terms')).status).toBe(200);
    const revoked = await api(server.url, 'DELETE', `/v1/auth/api-keys/${key.keyId}`, undefined, owner.auth);
    expect(revoked.body.apiKey).toMatchObject({ status: 'REVOKED', revision: '2' });
    expectProblem(await signed(server.url, key, 'GET', '/v1/auth/terms'), 401, 'API_KEY_REVOKED');
  });

  it('an expired key, whatever its status', async () => {
    const key = await makeKey(owner, { policyId: readPolicy, expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    await server.database.prisma.apiKey.update({ where: { keyId: key.keyId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const r = await signed(server.url, key, 'GET', '/v1/auth/terms');
    expectProblem(r, 401, 'API_KEY_EXPIRED');
    const row = await server.database.prisma.apiKey.findUniqueOrThrow({ where: { keyId: key.keyId } });
    expect(row.status).toBe('ACTIVE');
  });

  it('incomplete signature headers', async () => {
    const r = await fetch(`${server.url}/v1/auth/terms`, { headers: { 'x-api-key-id': `ak_${'1'.repeat(32)}` } });
    expectProblem({ status: r.status, body: await r.json() }, 401, 'INCOMPLETE_SIGNATURE');
  });
});

describe('signed requests rejected with 403', () => {
  it('a client address outside a non-empty ipWhitelist', async () => {
    const key = await makeKey(owner, { policyId: readPolicy, ipWhitelist: ['10.0.0.0/8', '2001:db8::/32'] });
    expectProblem(await signed(server.url, key, 'GET', '/v1/auth/terms'), 403, 'IP_NOT_ALLOWED');
    const allowed = await makeKey(owner, { policyId: readPolicy, ipWhitelist: ['127.0.0.0/8'] });
    expect((await signed(server.url, allowed, 'GET', '/v1/auth/terms')).status).toBe(200);
  });

  it('a whitelisted address prepended to X-Forwarded-For: only the load balancer’s entry counts (TRUST_PROXY=true is one hop)', async () => {
    const key = await makeKey(owner, { policyId: readPolicy, ipWhitelist: ['203.0.113.0/24'] });
    const spoofed = await signed(server.url, key, 'GET', '/v1/auth/terms', undefined, { headers: { 'x-forwarded-for': '203.0.113.9, 198.51.100.1' } });
    expectProblem(spoofed, 403, 'IP_NOT_ALLOWED');
    expect((await signed(server.url, key, 'GET', '/v1/auth/terms', undefined, { headers: { 'x-forwarded-for': '198.51.100.1, 203.0.113.9' } })).status).toBe(200);
  });

  it('a permission the key’s policy lacks', async () => {
    const key = await makeKey(owner, { policyId: tradePolicy });
    expectProblem(await signed(server.url, key, 'GET', '/v1/auth/api-keys'), 403, 'MISSING_PERMISSION');
  });

  it('a key without a policy authenticates but may do nothing', async () => {
    const key = await makeKey(owner);
    expect((await signed(server.url, key, 'GET', '/v1/auth/terms')).status).toBe(200);
    expectProblem(await signed(server.url, key, 'GET', '/v1/auth/api-keys'), 403, 'MISSING_PERMISSION');
    expectProblem(await signed(server.url, key, 'GET', '/v1/auth/subaccounts'), 403, 'MISSING_PERMISSION');
  });

  it('a subaccount-scoped key acting on another account', async () => {
    const a = (await api(server.url, 'POST', '/v1/auth/subaccounts', { label: 'a' }, owner.auth)).body.subaccount.subaccountId;
    const b = (await api(server.url, 'POST', '/v1/auth/subaccounts', { label: 'b' }, owner.auth)).body.subaccount.subaccountId;
    const key = await makeKey(owner, { policyId: readPolicy, subaccountId: a });
    expect(key.body.subaccountId).toBe(a);
    const own = await signed(server.url, key, 'GET', `/v1/auth/address-book-entries?subaccountId=${a}`);
    expect(own.status).toBe(200);
    expectProblem(await signed(server.url, key, 'GET', `/v1/auth/address-book-entries?subaccountId=${b}`), 403, 'KEY_SCOPE_VIOLATION');
    // It sees only its own subaccount, and only keys scoped to it.
    const subs = await signed(server.url, key, 'GET', '/v1/auth/subaccounts');
    expect(subs.body.subaccounts.map((s: { subaccountId: string }) => s.subaccountId)).toEqual([a]);
    const keys = await signed(server.url, key, 'GET', '/v1/auth/api-keys');
    expect(keys.body.apiKeys.map((k: { keyId: string }) => k.keyId)).toEqual([key.keyId]);
  });

  it('key management with an API key instead of a session', async () => {
    const key = await makeKey(owner, { policyId: readPolicy });
    const pair = newKeyPair();
    const r = await signed(server.url, key, 'POST', '/v1/auth/api-keys', { label: 'x', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64') });
    expectProblem(r, 403, 'SESSION_REQUIRED');
  });

  it('creating a key before accepting the current terms', async () => {
    const fresh = await signIn(server.url);
    const r = await api(server.url, 'POST', '/v1/auth/api-keys', { label: 'x', publicKeyEd25519: Buffer.from(newKeyPair().publicKey).toString('base64') }, fresh.auth);
    expectProblem(r, 403, 'TERMS_NOT_ACCEPTED');
  });
});

describe('managing keys', () => {
  it('updates conditionally on the revision; a stale one is a 409 that changes nothing', async () => {
    const key = await makeKey(owner, { policyId: readPolicy });
    const changed = await api(server.url, 'PATCH', `/v1/auth/api-keys/${key.keyId}`, { expectedRevision: '1', label: 'renamed', ipWhitelist: ['192.168.1.0/24'], policyId: '' }, owner.auth);
    expect(changed.status).toBe(200);
    expect(changed.body.apiKey).toMatchObject({ label: 'renamed', ipWhitelist: ['192.168.1.0/24'], policyId: '', revision: '2' });
    expect(Date.parse(changed.body.apiKey.updatedAt)).toBeGreaterThan(Date.parse(key.body.updatedAt));

    const stale = await api(server.url, 'PATCH', `/v1/auth/api-keys/${key.keyId}`, { expectedRevision: '1', label: 'lost' }, owner.auth);
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: 'CONFLICT_STALE_REVISION', violations: [{ fieldPath: 'expectedRevision', ruleId: 'current-revision', message: expect.any(String) }] });
    const now = await api(server.url, 'GET', `/v1/auth/api-keys/${key.keyId}`, undefined, owner.auth);
    expect(now.body.apiKey.label).toBe('renamed');
  });

  it('validates the key’s fields', async () => {
    const pub = Buffer.from(newKeyPair().publicKey).toString('base64');
    const cases: [Record<string, unknown>, string, string][] = [
      [{ label: '', publicKeyEd25519: pub }, 'label', 'length'],
      [{ label: 'x'.repeat(65), publicKeyEd25519: pub }, 'label', 'length'],
      [{ label: 'x', publicKeyEd25519: Buffer.alloc(31).toString('base64') }, 'publicKeyEd25519', 'bytes-length'],
      // A small-order point (the identity) and a non-canonical encoding: no key pair has them.
      [{ label: 'x', publicKeyEd25519: Buffer.from([1, ...Array(31).fill(0)]).toString('base64') }, 'publicKeyEd25519', 'ed25519-point'],
      [{ label: 'x', publicKeyEd25519: Buffer.alloc(32, 255).toString('base64') }, 'publicKeyEd25519', 'ed25519-point'],
      [{ label: 'x', publicKeyEd25519: pub, ipWhitelist: ['not-an-ip'] }, 'ipWhitelist[0]', 'cidr'],
      [{ label: 'x', publicKeyEd25519: pub, ipWhitelist: ['10.0.0.1', '10.0.0.1/32'] }, 'ipWhitelist[1]', 'unique'],
      [{ label: 'x', publicKeyEd25519: pub, ipWhitelist: Array.from({ length: 33 }, (_, i) => `10.0.0.${i}`) }, 'ipWhitelist', 'max-items'],
      [{ label: 'x', publicKeyEd25519: pub, expiresAt: new Date(Date.now() - 1000).toISOString() }, 'expiresAt', 'future'],
    ];
    for (const [body, fieldPath, ruleId] of cases) {
      const r = await api(server.url, 'POST', '/v1/auth/api-keys', body, owner.auth);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(r.body.violations).toContainEqual({ fieldPath, ruleId, message: expect.any(String) });
    }
  });

  it('refuses a public key that is already registered', async () => {
    const key = await makeKey(owner);
    const r = await api(server.url, 'POST', '/v1/auth/api-keys', { label: 'x', publicKeyEd25519: Buffer.from(key.publicKey).toString('base64') }, owner.auth);
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('CONFLICT_DUPLICATE_PUBLIC_KEY');
  });
});

describe('isolation between accounts', () => {
  it('another wallet gets 404 for keys it does not own, and cannot attach my policy', async () => {
    const key = await makeKey(owner, { policyId: readPolicy });
    const other = await onboard(server.url);
    for (const [method, body] of [['GET', undefined], ['PATCH', { expectedRevision: '1', label: 'mine' }], ['DELETE', undefined]] as const) {
      const r = await api(server.url, method, `/v1/auth/api-keys/${key.keyId}`, body, other.auth);
      expect(r.status, method).toBe(404);
      expect(r.body.code).toBe('API_KEY_NOT_FOUND');
    }
    const list = await api(server.url, 'GET', '/v1/auth/api-keys', undefined, other.auth);
    expect(list.body.apiKeys).toEqual([]);
    const steal = await api(server.url, 'POST', '/v1/auth/api-keys', { label: 'x', publicKeyEd25519: Buffer.from(newKeyPair().publicKey).toString('base64'), policyId: readPolicy }, other.auth);
    expect(steal.status).toBe(404);
    expect(steal.body.code).toBe('API_POLICY_NOT_FOUND');
    const alive = await api(server.url, 'GET', `/v1/auth/api-keys/${key.keyId}`, undefined, owner.auth);
    expect(alive.body.apiKey).toMatchObject({ status: 'ACTIVE', label: 'bot' });
  });

  it('a subaccount-scoped key gets 404 for keys outside its subaccount', async () => {
    const sub = (await api(server.url, 'POST', '/v1/auth/subaccounts', { label: 'scoped' }, owner.auth)).body.subaccount.subaccountId;
    const scoped = await makeKey(owner, { policyId: readPolicy, subaccountId: sub });
    const rootKey = await makeKey(owner, { policyId: readPolicy });
    const r = await signed(server.url, scoped, 'GET', `/v1/auth/api-keys/${rootKey.keyId}`);
    expect(r.status).toBe(404);
  });
});

describe('store failures', () => {
  it('keeps signed reads working while Redis is away (replays still refused by this process), and answers mutations 503 RATE_LIMIT_AUTHORITY_UNAVAILABLE', async () => {
    const own = await startTestApp();
    try {
      const who = await onboard(own.url);
      const policy = (await api(own.url, 'POST', '/v1/auth/api-policies', { name: 'rt', permissions: ['READ', 'TRADE'] }, who.auth)).body.policy.policyId;
      const pair = newKeyPair();
      const created = await api(own.url, 'POST', '/v1/auth/api-keys', { label: 'k', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), policyId: policy }, who.auth);
      const key = { keyId: created.body.apiKey.keyId, ...pair };
      const order = { order: { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.001', limitGtc: { price: '1' } } };
      own.store.redis!.disconnect();

      const read = await signed(own.url, key, 'GET', '/v1/auth/terms');
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      const replay = await fetch(`${own.url}/v1/auth/terms`, { headers: read.sent });
      expect(replay.status).toBe(401);
      expect(((await replay.json()) as { code: string }).code).toBe('REPLAYED_REQUEST');

      const write = await signed(own.url, key, 'POST', '/v1/orders', order);
      expect(write.status).toBe(503);
      expect(write.body).toMatchObject({ code: 'RATE_LIMIT_AUTHORITY_UNAVAILABLE', reason: 'AUTHORITY_UNAVAILABLE' });

      await own.store.redis!.connect();
      // Redis never saw the signature this process accepted meanwhile: it is still refused.
      const later = await fetch(`${own.url}/v1/auth/terms`, { headers: read.sent });
      expect(later.status).toBe(401);
      const back = await signed(own.url, key, 'POST', '/v1/orders', order);
      expect(back.status, JSON.stringify(back.body)).not.toBe(503);
    } finally {
      if (own.store.redis!.status !== 'ready') await own.store.redis!.connect().catch(() => undefined);
      await own.close();
    }
  });
});
