import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BalanceUpdatesDocument } from '../generated/graphql/graphql.ts';
import { api, clientAddress, newKeyPair, type ClientKey, type SignedIn } from '../helpers/auth.ts';
import { apiKeyConnectionParams, wsClient } from '../helpers/graphql.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { balancesOf, credit, placeOrder, trader } from '../helpers/trading.ts';
import { sseSubscription } from '../helpers/streams.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * Issue 28, Deliver 3: `balanceUpdates` sends each balance of the caller's account a durable
 * change moved, as the change left it, derived from the journal entry alone; with `after`
 * it resumes like `orderUpdates` (src/services/trading/streams.ts).
 */
let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

interface Update {
  ledgerAccount: string;
  asset: string;
  assetId: string;
  available: string;
  held: string;
  total: string;
  sequence: string;
}

interface Followed {
  updates: Update[];
  ended?: unknown;
}

function follow(client: Client, after?: string): Followed {
  const out: Followed = { updates: [] };
  client.subscribe<{ balanceUpdates: Update }>(
    { query: BalanceUpdatesDocument.toString(), variables: after === undefined ? {} : { after } },
    {
      next: (r) => {
        if (r.data) out.updates.push(r.data.balanceUpdates);
        else out.ended = r.errors;
      },
      error: (e) => void (out.ended = e),
      complete: () => void (out.ended ??= 'complete'),
    },
  );
  return out;
}

/** The latest update of each balance, as `balancesOf` keys them. */
function latest(updates: Update[]): Record<string, { available: string; held: string }> {
  const out: Record<string, { available: string; held: string }> = {};
  for (const u of updates) out[`${u.ledgerAccount}:${u.asset}`] = { available: u.available, held: u.held };
  return out;
}

/** Waits until the stream's latest state of every balance is what /v1/balances answers (zero rows, which it leaves out, as zero). */
async function agrees(who: SignedIn, f: Followed): Promise<Record<string, { available: string; held: string }>> {
  const rest = await balancesOf(server.url, who);
  let state = latest(f.updates);
  const matches = () => {
    state = latest(f.updates);
    const zero = Object.entries(state).filter(([k, v]) => !(k in rest) && (v.available !== '0' || v.held !== '0'));
    return zero.length === 0 && Object.entries(rest).every(([k, v]) => state[k]?.available === v.available && state[k]?.held === v.held);
  };
  await pollUntil(matches, 5_000).catch(() => undefined);
  expect(state).toMatchObject(rest);
  return state;
}

const sessionOf = (who: SignedIn) => ({ authorization: who.auth.authorization as string });
const sorted = (seqs: bigint[]) => [...seqs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

describe('balanceUpdates', () => {
  it('follows place, cancel, fill and transfer with the balances /v1/balances shows, and nothing of another account', async () => {
    const maker = await trader(server.url, { ETH: '10' });
    const taker = await trader(server.url, { USDC: '100000' });
    const bystander = await trader(server.url, { USDC: '5' });
    const client = wsClient(server.url, sessionOf(maker));
    const other = wsClient(server.url, sessionOf(bystander));
    const mine = follow(client);
    const theirs = follow(other);
    await new Promise((r) => setTimeout(r, 300));

    const ask = await placeOrder(server.url, maker, { symbol: 'ETH-USDC', side: 'SELL', baseQty: '1', limitGtc: { price: '2000' } });
    expect(ask.status, JSON.stringify(ask.body)).toBe(200);
    expect((await agrees(maker, mine))['TRADING:ETH']).toEqual({ available: '9', held: '1' });
    const afterPlace = mine.updates.length;
    // Only the balance the hold moved.
    expect(mine.updates.map((u) => `${u.ledgerAccount}:${u.asset}`)).toEqual(['TRADING:ETH']);

    expect((await api(server.url, 'POST', '/v1/orders/cancel', { orderId: ask.body.orderId }, maker.auth)).status).toBe(200);
    expect((await agrees(maker, mine))['TRADING:ETH']).toEqual({ available: '10', held: '0' });
    expect(mine.updates.length).toBe(afterPlace + 1);

    const resting = await placeOrder(server.url, maker, { symbol: 'ETH-USDC', side: 'SELL', baseQty: '2', limitGtc: { price: '2000' } });
    expect(resting.status).toBe(200);
    const fill = await placeOrder(server.url, taker, { symbol: 'ETH-USDC', side: 'BUY', baseQty: '2', limitIoc: { price: '2000' } });
    expect(fill.status, JSON.stringify(fill.body)).toBe(200);
    const filled = await agrees(maker, mine);
    expect(filled['TRADING:ETH']).toEqual({ available: '8', held: '0' });
    // The proceeds, less the maker fee, in USDC.
    expect(BigInt(filled['TRADING:USDC']?.available.split('.')[0] ?? '0')).toBeGreaterThan(3_900n);

    const moved = await api(server.url, 'POST', '/v1/transfers/internal', { asset: 'ETH', amount: '3', fromLedger: 'TRADING', toLedger: 'FUNDING' }, maker.auth);
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const transferred = await agrees(maker, mine);
    expect(transferred['TRADING:ETH']).toEqual({ available: '5', held: '0' });
    expect(transferred['FUNDING:ETH']).toEqual({ available: '3', held: '0' });

    for (const u of mine.updates) expect(u.total).toBe(String(Number(u.available) + Number(u.held)));
    const seqs = mine.updates.map((u) => BigInt(u.sequence));
    expect(seqs).toEqual(sorted(seqs));
    expect(new Set(seqs).size).toBe(seqs.length);
    // The taker's balances moved in the fill's entry too; none of it reached the bystander.
    expect(theirs.updates).toEqual([]);
    expect(theirs.ended).toBeUndefined();
    await Promise.all([client.dispose(), other.dispose()]);
  });

  it('a dropped socket resumed with `after` gets every missed update exactly once, and only its own account’s', async () => {
    const maker = await trader(server.url, { ETH: '100' });
    const taker = await trader(server.url, { USDC: '1000000' });
    const reference = wsClient(server.url, sessionOf(maker));
    const all = follow(reference);
    const first = wsClient(server.url, sessionOf(maker));
    const seen = follow(first);
    await new Promise((r) => setTimeout(r, 300));

    const ROUNDS = 18;
    let dropped = -1;
    for (let i = 0; i < ROUNDS; i++) {
      const ask = await placeOrder(server.url, maker, { symbol: 'ETH-USDC', side: 'SELL', baseQty: '1', limitGtc: { price: '2000' } });
      const bid = await placeOrder(server.url, taker, { symbol: 'ETH-USDC', side: 'BUY', baseQty: '1', limitIoc: { price: '2000' } });
      expect(ask.status, JSON.stringify(ask.body)).toBe(200);
      expect(bid.status, JSON.stringify(bid.body)).toBe(200);
      if (i === ROUNDS / 3) {
        dropped = seen.updates.length;
        await first.dispose();
      }
    }
    expect(dropped).toBeGreaterThan(0);
    const last = seen.updates[seen.updates.length - 1] as Update;

    const resumed = wsClient(server.url, sessionOf(maker));
    const rest = follow(resumed, last.sequence);
    await new Promise((r) => setTimeout(r, 300));
    // A live update after the seam follows the replay with no gap either.
    expect((await placeOrder(server.url, maker, { symbol: 'ETH-USDC', side: 'SELL', baseQty: '1', limitGtc: { price: '2100' } })).status).toBe(200);

    // Per round: the hold (ETH) and the fill (ETH, USDC); then the tail's hold.
    const expected = 3 * ROUNDS + 1;
    await pollUntil(() => all.updates.length === expected && seen.updates.length + rest.updates.length >= expected, 10_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(all.updates).toHaveLength(expected);
    expect([...seen.updates, ...rest.updates]).toEqual(all.updates);
    await agrees(maker, all);

    // A replay of the whole journal reads only this account's entries: its deposit, then the rest.
    const replay = wsClient(server.url, sessionOf(maker));
    const whole = follow(replay, '0');
    await pollUntil(() => whole.updates.length >= expected + 1, 10_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(whole.updates[0]).toMatchObject({ ledgerAccount: 'TRADING', asset: 'ETH', available: '100', held: '0' });
    expect(whole.updates.slice(1)).toEqual(all.updates);
    await Promise.all([reference.dispose(), resumed.dispose(), replay.dispose()]);
  });

  it('streams over server-sent events too, resuming with `after` there as well', async () => {
    const who = await trader(server.url, { USDC: '7' });
    const query = BalanceUpdatesDocument.toString();
    const live = await sseSubscription(server.url, query, sessionOf(who));
    expect(live.state.status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    await credit(server.url, who.rootAccountId, 'USDC', '2');
    await pollUntil(() => live.state.text.includes('"available":"9"'), 5_000);
    const sequences = [...live.state.text.matchAll(/"sequence":"(\d+)"/g)].map((m) => m[1]);
    expect(sequences).toHaveLength(1);
    await live.abort();
    // From the start of the journal: the first deposit, then the one seen live, and nothing else.
    const replay = await sseSubscription(server.url, query, sessionOf(who), { after: '0' });
    await pollUntil(() => (replay.state.text.match(/"sequence"/g) ?? []).length >= 2, 5_000);
    await new Promise((r) => setTimeout(r, 200));
    expect([...replay.state.text.matchAll(/"available":"(\d+)"/g)].map((m) => m[1])).toEqual(['7', '9']);
    expect(replay.state.text).toContain(`"sequence":"${sequences[0]}"`);
    await replay.abort();
  });

  it('refuses `after` beyond the stream, with the field named', async () => {
    const someone = await trader(server.url, { USDC: '1' });
    const client = wsClient(server.url, sessionOf(someone));
    const f = follow(client, (1n << 62n).toString());
    await pollUntil(() => f.ended !== undefined, 5_000);
    expect(JSON.stringify(f.ended)).toContain('after');
    expect(f.updates).toEqual([]);
    await client.dispose();
  });

  it('a revoked API key stops the stream: the socket closes with 4403 and no later update is sent', async () => {
    const owner = await trader(server.url, { USDC: '10' });
    const terms = await api(server.url, 'GET', '/v1/auth/terms', undefined, owner.auth);
    await api(server.url, 'POST', '/v1/auth/terms/accept', { version: terms.body.currentVersion }, owner.auth);
    const policyId = (await api(server.url, 'POST', '/v1/auth/api-policies', { name: 'read', permissions: ['READ'] }, owner.auth)).body.policy.policyId as string;
    const pair = newKeyPair();
    const created = await api(server.url, 'POST', '/v1/auth/api-keys', { label: 'ws', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), policyId }, owner.auth);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const key: ClientKey = { keyId: created.body.apiKey.keyId, ...pair };

    let closeCode: number | undefined;
    const address = clientAddress()['x-forwarded-for'] as string;
    const client = createClient({
      url: `${server.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: class extends WebSocket {
        constructor(url: string, protocols?: string | string[]) {
          super(url, protocols, { headers: { 'x-forwarded-for': address } });
        }
      },
      retryAttempts: 0,
      connectionParams: () => apiKeyConnectionParams(key),
      on: { closed: (e) => void (closeCode = (e as { code: number }).code) },
    });
    const f = follow(client);
    await new Promise((r) => setTimeout(r, 300));
    await credit(server.url, owner.rootAccountId, 'USDC', '1');
    await pollUntil(() => f.updates.length === 1, 5_000);
    expect(f.updates[0]).toMatchObject({ asset: 'USDC', available: '11' });

    expect((await api(server.url, 'DELETE', `/v1/auth/api-keys/${key.keyId}`, undefined, owner.auth)).status).toBe(200);
    for (let i = 0; i < 5; i++) await credit(server.url, owner.rootAccountId, 'USDC', '1');
    await pollUntil(() => closeCode !== undefined, 5_000);
    expect(closeCode).toBe(4403);
    expect(f.updates).toHaveLength(1);
    await client.dispose();
  });
});
