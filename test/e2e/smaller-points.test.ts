import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, newKeyPair, onboard, signed, type ClientKey, type SignedIn } from '../helpers/auth.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';

/** Issue 16, class 6: policy listing scope, key uniqueness answers, duplicate JSON keys. */
let server: RunningApp;
let owner: SignedIn;
beforeAll(async () => {
  server = await startTestApp();
  owner = await onboard(server.url);
});
afterAll(async () => {
  await server?.close();
});

async function makeKey(who: SignedIn, extra: Record<string, unknown> = {}): Promise<ClientKey> {
  const pair = newKeyPair();
  const r = await api(server.url, 'POST', '/v1/auth/api-keys', { label: 'bot', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), ...extra }, who.auth);
  if (r.status !== 200) throw new Error(`create key: ${r.status} ${JSON.stringify(r.body)}`);
  return { keyId: r.body.apiKey.keyId, ...pair };
}

const policy = async (name: string) =>
  (await api(server.url, 'POST', '/v1/auth/api-policies', { name, permissions: ['READ'] }, owner.auth)).body.policy.policyId as string;

describe('API policies seen by a subaccount-scoped key', () => {
  it('are those of the keys scoped to its subaccount, not every policy of the root', async () => {
    const [mine, other, unused] = [await policy('mine'), await policy('other'), await policy('unused')];
    const a = (await api(server.url, 'POST', '/v1/auth/subaccounts', { label: 'a' }, owner.auth)).body.subaccount.subaccountId;
    const b = (await api(server.url, 'POST', '/v1/auth/subaccounts', { label: 'b' }, owner.auth)).body.subaccount.subaccountId;
    const scoped = await makeKey(owner, { policyId: mine, subaccountId: a });
    await makeKey(owner, { policyId: other, subaccountId: b });
    const seen = await signed(server.url, scoped, 'GET', '/v1/auth/api-policies');
    expect(seen.status).toBe(200);
    expect(seen.body.policies.map((p: { policyId: string }) => p.policyId)).toEqual([mine]);
    // A root-level key and the session still see every policy.
    const root = await makeKey(owner, { policyId: mine });
    const all = (await signed(server.url, root, 'GET', '/v1/auth/api-policies?limit=500')).body.policies.map((p: { policyId: string }) => p.policyId);
    expect(all).toEqual(expect.arrayContaining([mine, other, unused]));
  });
});

describe('a public key registered anywhere', () => {
  it('is refused with one answer whether the caller or another account holds it', async () => {
    const stranger = await onboard(server.url);
    const pair = newKeyPair();
    const body = { label: 'k', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64') };
    expect((await api(server.url, 'POST', '/v1/auth/api-keys', body, stranger.auth)).status).toBe(200);
    const theirs = await api(server.url, 'POST', '/v1/auth/api-keys', body, owner.auth);
    const own = await api(server.url, 'POST', '/v1/auth/api-keys', body, stranger.auth);
    for (const r of [theirs, own]) {
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('CONFLICT_DUPLICATE_PUBLIC_KEY');
    }
    const strip = (b: Record<string, unknown>) => ({ ...b, requestId: undefined });
    expect(strip(theirs.body)).toEqual(strip(own.body));
    expect(theirs.body.detail).not.toMatch(/account|registered by/i);
  });
});

describe('duplicate keys in a JSON body', () => {
  async function raw(path: string, text: string, headers: Record<string, string> = {}) {
    const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...owner.auth, ...headers }, body: text });
    return { status: res.status, body: (await res.json()) as any };
  }

  it.each([
    ['top level', '{"label":"a","label":"b"}'],
    ['escaped spelling of the same key', '{"label":"a","\\u006cabel":"b"}'],
  ])('are refused at the %s before anything is done', async (_, text) => {
    const before = (await api(server.url, 'GET', '/v1/auth/subaccounts?limit=500', undefined, owner.auth)).body.subaccounts.length;
    const r = await raw('/v1/auth/subaccounts', text);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.violations).toEqual([expect.objectContaining({ fieldPath: 'body', ruleId: 'duplicate-key' })]);
    expect((await api(server.url, 'GET', '/v1/auth/subaccounts?limit=500', undefined, owner.auth)).body.subaccounts.length).toBe(before);
  });

  it('are refused when nested, and in GraphQL bodies too', async () => {
    const nested = await raw('/v1/auth/api-policies', '{"name":"n","permissions":["READ"],"x":{"a":1,"a":2}}');
    expect(nested.status).toBe(400);
    expect(nested.body.violations[0].ruleId).toBe('duplicate-key');
    const g = await raw('/graphql', '{"query":"{ __typename }","query":"{ viewer { credential } }"}');
    expect(g.status).toBe(400);
    expect(g.body.code).toBe('BAD_REQUEST');
  });

  it('the same key in sibling objects is not a duplicate', async () => {
    const r = await raw('/v1/auth/api-policies', '{"name":"s","permissions":["READ"]}');
    expect(r.status).toBe(200);
    const batch = await raw('/graphql', '{"query":"query($a: String) { __typename }","variables":{"a":"x"},"extensions":{}}');
    expect(batch.status).toBe(200);
  });
});
