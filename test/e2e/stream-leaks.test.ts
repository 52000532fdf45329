import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, liftLimits, newKeyPair, signHeaders, signIn, type ClientKey, type SignedIn } from '../helpers/auth.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { rawSocket, sseSubscription, subscriptionsHeld } from '../helpers/streams.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * Issue 23, "No leaks": every stream lets go of what it holds (its event listener, the
 * credential it follows, its connection slot) when the client leaves, whether it completes
 * the subscription or drops the socket, and whether or not an event came meanwhile.
 * 10,000 subscribe-and-leave cycles of every stream over graphql-ws, and some over
 * server-sent events, end with every count at its baseline, read from /metrics.
 */
let server: RunningApp;
let owner: SignedIn;
let subKey: ClientKey;
const CYCLES = 10_000;
const PER_SOCKET = 250;

beforeAll(async () => {
  server = await startTestApp({ env: { STREAM_SUBSCRIPTIONS_PER_CONNECTION: String(PER_SOCKET) } });
  owner = await signIn(server.url);
  await liftLimits(server.url, owner.rootAccountId);
  const terms = await api(server.url, 'GET', '/v1/auth/terms', undefined, owner.auth);
  await api(server.url, 'POST', '/v1/auth/terms/accept', { version: terms.body.currentVersion }, owner.auth);
  const policy = (await api(server.url, 'POST', '/v1/auth/api-policies', { name: 'read', permissions: ['READ'] }, owner.auth)).body.policy.policyId as string;
  const subaccountId = (await api(server.url, 'POST', '/v1/auth/subaccounts', { label: 'desk' }, owner.auth)).body.subaccount.subaccountId as string;
  const pair = newKeyPair();
  const created = await api(server.url, 'POST', '/v1/auth/api-keys', { label: 'sub', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), policyId: policy, subaccountId }, owner.auth);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  subKey = { keyId: created.body.apiKey.keyId, ...pair };
}, 60_000);
afterAll(async () => {
  await server.close();
});

/** Each signed connection needs a timestamp of its own: two in one millisecond are one request replayed. */
let lastTimestamp = 0;
const freshTimestamp = () => String((lastTimestamp = Math.max(Date.now(), lastTimestamp + 1)));

type Who = 'anonymous' | 'session' | 'subaccount key';
const STREAMS: { name: string; query: string; who: Who }[] = [
  { name: 'orderBookUpdates', query: 'subscription { orderBookUpdates(symbol: "BTC-USDC") { sequence } }', who: 'anonymous' },
  { name: 'publicTrades', query: 'subscription { publicTrades(symbol: "BTC-USDC") { matchId } }', who: 'anonymous' },
  { name: 'orderUpdates', query: 'subscription { orderUpdates { orderId } }', who: 'session' },
  { name: 'fills', query: 'subscription { fills { price } }', who: 'session' },
  { name: 'triggerEvents', query: 'subscription { triggerEvents { eventType } }', who: 'session' },
  { name: 'balanceUpdates', query: 'subscription { balanceUpdates { total } }', who: 'session' },
  { name: 'chartLayerChanges', query: 'subscription { chartLayerChanges { __typename } }', who: 'session' },
  { name: 'chartLayerChanges(engineSymbolId)', query: 'subscription { chartLayerChanges(engineSymbolId: 1) { __typename } }', who: 'session' },
  { name: "a subaccount key's flowUpdates", query: 'subscription { flowUpdates { currentStep } }', who: 'subaccount key' },
];

function connectionParams(who: Who): Record<string, string> {
  if (who === 'session') return { authorization: owner.auth.authorization as string };
  if (who === 'subaccount key') return signHeaders(subKey, 'GET', '/graphql', '', { timestamp: freshTimestamp() });
  return {};
}

function httpHeaders(who: Who, body: string): Record<string, string> {
  if (who === 'session') return { authorization: owner.auth.authorization as string };
  if (who === 'subaccount key') return signHeaders(subKey, 'POST', '/graphql', body, { timestamp: freshTimestamp() });
  return {};
}

async function gauges(): Promise<Record<string, number>> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  return Object.fromEntries([...text.matchAll(/^stream_resources\{resource="([a-z_]+)"\} (\d+)/gm)].map((m) => [m[1] as string, Number(m[2])]));
}

const listeners = () => subscriptionsHeld(server.app);

describe('no stream keeps anything once its client has left', () => {
  it.each(STREAMS)('$name: 10,000 subscribe-and-leave cycles over graphql-ws and 100 over server-sent events', async ({ query, who }) => {
    const baseline = await gauges();
    expect(baseline.listeners).toBe(listeners());
    for (let done = 0, round = 0; done < CYCLES; round++) {
      const n = Math.min(PER_SOCKET, CYCLES - done);
      const socket = await rawSocket(server.url, connectionParams(who));
      const before = listeners();
      for (let i = 0; i < n; i++) socket.subscribe(String(i), query);
      await pollUntil(() => listeners() === before + n, 20_000, 5);
      // Every other round the client completes each subscription; the others drop the socket.
      if (round % 2 === 0) {
        for (let i = 0; i < n; i++) socket.complete(String(i));
        await pollUntil(() => listeners() === before, 10_000, 5);
        socket.ws.close();
      } else {
        socket.ws.terminate();
      }
      await socket.closed;
      await pollUntil(() => listeners() === before, 10_000, 5);
      expect(socket.messages.filter((m) => m.type === 'error')).toEqual([]);
      done += n;
    }
    for (let i = 0; i < 100; i += 10) {
      const streams = await Promise.all(
        Array.from({ length: 10 }, () => sseSubscription(server.url, query, httpHeaders(who, JSON.stringify({ query })))),
      );
      for (const s of streams) expect(s.state.status).toBe(200);
      await pollUntil(() => listeners() === (baseline.listeners as number) + 10, 10_000);
      await Promise.all(streams.map((s) => s.abort()));
    }
    await pollUntil(async () => JSON.stringify(await gauges()) === JSON.stringify(baseline), 10_000, 50);
    expect(await gauges()).toEqual(baseline);
  }, 300_000);
});
