import type { TypedEventTarget } from '@graphql-yoga/typed-event-target';
import { GraphQLError, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString, parse, subscribe, type ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { RESYNC } from '../../src/infra/eventBus.ts';
import { publicationListeners, Publications } from '../../src/services/publications.ts';
import { FAN_OUT_INTERVAL_MS, SharedSubscriptions, type FrameSocket } from '../../src/transport/graphql/sharedSubscriptions.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * Issue 29, "Subscriptions that share work": sockets with the same public selection share
 * one execution of each event and one serialised payload; other selections get their own;
 * a socket that stops reading is cut off alone. The schema is a stand-in that counts its
 * resolvers' runs: the real one's wiring is test/e2e/shared-subscriptions.test.ts.
 */
type Trade = { symbol: string; price: string; qty: string };
const LIMITS = { maxPendingEvents: 8, maxPendingBytes: 1 << 20 };

function fixture() {
  const events = new EventTarget() as TypedEventTarget<CustomEvent>;
  // The topic's own bound is the default one: the sockets' bound (LIMITS) is what is tested.
  const publications = new Publications<Trade>(events);
  const runs = { trade: 0, price: 0 };
  const TradeType = new GraphQLObjectType<Trade>({
    name: 'Trade',
    fields: {
      symbol: { type: GraphQLString },
      price: { type: GraphQLString, resolve: (t) => (runs.price++, t.price) },
      qty: { type: GraphQLString },
    },
  });
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLString } } }),
    subscription: new GraphQLObjectType({
      name: 'Subscription',
      fields: {
        publicTrades: {
          type: TradeType,
          args: { symbol: { type: new GraphQLNonNull(GraphQLString) } },
          subscribe: (_root, args: { symbol: string }) => {
            if (args.symbol === 'NOPE') throw new GraphQLError('no such market', { extensions: { code: 'MARKET_NOT_FOUND' } });
            return publications.subscribe(`trades:${args.symbol}`);
          },
          resolve: (t: Trade) => (runs.trade++, t),
        },
        orderUpdates: { type: TradeType, subscribe: () => publications.subscribe('orders:A'), resolve: (t: Trade) => t },
      },
    }),
  });
  const shared = new SharedSubscriptions(LIMITS);
  let socketId = 0;
  /** A socket as graphql-ws holds it: its subscription's stream read to its end. */
  const open = async (query: string, variables?: Record<string, unknown>, socket: FakeSocket = fakeSocket()) => {
    const document = parse(query);
    const key = shared.keyOf({ document, variables });
    if (key === undefined) throw new Error('not shareable');
    const id = `s${++socketId}`;
    const held = await shared.join(key, async () => (await subscribe({ schema, document, variableValues: variables ?? null })) as never, socket, id);
    const state = {
      id,
      socket,
      held,
      ended: undefined as undefined | { error?: unknown },
      /** The client completes the subscription, or its socket closes. */
      leave: async () => void (Symbol.asyncIterator in held && (await held.return(undefined))),
    };
    if (Symbol.asyncIterator in held) {
      void (async () => {
        try {
          for await (const _ of held) throw new Error('the shared stream yields nothing');
          state.ended = {};
        } catch (error) {
          state.ended = { error };
        }
      })();
    }
    return state;
  };
  const publish = (symbol: string, n: number, from = 0) => {
    for (let i = from; i < from + n; i++) publications.publish(`trades:${symbol}`, { symbol, price: `${100 + i}.5`, qty: '1' });
  };
  return { events, shared, runs, open, publish };
}

/** `writes`: what the kernel would be handed, one per uncorked send or per corked batch. */
type FakeSocket = FrameSocket & { frames: string[]; writes: number; reading: boolean; release(): void };
function fakeSocket(): FakeSocket {
  const unsent: (() => void)[] = [];
  let corked = 0;
  let batched = false;
  const socket: FakeSocket = {
    frames: [],
    writes: 0,
    reading: true,
    bufferedAmount: 0,
    send(frame, sent) {
      socket.frames.push(frame);
      if (corked > 0) batched = true;
      else socket.writes += 1;
      if (socket.reading) queueMicrotask(() => sent());
      else unsent.push(() => sent());
    },
    cork() {
      corked += 1;
    },
    uncork() {
      corked -= 1;
      if (corked === 0 && batched) {
        batched = false;
        socket.writes += 1;
      }
    },
    release() {
      socket.reading = true;
      for (const sent of unsent.splice(0)) sent();
    },
  };
  return socket;
}

const payloadOf = (frame: string, id: string) => {
  const prefix = `{"id":"${id}","type":"next","payload":`;
  expect(frame.startsWith(prefix)).toBe(true);
  return frame.slice(prefix.length, -1);
};

describe('shared public subscriptions', () => {
  it('execute each event once per selection, whatever the number of sockets, and send each the same text', async () => {
    const f = fixture();
    const K = 20;
    const sameSelection = await Promise.all(Array.from({ length: K }, () => f.open('subscription { publicTrades(symbol: "BTC") { symbol price } }')));
    // The same selection written otherwise (spacing, variables) is the same execution.
    sameSelection.push(await f.open('subscription   {publicTrades(symbol: "BTC") {\n symbol price }}'));
    const viaVariables = [
      await f.open('subscription($s: String!) { publicTrades(symbol: $s) { symbol price } }', { s: 'BTC' }),
      await f.open('subscription($s: String!) { publicTrades(symbol: $s) { symbol price } }', { s: 'BTC' }),
    ];
    const otherFields = await f.open('subscription { publicTrades(symbol: "BTC") { price qty } }');
    const otherSymbol = await f.open('subscription { publicTrades(symbol: "ETH") { symbol price } }');
    expect(f.shared.stats).toMatchObject({ selections: 4, sinks: K + 5 });
    expect(publicationListeners(f.events)).toBe(4);

    const N = 10;
    f.publish('BTC', N);
    f.publish('ETH', 3);
    await pollUntil(() => otherSymbol.socket.frames.length === 3 && [...sameSelection, ...viaVariables, otherFields].every((s) => s.socket.frames.length === N), 2_000, 1);
    // One run of the root resolver per event and selection: 3 BTC selections x N, 1 ETH x 3.
    expect(f.runs.trade).toBe(3 * N + 3);
    expect(f.runs.price).toBe(3 * N + 3);
    expect(f.shared.stats.executions).toBe(3 * N + 3);

    // Every socket of a selection is sent the same payload text, behind its own id.
    const texts = sameSelection[0]!.socket.frames.map((frame) => payloadOf(frame, sameSelection[0]!.id));
    expect(texts.map((t) => JSON.parse(t))).toEqual(Array.from({ length: N }, (_, i) => ({ data: { publicTrades: { symbol: 'BTC', price: `${100 + i}.5` } } })));
    for (const s of [...sameSelection, ...viaVariables]) expect(s.socket.frames.map((frame) => payloadOf(frame, s.id))).toEqual(texts);
    expect(JSON.parse(otherFields.socket.frames[0]!)).toEqual({ id: otherFields.id, type: 'next', payload: { data: { publicTrades: { price: '100.5', qty: '1' } } } });

    // Sockets leave one by one; the last of a selection stops its execution and listener.
    for (const s of sameSelection.slice(1)) await s.leave();
    expect(f.shared.stats).toMatchObject({ selections: 4, sinks: 5 });
    for (const s of [sameSelection[0]!, ...viaVariables, otherFields, otherSymbol]) await s.leave();
    expect(f.shared.stats).toMatchObject({ selections: 0, sinks: 0 });
    await pollUntil(() => publicationListeners(f.events) === 0, 2_000, 1);
    f.publish('BTC', 1);
    await new Promise((r) => setTimeout(r, 20));
    expect(f.runs.trade).toBe(3 * N + 3);
  });

  it('cut off a socket that falls behind with SUBSCRIBER_TOO_SLOW, alone: the others get every event', async () => {
    const f = fixture();
    const query = 'subscription { publicTrades(symbol: "BTC") { price } }';
    const reading = await f.open(query);
    const stalled = fakeSocket();
    stalled.reading = false;
    const slow = await f.open(query, undefined, stalled);
    f.publish('BTC', 30);
    await pollUntil(() => reading.socket.frames.length === 30, 2_000, 1);
    expect(slow.ended).toBeUndefined();
    // Past the bound of pending frames (8): the next batch is not written to it but ends it.
    f.publish('BTC', 1, 30);
    await pollUntil(() => slow.ended !== undefined, 2_000, 1);
    expect(stalled.frames).toHaveLength(30);
    const error = slow.ended?.error as GraphQLError;
    expect(error.extensions).toMatchObject({ code: 'SUBSCRIBER_TOO_SLOW', maxPendingEvents: LIMITS.maxPendingEvents });
    expect(f.shared.stats).toMatchObject({ selections: 1, sinks: 1 });
    f.publish('BTC', 5, 31);
    await pollUntil(() => reading.socket.frames.length === 36, 2_000, 1);
    expect(f.runs.trade).toBe(36);
    expect(reading.ended).toBeUndefined();
    await reading.leave();
  });

  it('write a burst to each socket as one batch after the first event, in order, and an event after a quiet interval at once', async () => {
    const f = fixture();
    const query = 'subscription { publicTrades(symbol: "BTC") { price } }';
    const sockets = await Promise.all(Array.from({ length: 3 }, () => f.open(query)));
    const prices = (s: (typeof sockets)[number]) => s.socket.frames.map((frame) => (JSON.parse(payloadOf(frame, s.id)) as { data: { publicTrades: { price: string } } }).data.publicTrades.price);
    f.publish('BTC', 20);
    await pollUntil(() => sockets.every((s) => s.socket.frames.length === 20), 2_000, 1);
    // The first event leaves at once; the 19 that followed within the interval, together at its end.
    for (const s of sockets) {
      expect(s.socket.writes).toBe(2);
      expect(prices(s)).toEqual(Array.from({ length: 20 }, (_, i) => `${100 + i}.5`));
    }
    await new Promise((r) => setTimeout(r, FAN_OUT_INTERVAL_MS + 10));
    f.publish('BTC', 1, 20);
    await pollUntil(() => sockets.every((s) => s.socket.frames.length === 21), 2_000, 1);
    for (const s of sockets) expect(s.socket.writes).toBe(3);
    expect(f.runs.trade).toBe(21);
    for (const s of sockets) await s.leave();
  });

  it('cut off a socket whose buffered bytes pass the bound', async () => {
    const f = fixture();
    const query = 'subscription { publicTrades(symbol: "BTC") { price } }';
    const full = fakeSocket();
    const slow = await f.open(query, undefined, full);
    f.publish('BTC', 1);
    await pollUntil(() => full.frames.length === 1, 2_000, 1);
    (full as { bufferedAmount: number }).bufferedAmount = LIMITS.maxPendingBytes + 1;
    f.publish('BTC', 1, 1);
    await pollUntil(() => slow.ended !== undefined, 2_000, 1);
    expect((slow.ended?.error as GraphQLError).extensions.code).toBe('SUBSCRIBER_TOO_SLOW');
    expect(f.shared.stats.selections).toBe(0);
  });

  it('answer a refused selection with its result, to each socket, and keep nothing', async () => {
    const f = fixture();
    const [a, b] = await Promise.all([1, 2].map(() => f.open('subscription { publicTrades(symbol: "NOPE") { price } }')));
    for (const s of [a!, b!]) expect((s.held as ExecutionResult).errors?.[0]?.extensions).toMatchObject({ code: 'MARKET_NOT_FOUND' });
    expect(f.shared.stats).toMatchObject({ selections: 0, sinks: 0 });
    expect(publicationListeners(f.events)).toBe(0);
  });

  it('end every socket of a selection with the error that ends its execution', async () => {
    const f = fixture();
    const sockets = await Promise.all([1, 2, 3].map(() => f.open('subscription { publicTrades(symbol: "BTC") { price } }')));
    // Messages lost on the way (a Redis outage): the topic's stream ends with RESYNC_REQUIRED.
    f.events.dispatchEvent(new CustomEvent('trades:BTC', { detail: RESYNC }));
    await pollUntil(() => sockets.every((s) => s.ended !== undefined), 2_000, 1);
    // The stand-in schema's stream has no GraphQL wrapper: the error is the topic's own.
    for (const s of sockets) expect(s.ended?.error).toMatchObject({ code: 'RESYNC_REQUIRED' });
    expect(f.shared.stats).toMatchObject({ selections: 0, sinks: 0 });
  });

  it('share only the listed public fields, by document, operation and variables', () => {
    const shared = new SharedSubscriptions(LIMITS);
    const key = (query: string, variables?: Record<string, unknown>, operationName?: string) => shared.keyOf({ document: parse(query), variables, operationName });
    expect(key('subscription { orderUpdates { price } }')).toBeUndefined();
    expect(key('query { ok }')).toBeUndefined();
    expect(key('subscription { ... on Subscription { publicTrades(symbol: "BTC") { price } } }')).toBeUndefined();
    const v = 'subscription($a: String, $b: String) { publicTrades(symbol: $a) { price } }';
    expect(key(v, { a: 'X', b: 'Y' })).toBe(key(v, { b: 'Y', a: 'X' }));
    expect(key(v, { a: 'X' })).not.toBe(key(v, { a: 'Z' }));
    const two = 'subscription A { publicTrades(symbol: "X") { price } } subscription B { publicTrades(symbol: "Y") { price } }';
    expect(key(two, undefined, 'A')).not.toBe(key(two, undefined, 'B'));
  });
});
