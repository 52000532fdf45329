import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, clientAddress, liftLimits, newKeyPair, onboard, signIn, type SignedIn } from '../helpers/auth.ts';
import { openDatabase } from '../../src/infra/database.ts';
import { startTestApp, tempDir, TEST_OPERATOR_TOKEN, type RunningApp } from '../helpers/infra.ts';

/**
 * Every create and accept operation, sent N times at once, answers as N sent one after
 * another would: the same statuses and codes, and the same rows in the database.
 */
let server: RunningApp;
const N = 6;
const operator = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };


type Response = { status: number; body: any };
/** The multiset of outcomes, comparable between a burst and a sequence. */
const outcomes = (rs: Response[]) => rs.map((r) => `${r.status} ${r.body?.code ?? ''}`).sort();

async function burst(send: () => Promise<Response>): Promise<Response[]> {
  return Promise.all(Array.from({ length: N }, send));
}
async function inRow(send: () => Promise<Response>): Promise<Response[]> {
  const out: Response[] = [];
  for (let i = 0; i < N; i++) out.push(await send());
  return out;
}

function expectNo5xx(rs: Response[]) {
  for (const r of rs) expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
}

describe.each(['PostgreSQL', 'PGlite'])('N identical creates at once answer as N in a row, on %s', (backend) => {
  let embedded: { close(): Promise<void>; remove(): Promise<void> } | undefined;
  beforeAll(async () => {
    if (backend === 'PGlite') {
      const { dir, remove } = await tempDir();
      const database = await openDatabase({ kind: 'pglite', dataDir: dir });
      embedded = { close: () => database.close(), remove };
      server = await startTestApp({ database });
    } else {
      server = await startTestApp();
    }
  });
  afterAll(async () => {
    await server?.close();
    await embedded?.close();
    await embedded?.remove();
  });

  it('API keys with one public key: one is created, the others 409, and one key is active', async () => {
    const [a, b] = [await onboard(server.url), await onboard(server.url)];
    const create = (who: SignedIn, publicKey: Uint8Array) => () =>
      api(server.url, 'POST', '/v1/auth/api-keys', { label: 'bot', publicKeyEd25519: Buffer.from(publicKey).toString('base64') }, who.auth);
    const sequential = await inRow(create(a, newKeyPair().publicKey));
    const key = newKeyPair().publicKey;
    const concurrent = await burst(create(b, key));
    expectNo5xx(concurrent);
    expect(outcomes(concurrent)).toEqual(outcomes(sequential));
    expect(outcomes(concurrent).filter((o) => o.startsWith('200'))).toHaveLength(1);
    const rows = await server.database.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "ApiKey" WHERE "publicKeyEd25519" = $1 AND status = 'ACTIVE'`,
      [Buffer.from(key)],
    );
    expect(rows[0]?.n).toBe(1);
  });

  it('API keys: the same public key from two accounts at once is one key, and the refusal names no one', async () => {
    const [a, b] = [await onboard(server.url), await onboard(server.url)];
    const key = Buffer.from(newKeyPair().publicKey).toString('base64');
    const rs = await Promise.all(
      [a, b, a, b].map((who) => api(server.url, 'POST', '/v1/auth/api-keys', { label: 'x', publicKeyEd25519: key }, who.auth)),
    );
    expectNo5xx(rs);
    expect(rs.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of rs.filter((r) => r.status !== 200)) {
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('CONFLICT_DUPLICATE_PUBLIC_KEY');
      expect(JSON.stringify(r.body)).not.toContain(a.rootAccountId);
      expect(JSON.stringify(r.body)).not.toContain(b.rootAccountId);
    }
  });

  it('terms acceptance (a double click): every request 200', async () => {
    const [a, b] = [await onboard(server.url), await onboard(server.url)];
    const version = (await api(server.url, 'GET', '/v1/auth/terms', undefined, a.auth)).body.currentVersion;
    const accept = (who: SignedIn) => () => api(server.url, 'POST', '/v1/auth/terms/accept', { version }, who.auth);
    // onboard() accepted already; fresh sign-ins have not, so both paths are raced.
    const fresh = await onboardWithoutTerms();
    const concurrent = [...(await burst(accept(fresh))), ...(await burst(accept(b)))];
    expectNo5xx(concurrent);
    const sequential = [...(await inRow(accept(await onboardWithoutTerms()))), ...(await inRow(accept(a)))];
    expect(outcomes(concurrent)).toEqual(outcomes(sequential));
    expect(concurrent.every((r) => r.status === 200)).toBe(true);
  });

  it('operator rate-limit overrides for a new target: every request 200, one override', async () => {
    const [a, b] = [await onboard(server.url), await onboard(server.url)];
    const put = (who: SignedIn) => () =>
      api(server.url, 'PUT', '/operator/v1/rate-limit-overrides', { pool: 'GUARD_SIGN', accountId: who.rootAccountId, quotaWeight: '7', periodMs: '1000', burstWeight: '7' }, operator);
    const concurrent = await burst(put(a));
    expectNo5xx(concurrent);
    expect(outcomes(concurrent)).toEqual(outcomes(await inRow(put(b))));
    const rows = await server.database.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "RateLimitOverride" o JOIN "Account" a ON a.id = o."accountId" WHERE a."publicId" = $1 AND o.pool = 'GUARD_SIGN'`,
      [a.rootAccountId],
    );
    expect(rows[0]?.n).toBe(1);
  });

  it('first sign-ins of one wallet with several nonces: one root account, every login 200', async () => {
    const login = async (wallet: ReturnType<typeof privateKeyToAccount>) => {
      const from = clientAddress();
      const nonce = await api(server.url, 'POST', '/v1/auth/wallet/nonce', { address: wallet.address }, from);
      const signature = await wallet.signMessage({ message: nonce.body.message });
      return () => api(server.url, 'POST', '/v1/auth/wallet/login', { address: wallet.address, message: nonce.body.message, signature }, from);
    };
    const wallet = privateKeyToAccount(generatePrivateKey());
    const sends = await Promise.all(Array.from({ length: N }, () => login(wallet)));
    const concurrent = await Promise.all(sends.map((send) => send()));
    expectNo5xx(concurrent);
    const other = privateKeyToAccount(generatePrivateKey());
    const sequential: Response[] = [];
    for (let i = 0; i < N; i++) sequential.push(await (await login(other))());
    expect(outcomes(concurrent)).toEqual(outcomes(sequential));
    expect(new Set(concurrent.map((r) => r.body.rootAccountId)).size).toBe(1);
  });

  it('API policies and subaccounts: N created either way', async () => {
    const [a, b] = [await onboard(server.url), await onboard(server.url)];
    for (const [path, body] of [
      ['/v1/auth/api-policies', { name: 'p', permissions: ['READ'] }],
      ['/v1/auth/subaccounts', { label: 's' }],
    ] as const) {
      const concurrent = await burst(() => api(server.url, 'POST', path, body, a.auth));
      expectNo5xx(concurrent);
      expect(outcomes(concurrent)).toEqual(outcomes(await inRow(() => api(server.url, 'POST', path, body, b.auth))));
    }
  });

  it('address-book entries, and one tag put on one entry: N created, the tag on it once', async () => {
    const [a, b] = [await onboard(server.url), await onboard(server.url)];
    const entry = { kind: 'EXTERNAL_CHAIN', label: 'e', external: { address: '0x52908400098527886E0F7030069857D2E4169EE7', registryChainId: 1 } };
    const create = (who: SignedIn) => () => api(server.url, 'POST', '/v1/auth/address-book-entries', entry, who.auth);
    const concurrent = await burst(create(a));
    expectNo5xx(concurrent);
    expect(outcomes(concurrent)).toEqual(outcomes(await inRow(create(b))));
    const tagOnce = async (who: SignedIn) => {
      const entryId = (await create(who)()).body.entry.addressBookEntryId;
      const tagId = (await api(server.url, 'POST', '/v1/auth/address-book-tags', { name: 't' }, who.auth)).body.tag.tagId;
      return { entryId, send: () => api(server.url, 'POST', `/v1/auth/address-book-entries/${entryId}/tags`, { tagId }, who.auth) };
    };
    const [x, y] = [await tagOnce(a), await tagOnce(b)];
    const tagged = await burst(x.send);
    expectNo5xx(tagged);
    expect(outcomes(tagged)).toEqual(outcomes(await inRow(y.send)));
    const final = await api(server.url, 'GET', `/v1/auth/address-book-entries/${x.entryId}`, undefined, a.auth);
    expect(final.body.entry.tags).toHaveLength(1);
  });

  it('sign-in nonces for one address: N issued either way', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const nonce = () => api(server.url, 'POST', '/v1/auth/wallet/nonce', { address: wallet.address }, clientAddress());
    const concurrent = await burst(nonce);
    expectNo5xx(concurrent);
    expect(outcomes(concurrent)).toEqual(outcomes(await inRow(nonce)));
  });

  it('address-book tags with one name: one created, the others 409', async () => {
    const [a, b] = [await onboard(server.url), await onboard(server.url)];
    const create = (who: SignedIn) => () => api(server.url, 'POST', '/v1/auth/address-book-tags', { name: 'same' }, who.auth);
    const concurrent = await burst(create(a));
    expectNo5xx(concurrent);
    expect(outcomes(concurrent)).toEqual(outcomes(await inRow(create(b))));
  });
});

async function onboardWithoutTerms(): Promise<SignedIn> {
  const who = await signIn(server.url);
  await liftLimits(server.url, who.rootAccountId);
  return who;
}
