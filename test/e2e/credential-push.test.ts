import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrderUpdatesDocument } from '../generated/graphql/graphql.ts';
import { api, clientAddress, liftLimits, newKeyPair, signHeaders, signIn, type ClientKey, type SignedIn } from '../helpers/auth.ts';
import { apiKeyConnectionParams } from '../helpers/graphql.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { placeOrder, trader } from '../helpers/trading.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * Issue 16, class 1: a change to a credential reaches its open graphql-ws sockets at once.
 * For each kind of change, an `orderUpdates` subscription opened before it streams the
 * account's orders while orders keep being placed; after the change is acknowledged, not
 * one event of an order placed after that moment may reach the subscriber, and the stream
 * ends (or the socket closes with 4403 when the credential is dead).
 */
let server: RunningApp;
let owner: SignedIn;
let readTrade: string;
let tradeOnly: string;
const address = clientAddress()['x-forwarded-for'] as string;

beforeAll(async () => {
  server = await startTestApp();
  owner = await trader(server.url, { USDC: '10000000' });
  await liftLimits(server.url, owner.rootAccountId);
  const terms = await api(server.url, 'GET', '/v1/auth/terms', undefined, owner.auth);
  await api(server.url, 'POST', '/v1/auth/terms/accept', { version: terms.body.currentVersion }, owner.auth);
  const policy = async (permissions: string[]) =>
    (await api(server.url, 'POST', '/v1/auth/api-policies', { name: permissions.join('+'), permissions }, owner.auth)).body.policy.policyId as string;
  readTrade = await policy(['READ', 'TRADE']);
  tradeOnly = await policy(['TRADE']);
});
afterAll(async () => {
  await server.close();
});

async function newKey(): Promise<ClientKey> {
  const pair = newKeyPair();
  const created = await api(server.url, 'POST', '/v1/auth/api-keys', { label: 'ws', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), policyId: readTrade }, owner.auth);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return { keyId: created.body.apiKey.keyId, ...pair };
}

const patchKey = (key: ClientKey, body: Record<string, unknown>) =>
  api(server.url, 'PATCH', `/v1/auth/api-keys/${key.keyId}`, { expectedRevision: '1', ...body }, owner.auth);

interface Outcome {
  /** Orders whose events reached the subscriber. */
  received: Set<string>;
  /** Orders placed (acknowledged) before / sent after the change was acknowledged. */
  before: string[];
  after: string[];
  ended?: { code?: unknown };
  closeCode?: number;
}

/** Streams orders to a subscriber with `connectionParams`, applies `change` mid-stream, keeps placing orders for a second. */
async function scenario(connectionParams: () => Record<string, unknown>, change: () => Promise<void>): Promise<Outcome> {
  const outcome: Outcome = { received: new Set(), before: [], after: [] };
  const client = createClient({
    url: `${server.url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: class extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { headers: { 'x-forwarded-for': address } });
      }
    },
    retryAttempts: 0,
    connectionParams,
    on: { closed: (e) => void (outcome.closeCode = (e as { code: number }).code) },
  });
  client.subscribe<{ orderUpdates: { orderId: string } }>({ query: OrderUpdatesDocument.toString() }, {
    next: (r) => void (r.data ? outcome.received.add(r.data.orderUpdates.orderId) : undefined),
    error: (e) => void (outcome.ended = { code: (e as { extensions?: { code?: unknown } }[])[0]?.extensions?.code ?? 'closed' }),
    complete: () => void (outcome.ended ??= {}),
  });
  let changed = false;
  let placing = true;
  const place = async () => {
    while (placing) {
      const after = changed;
      // IOC: nothing rests, so the account never reaches its open-order cap however long the scenario runs.
      const r = await placeOrder(server.url, owner, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.001', limitIoc: { price: '1000' } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      (after ? outcome.after : outcome.before).push(r.body.orderId);
    }
  };
  const workers = [place(), place()];
  await pollUntil(() => outcome.received.size >= 5, 5_000);
  await change();
  changed = true;
  await new Promise((r) => setTimeout(r, 1_000));
  placing = false;
  await Promise.all(workers);
  await pollUntil(() => outcome.ended !== undefined, 2_000);
  await client.dispose();
  return outcome;
}

function expectNothingAfter(o: Outcome) {
  // The subscription worked before the change, and orders kept coming after it.
  expect(o.received.size).toBeGreaterThanOrEqual(5);
  expect(o.after.length).toBeGreaterThan(5);
  expect(o.after.filter((id) => o.received.has(id))).toEqual([]);
}

describe('credential changes on open graphql-ws sockets', () => {
  it('revoke: the socket closes with 4403 and no later event is sent', async () => {
    const key = await newKey();
    const o = await scenario(() => apiKeyConnectionParams(key), async () => {
      expect((await api(server.url, 'DELETE', `/v1/auth/api-keys/${key.keyId}`, undefined, owner.auth)).status).toBe(200);
    });
    expectNothingAfter(o);
    expect(o.closeCode).toBe(4403);
  });

  it('policy detached: the stream ends with MISSING_PERMISSION and no later event is sent', async () => {
    const key = await newKey();
    const o = await scenario(() => apiKeyConnectionParams(key), async () => {
      expect((await patchKey(key, { policyId: '' })).status).toBe(200);
    });
    expectNothingAfter(o);
    expect(o.ended).toEqual({ code: 'MISSING_PERMISSION' });
  });

  it('another policy attached (one without READ): the stream ends and no later event is sent', async () => {
    const key = await newKey();
    const o = await scenario(() => apiKeyConnectionParams(key), async () => {
      expect((await patchKey(key, { policyId: tradeOnly })).status).toBe(200);
    });
    expectNothingAfter(o);
    expect(o.ended).toEqual({ code: 'MISSING_PERMISSION' });
  });

  it('IP list narrowed to exclude the socket: it closes with 4403 and no later event is sent', async () => {
    const key = await newKey();
    const o = await scenario(() => apiKeyConnectionParams(key), async () => {
      expect((await patchKey(key, { ipWhitelist: ['203.0.113.0/24'] })).status).toBe(200);
    });
    expectNothingAfter(o);
    expect(o.closeCode).toBe(4403);
  });

  it('expiry: once the key’s expiresAt passes, the socket closes with 4403 and no later event is sent', async () => {
    const key = await newKey();
    let expiresAt = 0;
    const o = await scenario(() => apiKeyConnectionParams(key), async () => {
      expiresAt = Date.now() + 300;
      expect((await patchKey(key, { expiresAt: new Date(expiresAt).toISOString() })).status).toBe(200);
      await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now())));
    });
    expectNothingAfter(o);
    expect(o.closeCode).toBe(4403);
  });

  it('logout: the session’s socket closes with 4403 and no later event is sent', async () => {
    // A second session of the same wallet, so the orders keep coming from the first.
    const second = await signIn(server.url, owner.wallet);
    const o = await scenario(() => ({ authorization: second.auth.authorization }), async () => {
      expect((await api(server.url, 'POST', '/v1/auth/logout', undefined, second.auth)).status).toBe(200);
    });
    expectNothingAfter(o);
    expect(o.closeCode).toBe(4403);
  });

  it('a subscription over HTTP (server-sent events) is followed too: detaching the policy ends it, and no later event is sent', async () => {
    const key = await newKey();
    const body = JSON.stringify({ query: OrderUpdatesDocument.toString() });
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-forwarded-for': address, ...signHeaders(key, 'POST', '/graphql', body) },
      body,
    });
    expect(res.status).toBe(200);
    const received = new Set<string>();
    let text = '';
    let ended = false;
    const reading = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        text += decoder.decode(chunk, { stream: true });
        for (const m of text.matchAll(/"orderId":"([^"]+)"/g)) received.add(m[1] as string);
      }
      ended = true;
    })();
    const before: string[] = [];
    const after: string[] = [];
    let changed = false;
    let placing = true;
    const place = async () => {
      while (placing) {
        const late = changed;
        // IOC: nothing rests, so the account never reaches its open-order cap however long the scenario runs.
        const r = await placeOrder(server.url, owner, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.001', limitIoc: { price: '1000' } });
        (late ? after : before).push(r.body.orderId);
      }
    };
    const workers = [place(), place()];
    await pollUntil(() => received.size >= 5, 5_000);
    expect((await patchKey(key, { policyId: '' })).status).toBe(200);
    changed = true;
    await new Promise((r) => setTimeout(r, 1_000));
    placing = false;
    await Promise.all(workers);
    await pollUntil(() => ended, 2_000);
    expect(received.size).toBeGreaterThanOrEqual(5);
    expect(after.length).toBeGreaterThan(5);
    expect(after.filter((id) => received.has(id))).toEqual([]);
    expect(text).toContain('MISSING_PERMISSION');
    expect(ended).toBe(true);
    await reading;
  });
});

