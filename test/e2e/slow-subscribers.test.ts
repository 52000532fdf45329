import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { rawSocket, subscriptionsHeld, type RawSocket } from '../helpers/streams.ts';
import { placeOrder, trader } from '../helpers/trading.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * Issue 23, "Bounded subscribers": two SSE and two graphql-ws subscribers of
 * orderBookUpdates that stop reading their sockets, while orders are placed and the book's
 * topic carries a burst of large deltas (more than the sockets' kernel buffers hold). The
 * process survives, a subscriber that reads keeps getting every event in order, and the
 * slow ones are cut off: once they read again, the last thing on their stream is
 * SUBSCRIBER_TOO_SLOW, telling them to resume or resynchronise.
 */
let server: RunningApp;
const QUERY = 'subscription { orderBookUpdates(symbol: "BTC-USDC") { symbol sequence bids { price qty } asks { price qty } } }';
const MAX_PENDING = 64;

beforeAll(async () => {
  // The idle timeout (which drops a socket that stops reading altogether) is set out of
  // the way: this is about the queue's bound, reached first under a burst.
  server = await startTestApp({ env: { SUBSCRIBER_MAX_PENDING_EVENTS: String(MAX_PENDING), SUBSCRIBER_MAX_PENDING_BYTES: String(1 << 20), STREAM_IDLE_TIMEOUT_MS: '600000' } });
});
afterAll(async () => {
  await server.close();
});

/** An SSE subscription on a raw socket, read until its stream has started, then paused. */
async function pausedSse(): Promise<{ socket: Socket; text: () => string }> {
  const { port } = new URL(server.url);
  const body = JSON.stringify({ query: QUERY });
  const socket = connect(Number(port), '127.0.0.1');
  let text = '';
  socket.on('data', (d) => (text += String(d)));
  socket.on('error', () => undefined);
  await new Promise((r) => socket.once('connect', r));
  socket.write(`POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  await pollUntil(() => text.includes(':\n\n'), 5_000);
  expect(text).toMatch(/^HTTP\/1\.1 200/);
  socket.pause();
  return { socket, text: () => text };
}

async function pausedWs(): Promise<RawSocket> {
  const socket = await rawSocket(server.url);
  socket.subscribe('book', QUERY);
  return socket;
}

const topic = () => `${server.store.keyPrefix}book:BTC-USDC`;
const levels = (n: number, from: number) => Array.from({ length: n }, (_, i) => ({ price: BigInt(from + i) * 10n ** 16n, qty: 10n ** 15n }));

describe('subscribers that stop reading', () => {
  it('are cut off with SUBSCRIBER_TOO_SLOW; the process and the subscribers that read carry on', async () => {
    const fast = await rawSocket(server.url);
    fast.subscribe('book', QUERY);
    const held = () => subscriptionsHeld(server.app);
    const baseline = held();
    const sse = [await pausedSse(), await pausedSse()];
    const ws = [await pausedWs(), await pausedWs()];
    await pollUntil(() => held() === baseline + 4, 5_000);
    for (const s of ws) s.ws.pause();

    const maker = await trader(server.url, { USDC: '1000000' });
    const received = () => fast.messages.filter((m) => m.type === 'next').map((m) => (m.payload as { data: { orderBookUpdates: { sequence: string } } }).data.orderBookUpdates.sequence);
    let sent = 0;
    let sequence = 10n ** 12n;
    // 60 flushes of 20 deltas of 100 levels: about 7 MB to each subscriber, while orders rest.
    for (let batch = 0; batch < 60; batch++) {
      const deltas = Array.from({ length: 20 }, (_, i) => ({ symbol: 'BTC-USDC', sequence: sequence++, bids: [], asks: levels(100, batch * 20 + i) }));
      server.store.events.dispatchEvent(new CustomEvent(topic(), { detail: deltas }));
      sent += deltas.length;
      if (batch % 6 === 0) {
        const r = await placeOrder(server.url, maker, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.001', limitGtc: { price: String(1000 + batch) } });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        sent += 1;
      }
      // The reading subscriber is never more than a flush behind.
      await pollUntil(() => received().length === sent, 10_000, 5);
    }

    // The slow ones let go of the topic, each at its bound, not at the end of the burst.
    await pollUntil(() => held() === baseline, 10_000);
    // The graphql-ws ones were cut from the execution they shared with the reading one, which goes on.
    expect(server.app.shared.stats).toMatchObject({ selections: 1, sinks: 1 });
    // The one that read got every event, in order, none twice.
    const sequences = received().map(BigInt);
    expect(sequences.length).toBe(sent);
    const injected = sequences.filter((s) => s >= 10n ** 12n);
    expect(injected).toEqual(Array.from({ length: 1_200 }, (_, i) => 10n ** 12n + BigInt(i)));
    const placed = sequences.filter((s) => s < 10n ** 12n);
    expect(placed.length).toBe(10);
    expect(placed.every((s, i) => i === 0 || s > (placed[i - 1] as bigint))).toBe(true);
    expect(fast.messages.filter((m) => m.type === 'error')).toEqual([]);

    // Reading again, each slow one finds the reason at the end of what it was sent.
    for (const s of ws) s.ws.resume();
    for (const s of sse) s.socket.resume();
    for (const s of ws) {
      await pollUntil(() => s.messages.some((m) => m.type === 'error'), 30_000);
      const error = s.messages.find((m) => m.type === 'error') as { id: string; payload: { message: string; extensions: Record<string, unknown> }[] };
      expect(error.id).toBe('book');
      expect(error.payload[0]?.extensions).toMatchObject({ code: 'SUBSCRIBER_TOO_SLOW', maxPendingEvents: MAX_PENDING });
      expect(error.payload[0]?.message).toContain('after');
      // The socket itself stays usable for a new subscription.
      expect(s.ws.readyState).toBe(s.ws.OPEN);
      s.ws.close();
    }
    for (const s of sse) {
      await pollUntil(() => s.text().includes('event: complete'), 30_000);
      expect(s.text()).toContain('"code":"SUBSCRIBER_TOO_SLOW"');
      s.socket.destroy();
    }

    // The process is alive and trading.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const after = await placeOrder(server.url, maker, { symbol: 'BTC-USDC', side: 'BUY', baseQty: '0.001', limitGtc: { price: '1100' } });
    expect(after.status).toBe(200);
    await pollUntil(() => received().length === sent + 1, 5_000);
    fast.ws.close();
  }, 120_000);
});
