import { connect } from 'node:net';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicationListeners } from '../../src/services/publications.ts';
import { api, newKeyPair, signHeaders, signIn, type ClientKey, type SignedIn } from '../helpers/auth.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { rawSocket, sseSubscription, subscriptionsHeld } from '../helpers/streams.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * Issue 23, "Transport limits" and "No leaks": each limit on graphql-ws and server-sent
 * events crossed by a hostile client, and answered with a code naming it; a revoked key's
 * SSE stream ends; a signed SSE subscription cannot be replayed.
 */
let server: RunningApp;
let owner: SignedIn;
const BOOK = 'subscription { orderBookUpdates(symbol: "BTC-USDC") { sequence } }';
let nextAddress = 1;
const address = () => `198.51.100.${nextAddress++}`;

beforeAll(async () => {
  server = await startTestApp({
    env: {
      BODY_LIMIT_BYTES: String(64 * 1024),
      STREAM_SUBSCRIPTIONS_PER_CONNECTION: '3',
      STREAM_CONNECTIONS_PER_IP: '4',
      STREAM_CONNECTIONS_PER_CREDENTIAL: '2',
      STREAM_IDLE_TIMEOUT_MS: '2000',
    },
  });
  owner = await signIn(server.url);
  const terms = await api(server.url, 'GET', '/v1/auth/terms', undefined, owner.auth);
  await api(server.url, 'POST', '/v1/auth/terms/accept', { version: terms.body.currentVersion }, owner.auth);
});
afterAll(async () => {
  await server.close();
});

async function connections(): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  return Number(/^stream_resources\{resource="connections"\} (\d+)/m.exec(text)?.[1]);
}

async function readKey(): Promise<ClientKey> {
  const policy = (await api(server.url, 'POST', '/v1/auth/api-policies', { name: `read${nextAddress}`, permissions: ['READ'] }, owner.auth)).body.policy.policyId as string;
  const pair = newKeyPair();
  const created = await api(server.url, 'POST', '/v1/auth/api-keys', { label: 'sse', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), policyId: policy }, owner.auth);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return { keyId: created.body.apiKey.keyId, ...pair };
}

describe('graphql-ws limits', () => {
  it('a message larger than the HTTP body limit closes the socket with 1009', async () => {
    const socket = await rawSocket(server.url, {}, { 'x-forwarded-for': address() });
    socket.subscribe('big', `subscription { orderBookUpdates(symbol: "${'x'.repeat(64 * 1024)}") { sequence } }`);
    expect((await socket.closed).code).toBe(1009);
    // Just under it is a request like any other (refused for its content, not its size).
    const ok = await rawSocket(server.url, {}, { 'x-forwarded-for': address() });
    ok.subscribe('fine', `subscription { orderBookUpdates(symbol: "${'x'.repeat(60 * 1024)}") { sequence } }`);
    await pollUntil(() => ok.messages.some((m) => m.id === 'fine'), 5_000);
    expect(JSON.stringify(ok.messages.find((m) => m.id === 'fine'))).toContain('"errors"');
    expect(ok.ws.readyState).toBe(WebSocket.OPEN);
    ok.ws.close();
  });

  it('a subscription past the cap per socket is refused with SUBSCRIPTIONS_PER_CONNECTION; the others go on, and a freed slot is usable', async () => {
    const socket = await rawSocket(server.url, {}, { 'x-forwarded-for': address() });
    const before = subscriptionsHeld(server.app);
    for (const id of ['1', '2', '3', '4']) socket.subscribe(id, BOOK);
    await pollUntil(() => socket.messages.some((m) => m.id === '4'), 5_000);
    expect(socket.messages.find((m) => m.id === '4')).toMatchObject({ type: 'error', payload: [{ extensions: { code: 'SUBSCRIPTIONS_PER_CONNECTION', limit: 3 } }] });
    await pollUntil(() => subscriptionsHeld(server.app) === before + 3, 5_000);
    expect(subscriptionsHeld(server.app)).toBe(before + 3);
    socket.complete('1');
    await pollUntil(() => subscriptionsHeld(server.app) === before + 2, 5_000);
    socket.subscribe('5', BOOK);
    await pollUntil(() => subscriptionsHeld(server.app) === before + 3, 5_000);
    expect(socket.messages.filter((m) => m.type === 'error')).toHaveLength(1);
    socket.ws.close();
    await socket.closed;
  });

  it('connections past the cap per client address: the upgrade is answered 429 problem+json STREAM_CONNECTIONS_PER_IP, and SSE too', async () => {
    const ip = address();
    const open = await Promise.all([1, 2, 3, 4].map(() => rawSocket(server.url, {}, { 'x-forwarded-for': ip })));
    const refused = await rawSocket(server.url, {}, { 'x-forwarded-for': ip }).catch((err: { status: number; response: NodeJS.ReadableStream & { headers: Record<string, string> } }) => err);
    expect(refused).toMatchObject({ status: 429 });
    const { response } = refused as { response: NodeJS.ReadableStream & { headers: Record<string, string> } };
    expect(response.headers['content-type']).toContain('application/problem+json');
    let text = '';
    for await (const chunk of response) text += String(chunk);
    expect(JSON.parse(text)).toMatchObject({ status: 429, code: 'STREAM_CONNECTIONS_PER_IP' });
    const sse = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-forwarded-for': ip },
      body: JSON.stringify({ query: BOOK }),
    });
    expect(sse.status).toBe(429);
    expect(sse.headers.get('content-type')).toContain('application/problem+json');
    expect(await sse.json()).toMatchObject({ code: 'STREAM_CONNECTIONS_PER_IP' });
    // Another address is not affected, and a closed socket frees its slot.
    const other = await rawSocket(server.url, {}, { 'x-forwarded-for': address() });
    (open[0] as Awaited<ReturnType<typeof rawSocket>>).ws.close();
    await (open[0] as Awaited<ReturnType<typeof rawSocket>>).closed;
    await pollUntil(async () => (await rawSocket(server.url, {}, { 'x-forwarded-for': ip }).then((s) => (open.push(s), true), () => false)), 5_000);
    expect(open).toHaveLength(5);
    for (const s of [...open, other]) s.ws.close();
  });

  it('connections past the cap per credential: graphql-ws closes with 4429 STREAM_CONNECTIONS_PER_CREDENTIAL, SSE gets 429 problem+json', async () => {
    const session = await signIn(server.url);
    const params = { authorization: session.auth.authorization as string };
    const open = [await rawSocket(server.url, params, { 'x-forwarded-for': address() }), await rawSocket(server.url, params, { 'x-forwarded-for': address() })];
    const refused = await rawSocket(server.url, params, { 'x-forwarded-for': address() }).catch((err: { code: number; reason: string }) => err);
    expect(refused).toMatchObject({ code: 4429 });
    expect((refused as { reason: string }).reason).toMatch(/^STREAM_CONNECTIONS_PER_CREDENTIAL: at most 2 /);
    const sse = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-forwarded-for': address(), authorization: session.auth.authorization as string },
      body: JSON.stringify({ query: 'subscription { orderUpdates { orderId } }' }),
    });
    expect(sse.status).toBe(429);
    expect(await sse.json()).toMatchObject({ status: 429, code: 'STREAM_CONNECTIONS_PER_CREDENTIAL' });
    // Another credential from the same addresses is not affected.
    const anonymous = await rawSocket(server.url, {}, { 'x-forwarded-for': address() });
    for (const s of [...open, anonymous]) s.ws.close();
  });

  it('a socket that stops reading is dropped once a ping goes unanswered, and lets go of its subscription', async () => {
    const before = publicationListeners(server.store.events);
    const socket = await rawSocket(server.url, {}, { 'x-forwarded-for': address() });
    socket.subscribe('book', BOOK);
    await pollUntil(() => publicationListeners(server.store.events) === before + 1, 5_000);
    socket.ws.pause();
    await pollUntil(() => publicationListeners(server.store.events) === before, 10_000, 100);
    expect(publicationListeners(server.store.events)).toBe(before);
    socket.ws.resume();
    expect((await socket.closed).code).toBe(1006);
  });
});

describe('server-sent events', () => {
  it('a stream whose client stops reading is closed once its writes have stalled for the idle timeout', async () => {
    // The sockets of the tests before have all closed.
    await pollUntil(async () => (await connections()) === 0, 5_000);
    const baseline = await connections();
    const before = publicationListeners(server.store.events);
    const { port } = new URL(server.url);
    const body = JSON.stringify({ query: 'subscription { orderBookUpdates(symbol: "BTC-USDC") { symbol sequence asks { price qty } } }' });
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => undefined);
    let text = '';
    socket.on('data', (d) => (text += String(d)));
    await new Promise((r) => socket.once('connect', r));
    socket.write(`POST /graphql HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${address()}\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    await pollUntil(() => text.includes(':\n\n'), 5_000);
    socket.pause();
    expect(await connections()).toBe(baseline + 1);
    // Enough to fill the socket's buffers, in events far under the subscriber's bounds.
    const levels = Array.from({ length: 500 }, (_, i) => ({ price: BigInt(i + 1) * 10n ** 16n, qty: 10n ** 15n }));
    for (let i = 0; i < 400; i++) {
      server.store.events.dispatchEvent(new CustomEvent(`${server.store.keyPrefix}book:BTC-USDC`, { detail: [{ symbol: 'BTC-USDC', sequence: BigInt(i + 1), bids: [], asks: levels }] }));
      await new Promise((r) => setImmediate(r));
    }
    await pollUntil(async () => (await connections()) === baseline, 15_000, 200);
    expect(await connections()).toBe(baseline);
    expect(publicationListeners(server.store.events)).toBe(before);
    socket.destroy();
  }, 30_000);

  it("a revoked key's chartLayerChanges stream ends with the reason", async () => {
    const key = await readKey();
    const query = 'subscription { chartLayerChanges { __typename } }';
    const stream = await sseSubscription(server.url, query, { 'x-forwarded-for': address(), ...signHeaders(key, 'POST', '/graphql', JSON.stringify({ query })) });
    expect(stream.state.status).toBe(200);
    expect((await api(server.url, 'DELETE', `/v1/auth/api-keys/${key.keyId}`, undefined, owner.auth)).status).toBe(200);
    await pollUntil(() => stream.state.ended, 5_000);
    expect(stream.state.ended).toBe(true);
    expect(stream.state.text).toContain('"code":"CREDENTIALS_REVOKED"');
    expect(stream.state.text).toContain('event: complete');
  });

  it('a signed subscription claims its signature: the same request replayed is refused 401', async () => {
    const key = await readKey();
    const query = 'subscription { orderUpdates { orderId } }';
    const headers = { 'x-forwarded-for': address(), ...signHeaders(key, 'POST', '/graphql', JSON.stringify({ query })) };
    const first = await sseSubscription(server.url, query, headers);
    expect(first.state.status).toBe(200);
    const replayed = await sseSubscription(server.url, query, headers);
    await replayed.reading;
    expect(replayed.state.status).toBe(401);
    expect(replayed.state.text).toContain('"code":"REPLAYED_REQUEST"');
    await first.abort();
  });
});
