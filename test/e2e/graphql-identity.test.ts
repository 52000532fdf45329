import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AcceptTermsDocument,
  CreateApiKeyDocument,
  CreateApiPolicyDocument,
  CreateSubaccountDocument,
  RequestWalletNonceDocument,
  RevokeApiKeyDocument,
  UpdateApiKeyDocument,
  ViewerDocument,
  WalletLoginDocument,
  ServerTimeDocument,
  NodeDocument,
  OrderUpdatesDocument,
} from '../generated/graphql/graphql.ts';
import { api, liftLimits, newKeyPair, signHeaders, type ClientKey } from '../helpers/auth.ts';
import { apiKeyConnectionParams, collect, gql, wsClient } from '../helpers/graphql.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';

let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

async function graphqlSignIn() {
  const wallet = privateKeyToAccount(generatePrivateKey());
  const nonce = await gql(server.url, RequestWalletNonceDocument, { address: wallet.address });
  const message = nonce.body.data!.requestWalletNonce.message;
  const signature = await wallet.signMessage({ message });
  const login = await gql(server.url, WalletLoginDocument, { address: wallet.address, message, signature });
  const session = login.body.data!.walletLogin;
  await liftLimits(server.url, session.rootAccountId);
  return { ...session, auth: { authorization: `Bearer ${session.sessionToken}` } };
}

describe('identity over GraphQL, through the same services', () => {
  it('signs in, accepts terms, creates subaccounts, a policy and a key, and pages the viewer’s connections', async () => {
    const me = await graphqlSignIn();
    const viewer0 = await gql(server.url, ViewerDocument, { first: 10 }, me.auth);
    expect(viewer0.body.data?.viewer).toMatchObject({ rootAccountId: me.rootAccountId, credential: 'session', terms: { acceptedVersion: '' } });
    const version = viewer0.body.data!.viewer.terms.currentVersion;

    const accepted = await gql(server.url, AcceptTermsDocument, { version }, me.auth);
    expect(accepted.body.data?.acceptTerms.acceptedVersion).toBe(version);

    for (const label of ['s1', 's2', 's3']) {
      const r = await gql(server.url, CreateSubaccountDocument, { label }, me.auth);
      expect(r.body.data?.createSubaccount.label).toBe(label);
    }
    const policy = await gql(server.url, CreateApiPolicyDocument, { name: 'all', permissions: ['READ', 'TRADE'] }, me.auth);
    expect(policy.body.data?.createApiPolicy.permissions).toEqual(['READ', 'TRADE']);
    const pair = newKeyPair();
    const created = await gql(
      server.url,
      CreateApiKeyDocument,
      { input: { label: 'gql', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), policyId: policy.body.data!.createApiPolicy.policyId } },
      me.auth,
    );
    const key = created.body.data!.createApiKey;
    expect(key).toMatchObject({ label: 'gql', status: 'ACTIVE', revision: '1', lastUsedAt: null, expiresAt: null });

    const page1 = await gql(server.url, ViewerDocument, { first: 2 }, me.auth);
    const subs1 = page1.body.data!.viewer.subaccounts;
    expect(subs1.edges.map((e) => e.node.label)).toEqual(['s3', 's2']);
    expect(subs1.pageInfo.hasNextPage).toBe(true);
    const page2 = await gql(server.url, ViewerDocument, { first: 2, after: subs1.pageInfo.endCursor }, me.auth);
    expect(page2.body.data!.viewer.subaccounts.edges.map((e) => e.node.label)).toEqual(['s1']);
    expect(page2.body.data!.viewer.apiKeys.edges.map((e) => e.node.keyId)).toEqual([key.keyId]);

    const updated = await gql(server.url, UpdateApiKeyDocument, { keyId: key.keyId, input: { expectedRevision: '1', label: 'renamed' } }, me.auth);
    expect(updated.body.data?.updateApiKey).toMatchObject({ label: 'renamed', revision: '2' });
    const stale = await gql(server.url, UpdateApiKeyDocument, { keyId: key.keyId, input: { expectedRevision: '1', label: 'x' } }, me.auth);
    expect(stale.body.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT_STALE_REVISION', key: 'conflict' });

    // The key itself reaches GraphQL with a signed POST, like any /v1 request.
    const clientKey: ClientKey = { keyId: key.keyId, ...pair };
    const body = JSON.stringify({ query: ViewerDocument.toString(), variables: { first: 1 } });
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signHeaders(clientKey, 'POST', '/graphql', body) },
      body,
    });
    const signedView = (await res.json()) as { data: { viewer: { credential: string; rootAccountId: string } } };
    expect(signedView.data.viewer).toMatchObject({ credential: 'apiKey', rootAccountId: me.rootAccountId });
    // Reading an account needs READ: this key has it, a key without a policy does not.
    const rootNode = async (k: ClientKey) => {
      const nodeBody = JSON.stringify({ query: NodeDocument.toString(), variables: { id: Buffer.from(`Account:${me.rootAccountId}`).toString('base64') } });
      const nodeRes = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signHeaders(k, 'POST', '/graphql', nodeBody) },
        body: nodeBody,
      });
      return ((await nodeRes.json()) as { data: { node: unknown } }).data.node;
    };
    expect(await rootNode(clientKey)).not.toBeNull();
    const barePair = newKeyPair();
    const bare = await gql(server.url, CreateApiKeyDocument, { input: { label: 'bare', publicKeyEd25519: Buffer.from(barePair.publicKey).toString('base64') } }, me.auth);
    expect(await rootNode({ keyId: bare.body.data!.createApiKey.keyId, ...barePair })).toBeNull();

    const revoked = await gql(server.url, RevokeApiKeyDocument, { keyId: key.keyId }, me.auth);
    expect(revoked.body.data?.revokeApiKey).toMatchObject({ status: 'REVOKED', revision: '3' });
  });

  it('answers an anonymous viewer query with the 401 fields', async () => {
    const r = await gql(server.url, ViewerDocument, {});
    expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: 'CREDENTIALS_REQUIRED', key: 'unauthenticated', status: 401 });
  });

  it('another wallet cannot change my key (not found)', async () => {
    const me = await graphqlSignIn();
    const version = (await gql(server.url, ViewerDocument, {}, me.auth)).body.data!.viewer.terms.currentVersion;
    await gql(server.url, AcceptTermsDocument, { version }, me.auth);
    const created = await gql(server.url, CreateApiKeyDocument, { input: { label: 'mine', publicKeyEd25519: Buffer.from(newKeyPair().publicKey).toString('base64') } }, me.auth);
    const other = await graphqlSignIn();
    const r = await gql(server.url, RevokeApiKeyDocument, { keyId: created.body.data!.createApiKey.keyId }, other.auth);
    expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: 'API_KEY_NOT_FOUND', status: 404 });
  });

  it('authenticates graphql-ws connections at connection_init and refuses bad credentials', async () => {
    const me = await graphqlSignIn();
    const good = wsClient(server.url, { authorization: `Bearer ${me.sessionToken}` });
    try {
      const results = await collect(good, ServerTimeDocument, { count: 1 }, 1);
      expect(results[0]?.data?.serverTime).toBeDefined();
    } finally {
      await good.dispose();
    }
    const bad = wsClient(server.url, { authorization: 'Bearer st_not-a-session' });
    try {
      await expect(collect(bad, ServerTimeDocument, { count: 1 }, 1)).rejects.toBeDefined();
    } finally {
      await bad.dispose();
    }
  });

  /** A socket with a live private subscription, and the close code it ends with. */
  function openSocket(connectionParams: Record<string, string>) {
    const client = wsClient(server.url, connectionParams);
    const closed = new Promise<number>((resolve) => client.on('closed', (event) => resolve((event as { code: number }).code)));
    client.subscribe({ query: OrderUpdatesDocument.toString() }, { next: () => undefined, error: () => undefined, complete: () => undefined });
    return { client, closed };
  }

  it('closes an open socket whose API key is revoked, at its next operation', async () => {
    const me = await graphqlSignIn();
    const version = (await gql(server.url, ViewerDocument, {}, me.auth)).body.data!.viewer.terms.currentVersion;
    await gql(server.url, AcceptTermsDocument, { version }, me.auth);
    const policy = await gql(server.url, CreateApiPolicyDocument, { name: 'read', permissions: ['READ'] }, me.auth);
    const pair = newKeyPair();
    const created = await gql(server.url, CreateApiKeyDocument, { input: { label: 'ws', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), policyId: policy.body.data!.createApiPolicy.policyId } }, me.auth);
    const key: ClientKey = { keyId: created.body.data!.createApiKey.keyId, ...pair };
    const { client, closed } = openSocket(apiKeyConnectionParams(key));
    try {
      expect((await collect(client, ServerTimeDocument, { count: 1 }, 1))[0]?.data?.serverTime).toBeDefined();
      await gql(server.url, RevokeApiKeyDocument, { keyId: key.keyId }, me.auth);
      await expect(collect(client, ServerTimeDocument, { count: 1 }, 1)).rejects.toBeDefined();
      expect(await closed).toBe(4403);
    } finally {
      await client.dispose();
    }
  });

  it('closes an open socket within seconds of its session ending, with no operation sent', async () => {
    const me = await graphqlSignIn();
    const { client, closed } = openSocket({ authorization: `Bearer ${me.sessionToken}` });
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect((await api(server.url, 'POST', '/v1/auth/logout', undefined, me.auth)).status).toBe(200);
      expect(await closed).toBe(4403);
    } finally {
      await client.dispose();
    }
  }, 15_000);
});
