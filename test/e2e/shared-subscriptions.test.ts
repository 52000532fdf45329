import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PublicTradePayload } from '../../src/services/trading/index.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { rawSocket, sseSubscription, type RawSocket } from '../helpers/streams.ts';
import { gtc, placeOrder, trader } from '../helpers/trading.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * Issue 29, "Subscriptions that share work", through the server: graphql-ws sockets with
 * the same public selection are sent the text of one execution of each event; a private
 * stream's events are filtered by account before anything executes them, so one account's
 * events never reach, nor run for, another's subscription.
 */
let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

const TRADES = 'subscription { publicTrades(symbol: "BTC-USDC") { matchId price qty takerSide executedAt } }';

/** The socket's raw `next` frames of subscription `id`, as the server wrote them. */
function frames(socket: RawSocket): string[] {
  const out: string[] = [];
  socket.ws.on('message', (data) => {
    const text = String(data);
    if (text.includes('"type":"next"')) out.push(text);
  });
  return out;
}

const trade = (i: number): PublicTradePayload => ({ symbol: 'BTC-USDC', matchId: BigInt(900_000 + i), price: 30_000n * 10n ** 9n + BigInt(i), qty: 1_000n, takerSide: i % 2 ? 'BUY' : 'SELL', executedAt: new Date(1_700_000_000_000 + i) });

describe('public subscriptions over graphql-ws', () => {
  it('with K sockets on one selection, each event executes once per selection and every socket gets the same text', async () => {
    const K = 12;
    const sockets = await Promise.all(Array.from({ length: K }, () => rawSocket(server.url)));
    const texts = sockets.map(frames);
    sockets.forEach((s, i) => s.subscribe(`t${i}`, TRADES));
    // Another selection of the same topic is an execution of its own.
    const other = await rawSocket(server.url);
    const otherTexts = frames(other);
    other.subscribe('mine', 'subscription { publicTrades(symbol: "BTC-USDC") { matchId } }');
    // Server-sent events are not shared: each stream executes its own events.
    const sse = await sseSubscription(server.url, TRADES);
    try {
      await pollUntil(() => server.app.shared.stats.sinks === K + 1 && sse.state.text.includes(':\n\n'), 5_000);
      expect(server.app.shared.stats).toMatchObject({ selections: 2, sinks: K + 1 });
      const before = server.app.shared.stats.executions;

      const N = 25;
      server.store.events.dispatchEvent(new CustomEvent(`${server.store.keyPrefix}trades:BTC-USDC`, { detail: Array.from({ length: N }, (_, i) => trade(i)) }));
      await pollUntil(() => texts.every((t) => t.length === N) && otherTexts.length === N, 10_000);
      expect(server.app.shared.stats.executions - before).toBe(2 * N);

      const payloads = texts.map((t, i) =>
        t.map((frame) => {
          const prefix = `{"id":"t${i}","type":"next","payload":`;
          expect(frame.startsWith(prefix)).toBe(true);
          return frame.slice(prefix.length, -1);
        }),
      );
      for (const p of payloads) expect(p).toEqual(payloads[0]);
      expect(JSON.parse(payloads[0]![0]!)).toEqual({ data: { publicTrades: { matchId: '900000', price: '30000', qty: '0.001', takerSide: 'SELL', executedAt: '2023-11-14T22:13:20.000Z' } } });
      expect(JSON.parse(otherTexts[N - 1]!)).toEqual({ id: 'mine', type: 'next', payload: { data: { publicTrades: { matchId: String(900_000 + N - 1) } } } });
      await pollUntil(() => (sse.state.text.match(/event: next/g) ?? []).length === N, 5_000);
      expect((sse.state.text.match(/event: next/g) ?? []).length).toBe(N);

      // A socket that completes leaves the others' stream as it was; the last one stops it.
      sockets[0]!.complete('t0');
      await pollUntil(() => server.app.shared.stats.sinks === K, 5_000);
      server.store.events.dispatchEvent(new CustomEvent(`${server.store.keyPrefix}trades:BTC-USDC`, { detail: [trade(N)] }));
      await pollUntil(() => texts.slice(1).every((t) => t.length === N + 1), 5_000);
      expect(texts[0]).toHaveLength(N);
      expect(sockets.flatMap((s) => s.messages.filter((m) => m.type === 'error'))).toEqual([]);
    } finally {
      for (const s of [...sockets, other]) s.ws.close();
      await sse.abort();
    }
    await pollUntil(() => server.app.shared.stats.selections === 0, 5_000);
    expect(server.app.shared.stats).toMatchObject({ selections: 0, sinks: 0 });
  });

  it('a refused argument is answered to each socket as before, and no execution is kept', async () => {
    const [a, b] = await Promise.all([rawSocket(server.url), rawSocket(server.url)]);
    for (const s of [a!, b!]) s.subscribe('x', 'subscription { publicTrades(symbol: "NOPE-USDC") { matchId } }');
    await pollUntil(() => [a!, b!].every((s) => s.messages.some((m) => m.type === 'complete')), 5_000);
    for (const s of [a!, b!]) {
      expect(s.messages.find((m) => m.type === 'next')).toMatchObject({ id: 'x', payload: { errors: [{ extensions: { code: 'UNKNOWN_SYMBOL' } }] } });
    }
    expect(server.app.shared.stats).toMatchObject({ selections: 0, sinks: 0 });
    for (const s of [a!, b!]) s.ws.close();
  });
});

describe('private subscriptions', () => {
  it("account A's order updates, fills and balances never reach account B's subscriptions, nor execute for them", async () => {
    const a = await trader(server.url, { USDC: '100000' });
    const b = await trader(server.url, { USDC: '100000' });
    const c = await trader(server.url, { BTC: '10' });
    const open = async (who: typeof a) => {
      const s = await rawSocket(server.url, { authorization: who.auth.authorization as string });
      s.subscribe('orders', 'subscription { orderUpdates { orderId status } }');
      s.subscribe('fills', 'subscription { fills { price qty } }');
      s.subscribe('balances', 'subscription { balanceUpdates { asset total } }');
      return s;
    };
    const [sa, sb] = [await open(a), await open(b)];
    await new Promise((r) => setTimeout(r, 200));
    // orderUpdates' resolver reads each order event's origin: one call per event executed.
    const executed = vi.spyOn(server.app.services.orders, 'withOrigin');
    try {
      const count = (s: RawSocket, id: string) => s.messages.filter((m) => m.id === id && m.type === 'next').length;
      expect((await placeOrder(server.url, a, gtc('BUY', '0.01', '30000'))).status).toBe(200);
      expect((await placeOrder(server.url, c, gtc('SELL', '0.01', '30000'))).status).toBe(200);
      // A's order rests, then fills: two versions, one fill, its balances.
      await pollUntil(() => count(sa, 'orders') === 2 && count(sa, 'fills') === 1 && count(sa, 'balances') >= 2, 5_000);
      expect(count(sa, 'orders')).toBe(2);
      expect(count(sa, 'fills')).toBe(1);
      await new Promise((r) => setTimeout(r, 300));
      expect(sb.messages.filter((m) => m.type !== 'connection_ack')).toEqual([]);
      // Executed for A's subscription alone: never run for B's, then dropped.
      expect(executed).toHaveBeenCalledTimes(2);

      // B's subscriptions are live: its own order reaches it, and runs once more.
      expect((await placeOrder(server.url, b, gtc('BUY', '0.01', '29000'))).status).toBe(200);
      await pollUntil(() => count(sb, 'orders') === 1, 5_000);
      expect(count(sb, 'orders')).toBe(1);
      expect(count(sa, 'orders')).toBe(2);
      expect(executed).toHaveBeenCalledTimes(3);
    } finally {
      executed.mockRestore();
      sa.ws.close();
      sb.ws.close();
    }
  });
});
