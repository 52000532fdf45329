import { setImmediate } from 'node:timers/promises';
import { Repeater } from '@graphql-yoga/subscription';
import { errors } from '../../domain/errorCatalogue.ts';
import { invalidArgument } from '../../domain/errors.ts';
import type { LedgerAccount } from '../../generated/prisma/client.ts';
import type { OrderVersion, TradeRow, TriggerEventRow, WriteSet } from './writeSet.ts';

/**
 * The private trading streams (order versions, fills, trigger events, balances): their payloads, the sequence that
 * numbers every event, and resuming a stream after a sequence without a gap or a duplicate.
 *
 * An event's sequence is its journal entry's sequence shifted left by EVENT_BITS, plus the
 * event's index within the entry: unique, increasing in commit order, and derived from the
 * entry alone, so the live stream and a replay from the journal number events alike.
 */
export const EVENT_BITS = 20n;
const MAX_EVENTS_PER_ENTRY = 1 << Number(EVENT_BITS);

export const entryOf = (sequence: bigint): bigint => sequence >> EVENT_BITS;

export interface OrderEventPayload {
  accountPublicId: string;
  order: OrderVersion;
  symbol: string;
  sequence: bigint;
}

export interface FillPayload {
  accountPublicId: string;
  trade: TradeRow;
  orderPublicId: string;
  symbol: string;
  sequence: bigint;
}

export interface TriggerEventPayload {
  accountPublicId: string;
  event: TriggerEventRow;
  symbol: string;
  sequence: bigint;
}

/** A balance of the account as an entry left it (E18 amounts). */
export interface BalanceEventPayload {
  accountPublicId: string;
  ledgerAccount: LedgerAccount;
  assetId: number;
  available: bigint;
  held: bigint;
  sequence: bigint;
}

/** Changed price levels of one symbol, absolute quantities (0 = level gone), in sequence. */
export interface BookDeltaPayload {
  symbol: string;
  sequence: bigint;
  bids: { price: bigint; qty: bigint }[];
  asks: { price: bigint; qty: bigint }[];
}

export interface PublicTradePayload {
  symbol: string;
  matchId: bigint;
  price: bigint;
  qty: bigint;
  takerSide: 'BUY' | 'SELL';
  executedAt: Date;
}

/**
 * Trading's topics, published once their journal entry is committed, from that entry. An
 * account's streams are keyed by its public id, a market's by its symbol.
 */
export interface TradingTopics {
  /** An account's order versions. */
  orders: { key: string; payload: OrderEventPayload };
  /** An account's fills. */
  fills: { key: string; payload: FillPayload };
  /** An account's trigger events. */
  triggers: { key: string; payload: TriggerEventPayload };
  /** An account's balances as entries left them. */
  balances: { key: string; payload: BalanceEventPayload };
  /** A market's order-book deltas. */
  book: { key: string; payload: BookDeltaPayload };
  /** A market's trades. */
  trades: { key: string; payload: PublicTradePayload };
}

/**
 * Every topic of trading, each kept in the process that publishes it: one process per
 * database runs the engine (a second refuses to start, docs/scaling.md), so that process
 * alone publishes these topics and serves their subscribers, and a copy sent to Redis would
 * reach no one. A record, so a topic added to TradingTopics cannot be left out.
 */
const LOCAL_TOPICS: Record<keyof TradingTopics, true> = { orders: true, fills: true, triggers: true, balances: true, book: true, trades: true };
export const TRADING_LOCAL_TOPICS = Object.keys(LOCAL_TOPICS) as (keyof TradingTopics)[];

/** The private streams: an account's topics, each resumable from the journal. */
export type PrivateStream = 'orders' | 'fills' | 'triggers' | 'balances';
/** The public streams of a market. */
export type MarketStream = 'book' | 'trades';

/**
 * The private events of one journal entry: its order versions, then its fills, then its
 * trigger events, then the balances it changed; numbered in that order, so no two events of
 * an entry share a sequence, whatever their stream.
 */
export function entryEvents(seq: bigint, ws: WriteSet, symbolOf: (symbolId: number) => string): { [S in PrivateStream]: TradingTopics[S]['payload'][] } {
  if (ws.versions.length + ws.trades.length + ws.triggerEvents.length + ws.balancesAfter.size > MAX_EVENTS_PER_ENTRY) throw new Error(`journal entry ${seq} has more events than its sequence numbers can tell apart`);
  const base = seq << EVENT_BITS;
  const latest = new Map<bigint, OrderVersion>();
  const orders = ws.versions.map((order, i) => {
    latest.set(order.id, order);
    return { accountPublicId: order.accountPublicId, order, symbol: symbolOf(order.symbolId), sequence: base + BigInt(i) };
  });
  const fills = ws.trades.map((trade, i) => {
    // A fill always changes its order, so the order's version is in the same entry.
    const order = latest.get(trade.orderId) as OrderVersion;
    return { accountPublicId: order.accountPublicId, trade, orderPublicId: order.publicId, symbol: symbolOf(trade.symbolId), sequence: base + BigInt(orders.length + i) };
  });
  const triggers = ws.triggerEvents.map((event, i) => ({ accountPublicId: event.accountPublicId, event, symbol: symbolOf(event.symbolId), sequence: base + BigInt(orders.length + fills.length + i) }));
  const first = orders.length + fills.length + triggers.length;
  const balances = [...ws.balancesAfter.values()].map((b, i) => ({
    accountPublicId: b.accountPublicId,
    ledgerAccount: b.ledgerAccount,
    assetId: b.assetId,
    available: b.available,
    held: b.held,
    sequence: base + BigInt(first + i),
  }));
  return { orders, fills, triggers, balances };
}

/**
 * The public events of one journal entry: an order-book delta per change of a book (its
 * level rows, which share the change's sequence), and a trade per match (its taker's row).
 */
export function entryMarketEvents(ws: WriteSet, symbolOf: (symbolId: number) => string): { [S in MarketStream]: TradingTopics[S]['payload'][] } {
  const book: BookDeltaPayload[] = [];
  let delta: BookDeltaPayload | undefined;
  let deltaSymbolId: number | undefined;
  for (const level of ws.bookLevels) {
    if (delta === undefined || deltaSymbolId !== level.symbolId || delta.sequence !== level.sequence) {
      delta = { symbol: symbolOf(level.symbolId), sequence: level.sequence, bids: [], asks: [] };
      deltaSymbolId = level.symbolId;
      book.push(delta);
    }
    (level.side === 'BUY' ? delta.bids : delta.asks).push({ price: level.price, qty: level.qty });
  }
  const trades = ws.trades
    .filter((t) => !t.isMaker)
    .map((t) => ({ symbol: symbolOf(t.symbolId), matchId: t.matchId, price: t.price, qty: t.qty, takerSide: t.side, executedAt: t.executedAt }));
  return { book, trades };
}

export interface ReplaySource<T> {
  /** The last entry durable now. */
  lastEntry(): bigint;
  /** The first entry the journal still keeps (past the last when it keeps none). */
  firstEntry(): Promise<bigint>;
  /** This stream's events of entries after `after` through `through`, in order, a page of the journal at a time. */
  pages(after: bigint, through: bigint): AsyncIterable<T[]>;
}

/**
 * `live` preceded by every event after `after` the journal holds, each exactly once and
 * in order. The live subscription is opened first and may become active only later
 * (Redis SUBSCRIBE is asynchronous): when its first event comes, the entries between
 * the replay and that event are read from the journal too, so nothing falls in between;
 * after that, live events arrive in order and any already replayed are skipped.
 *
 * The replay reads a page, hands its events to the subscriber (each push waits for the
 * subscriber to take it), then lets the event loop run before the next page: a long
 * replay never holds the process, and it ends as soon as the subscriber leaves.
 */
export async function resumeAfter<T extends { sequence: bigint }>(live: AsyncIterableIterator<T>, after: bigint, source: ReplaySource<T>): Promise<AsyncIterableIterator<T>> {
  if (after < 0n) throw invalidArgument('after', 'must not be negative', 'min');
  const from = entryOf(after);
  if (from > source.lastEntry()) throw invalidArgument('after', 'is ahead of the stream', 'max');
  // Entries from + 1 onwards are needed; any of them gone means events may be missing.
  if ((await source.firstEntry()) > from + 1n) {
    throw invalidArgument('after', 'is older than the journal keeps: read the current state (open orders, fills, triggers, balances), then subscribe without after', 'retention', errors.STREAM_RESUME_TOO_OLD);
  }
  // Starts the live subscription now, before the replay reads the journal.
  let next = live.next();
  return new Repeater<T>(async (push, stop) => {
    let stopped = false;
    void stop.then(() => {
      stopped = true;
      void live.return?.();
    });
    let delivered = after;
    let checked = from > 0n ? from - 1n : 0n;
    const deliver = async (events: T[]) => {
      for (const e of events) {
        if (stopped) return;
        if (e.sequence <= delivered) continue;
        delivered = e.sequence;
        await push(e);
      }
    };
    const replay = async (through: bigint) => {
      if (through <= checked) return;
      for await (const page of source.pages(checked, through)) {
        await deliver(page);
        await setImmediate();
        // Leaving the loop closes the source before it reads another page.
        if (stopped) return;
      }
      checked = through;
    };
    try {
      await replay(source.lastEntry());
      let seamClosed = false;
      while (!stopped) {
        const r = await next;
        if (r.done) break;
        const entry = entryOf(r.value.sequence);
        if (!seamClosed) {
          await replay(entry - 1n);
          seamClosed = true;
        }
        await deliver([r.value]);
        next = live.next();
      }
    } finally {
      stop();
    }
  });
}
