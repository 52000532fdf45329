import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResumeFillsDocument, ResumeOrderUpdatesDocument } from '../generated/graphql/graphql.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { placeOrder, trader } from '../helpers/trading.ts';
import { wsClient } from '../helpers/graphql.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * Private streams carry a journal sequence, and a client that reconnects with
 * `after: <last sequence>` gets every event it missed exactly once, in order, then the
 * live stream (src/services/trading/streams.ts).
 */
let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

type Event = { sequence: string; key: string };

function follow(client: Client, query: string, after: string | undefined, pick: (data: Record<string, Record<string, string | number>>) => Event, into: Event[]) {
  return client.subscribe(
    { query, variables: after === undefined ? {} : { after } },
    { next: (r) => void into.push(pick(r.data as never)), error: () => undefined, complete: () => undefined },
  );
}

const orderEvent = (d: Record<string, Record<string, string | number>>): Event => {
  const o = d.orderUpdates as Record<string, string | number>;
  return { sequence: String(o.sequence), key: `${o.orderId}@${o.version}:${o.status}` };
};
const fillEvent = (d: Record<string, Record<string, string | number>>): Event => {
  const f = d.fills as Record<string, string | number>;
  return { sequence: String(f.sequence), key: `${f.orderId}#${f.matchId}:${f.qty}` };
};

describe('resumable order and fill streams', () => {
  it('a client that disconnects mid-burst and resumes after its last sequence gets every event once, in order', async () => {
    const maker = await trader(server.url, { ETH: '100' });
    const taker = await trader(server.url, { USDC: '1000000' });
    const auth = { authorization: maker.auth.authorization as string };

    // The reference: a subscriber connected for the whole burst.
    const reference = wsClient(server.url, auth);
    const allOrders: Event[] = [];
    const allFills: Event[] = [];
    follow(reference, ResumeOrderUpdatesDocument.toString(), undefined, orderEvent, allOrders);
    follow(reference, ResumeFillsDocument.toString(), undefined, fillEvent, allFills);

    // The client under test: connected at first, gone for the middle of the burst.
    const first = wsClient(server.url, auth);
    const seenOrders: Event[] = [];
    const seenFills: Event[] = [];
    follow(first, ResumeOrderUpdatesDocument.toString(), undefined, orderEvent, seenOrders);
    follow(first, ResumeFillsDocument.toString(), undefined, fillEvent, seenFills);
    await new Promise((r) => setTimeout(r, 300));

    const ROUNDS = 24;
    let disconnectedAt = -1;
    for (let i = 0; i < ROUNDS; i++) {
      // A resting sell, then a buy that fills it.
      const ask = await placeOrder(server.url, maker, { symbol: 'ETH-USDC', side: 'SELL', baseQty: '1', limitGtc: { price: '2000' } });
      const bid = await placeOrder(server.url, taker, { symbol: 'ETH-USDC', side: 'BUY', baseQty: '1', limitIoc: { price: '2000' } });
      expect(ask.status, JSON.stringify(ask.body)).toBe(200);
      expect(bid.status, JSON.stringify(bid.body)).toBe(200);
      if (i === ROUNDS / 3) {
        disconnectedAt = seenOrders.length;
        await first.dispose();
      }
    }
    expect(disconnectedAt).toBeGreaterThan(0);
    const lastOrder = seenOrders[seenOrders.length - 1] as Event;
    const lastFill = seenFills[seenFills.length - 1] as Event;

    const resumed = wsClient(server.url, auth);
    const resumedOrders: Event[] = [];
    const resumedFills: Event[] = [];
    follow(resumed, ResumeOrderUpdatesDocument.toString(), lastOrder.sequence, orderEvent, resumedOrders);
    follow(resumed, ResumeFillsDocument.toString(), lastFill.sequence, fillEvent, resumedFills);
    // Live events after the seam must follow the replay with no gap either.
    await new Promise((r) => setTimeout(r, 300));
    const tail = await placeOrder(server.url, maker, { symbol: 'ETH-USDC', side: 'SELL', baseQty: '1', limitGtc: { price: '2100' } });
    expect(tail.status).toBe(200);

    await pollUntil(async () => allOrders.length === 2 * ROUNDS + 1 && seenOrders.length + resumedOrders.length >= allOrders.length && seenFills.length + resumedFills.length >= allFills.length, 10_000);
    await new Promise((r) => setTimeout(r, 300));
    const orders = [...seenOrders, ...resumedOrders];
    const fills = [...seenFills, ...resumedFills];
    expect(orders).toEqual(allOrders);
    expect(fills).toEqual(allFills);
    // Every maker order: NEW then FILLED (one fill each), and the tail's NEW.
    expect(allOrders).toHaveLength(2 * ROUNDS + 1);
    expect(allFills).toHaveLength(ROUNDS);
    const sequences = orders.map((e) => BigInt(e.sequence));
    expect(sequences).toEqual([...sequences].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(new Set(sequences).size).toBe(sequences.length);
    await Promise.all([reference.dispose(), resumed.dispose()]);
  });

  it('refuses to resume after a sequence the stream has not reached', async () => {
    const someone = await trader(server.url, { USDC: '1' });
    const client = wsClient(server.url, { authorization: someone.auth.authorization as string });
    const errors: unknown[] = [];
    await new Promise<void>((resolve) => {
      client.subscribe(
        { query: ResumeOrderUpdatesDocument.toString(), variables: { after: (1n << 62n).toString() } },
        {
          next: (r) => void errors.push(...(r.errors ?? [])),
          error: (e) => {
            errors.push(e);
            resolve();
          },
          complete: resolve,
        },
      );
    });
    expect(JSON.stringify(errors)).toContain('after');
    await client.dispose();
  });
});
