import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signIn } from '../helpers/auth.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';

let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

describe('wallet sign-in', () => {
  it('creates the root account on first sign-in and returns to it on the next', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const first = await signIn(server.url, wallet);
    expect(first.rootAccountId).toMatch(/^[1-9A-HJ-NP-Za-km-z]+$/);
    expect(first.token).toMatch(/^st_/);
    const second = await signIn(server.url, wallet);
    expect(second.rootAccountId).toBe(first.rootAccountId);
    expect(second.token).not.toBe(first.token);
  });

  it('issues a message valid five minutes', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const before = Date.now();
    const r = await api(server.url, 'POST', '/v1/auth/wallet/nonce', { address: wallet.address });
    expect(r.status).toBe(200);
    expect(r.body.message).toContain(wallet.address);
    expect(r.body.message).toContain(`Nonce: ${r.body.nonce}`);
    const ttl = Date.parse(r.body.expiresAt) - before;
    expect(ttl).toBeGreaterThan(299_000);
    expect(ttl).toBeLessThanOrEqual(301_000);
  });

  it('accepts a message once: a reused one is 401', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const nonce = await api(server.url, 'POST', '/v1/auth/wallet/nonce', { address: wallet.address });
    const signature = await wallet.signMessage({ message: nonce.body.message });
    const body = { address: wallet.address, message: nonce.body.message, signature };
    expect((await api(server.url, 'POST', '/v1/auth/wallet/login', body)).status).toBe(200);
    const again = await api(server.url, 'POST', '/v1/auth/wallet/login', body);
    expect(again.status).toBe(401);
    expect(again.body).toMatchObject({ status: 401, code: 'INVALID_SIGN_IN' });
  });

  it('refuses a signature by another wallet', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const other = privateKeyToAccount(generatePrivateKey());
    const nonce = await api(server.url, 'POST', '/v1/auth/wallet/nonce', { address: wallet.address });
    const signature = await other.signMessage({ message: nonce.body.message });
    const r = await api(server.url, 'POST', '/v1/auth/wallet/login', { address: wallet.address, message: nonce.body.message, signature });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('INVALID_SIGNATURE');
  });

  it('refuses an expired message', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const nonce = await api(server.url, 'POST', '/v1/auth/wallet/nonce', { address: wallet.address });
    await server.database.prisma.walletNonce.update({
      where: { nonce: nonce.body.nonce },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const signature = await wallet.signMessage({ message: nonce.body.message });
    const r = await api(server.url, 'POST', '/v1/auth/wallet/login', { address: wallet.address, message: nonce.body.message, signature });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('INVALID_SIGN_IN');
  });

  it('refuses an address with a wrong EIP-55 checksum', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const flipped = wallet.address.replace(/[a-f]/, (c) => c.toUpperCase());
    const r = await api(server.url, 'POST', '/v1/auth/wallet/nonce', { address: flipped });
    expect(r.status).toBe(400);
    expect(r.body.violations).toEqual([{ fieldPath: 'address', message: expect.any(String), ruleId: 'evm-checksum' }]);
  });

  it('revokes a session on logout', async () => {
    const who = await signIn(server.url);
    expect((await api(server.url, 'GET', '/v1/auth/terms', undefined, who.auth)).status).toBe(200);
    expect((await api(server.url, 'POST', '/v1/auth/logout', undefined, who.auth)).status).toBe(200);
    const after = await api(server.url, 'GET', '/v1/auth/terms', undefined, who.auth);
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ code: 'INVALID_SESSION', type: expect.stringMatching(/unauthenticated$/) });
  });

  it('refuses an expired session', async () => {
    const who = await signIn(server.url);
    await server.database.prisma.session.updateMany({
      where: { account: { publicId: who.rootAccountId } },
      data: { expiresAt: new Date(Date.now() - 1) },
    });
    expect((await api(server.url, 'GET', '/v1/auth/terms', undefined, who.auth)).status).toBe(401);
  });

  it('asks for credentials on authenticated operations', async () => {
    const r = await api(server.url, 'GET', '/v1/auth/terms');
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('CREDENTIALS_REQUIRED');
  });
});

describe('terms', () => {
  it('reports the accepted version, accepts only the current one', async () => {
    const who = await signIn(server.url);
    const before = await api(server.url, 'GET', '/v1/auth/terms', undefined, who.auth);
    expect(before.body).toEqual({ currentVersion: expect.any(String), acceptedVersion: '' });
    const wrong = await api(server.url, 'POST', '/v1/auth/terms/accept', { version: 'old' }, who.auth);
    expect(wrong.status).toBe(400);
    expect(wrong.body.violations[0].fieldPath).toBe('version');
    await api(server.url, 'POST', '/v1/auth/terms/accept', { version: before.body.currentVersion }, who.auth);
    const after = await api(server.url, 'GET', '/v1/auth/terms', undefined, who.auth);
    expect(after.body.acceptedVersion).toBe(before.body.currentVersion);
  });
});

describe('subaccounts', () => {
  it('creates and lists subaccounts newest first across pages, each wallet seeing only its own', async () => {
    const who = await signIn(server.url);
    const other = await signIn(server.url);
    const made: string[] = [];
    for (const label of ['one', 'two', 'three']) {
      const r = await api(server.url, 'POST', '/v1/auth/subaccounts', { label }, who.auth);
      expect(r.status).toBe(200);
      expect(r.body.subaccount).toEqual({ subaccountId: expect.any(String), label, createdAt: expect.any(String) });
      made.push(r.body.subaccount.subaccountId);
    }
    const page1 = await api(server.url, 'GET', '/v1/auth/subaccounts?limit=2', undefined, who.auth);
    expect(page1.body.subaccounts.map((s: { label: string }) => s.label)).toEqual(['three', 'two']);
    const page2 = await api(server.url, 'GET', `/v1/auth/subaccounts?limit=2&pageToken=${page1.body.nextPageToken}`, undefined, who.auth);
    expect(page2.body).toEqual({ subaccounts: [expect.objectContaining({ label: 'one' })], nextPageToken: '' });

    const theirs = await api(server.url, 'GET', '/v1/auth/subaccounts', undefined, other.auth);
    expect(theirs.body.subaccounts).toEqual([]);
    const stolen = await api(server.url, 'GET', `/v1/auth/subaccounts?limit=2&pageToken=${page1.body.nextPageToken}`, undefined, other.auth);
    expect(stolen.status).toBe(400);
    expect(stolen.body.violations[0]).toMatchObject({ fieldPath: 'pageToken', ruleId: 'page-token' });
  });

  it('validates the label', async () => {
    const who = await signIn(server.url);
    const r = await api(server.url, 'POST', '/v1/auth/subaccounts', { label: '' }, who.auth);
    expect(r.status).toBe(400);
    expect(r.body.violations[0]).toMatchObject({ fieldPath: 'label', ruleId: 'length' });
  });
});
