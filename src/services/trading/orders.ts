import type { TypedEventTarget } from '@graphql-yoga/typed-event-target';
import type { Logger } from 'pino';
import type { Caller } from '../../auth/caller.ts';
import { ApiError, invalidArgument } from '../../domain/errors.ts';
import { newPublicId } from '../../domain/ids.ts';
import { OrderBook, quoteNotional, type MatchEvent, type PlaceOrder, type TradeEvent } from '../../domain/matching/index.ts';
import { parseScaled } from '../../domain/money.ts';
import type { OrderCloseReason, Prisma } from '../../generated/prisma/client.ts';
import type { Clock } from '../../infra/clock.ts';
import type { Db } from '../../infra/database.ts';
import type { SqlQueryable } from '../../infra/migrations.ts';
import { requirePermission, resolveAccount, type AccountRef } from '../access.ts';
import type { Market, MarketCatalog } from '../markets.ts';
import { once } from '../idempotency.ts';
import { PageTokens, pageLimit, toPage } from '../pageTokens.ts';
import type { RateLimiter } from '../rateLimits.ts';
import { reReservation, reservationFor as reserve, settleFill, type CreditLeg, type DebitLeg } from '../../domain/settlement/index.ts';
import { BalanceBook, type BalanceRef, type LegSpec } from './balances.ts';
import { MonotonicIds } from './ids.ts';
import { Journal } from './journal.ts';
import { isFenceLost, type EngineFence } from './persist.ts';
import { Projector } from './projector.ts';
import { entryEvents, resumeAfter, type BookDeltaPayload, type FillPayload, type OrderEventPayload, type PublicTradePayload } from './streams.ts';
import { Publications } from './publications.ts';
import { Sequencer } from './sequencer.ts';
import { validateNewOrder, type CreateOrderInput, type ValidatedOrder } from './orderInput.ts';
import { attachedRiskView } from './views.ts';
import type { OrderRow, TradeRow, WriteSet } from './writeSet.ts';

export const CLIENT_ORDER_ID_RETENTION_MS = 24 * 3600 * 1000;
const CLIENT_ID_PRUNE_MS = 60_000;
const CLIENT_ID_IDLE_MS = 10 * 60_000;
const VIP_TIER_TTL_MS = 60_000;
/** More than the book changes two uncommitted groups can make. */
const BOOK_SEQUENCE_JUMP = 1_000_000n;
/** How long a read of the projected tables waits for the changes acknowledged before it. */
const READ_BARRIER_MS = 2_000;
/** Journal entries are kept this long once projected: the window a stream can resume in. */
export const JOURNAL_RETENTION_MS = 24 * 3600 * 1000;

type BookLevels = { bids: Map<bigint, bigint>; asks: Map<bigint, bigint>; sequence: bigint };
type CloseInfo = { status: 'FILLED' | 'CANCELED' | 'EXPIRED'; reason: OrderCloseReason | null };
/** How an order may be named: by exactly one id, or (batch cancel items) by one or both. */
type Ids = 'one' | 'one-or-both';
/** Why a cancel the account asked for closed its orders. */
type UserCancel = Extract<OrderCloseReason, 'USER_CANCELED' | 'CANCEL_ALL' | 'DEAD_MAN_SWITCH'>;

const CANCEL_REASONS: Record<string, CloseInfo> = {
  IOC_REMAINDER: { status: 'CANCELED', reason: 'IOC_REMAINDER' },
  STP: { status: 'CANCELED', reason: 'SELF_TRADE_PREVENTION' },
  EXPIRED: { status: 'EXPIRED', reason: 'GTD_EXPIRED' },
  POST_ONLY: { status: 'CANCELED', reason: 'POST_ONLY_WOULD_TAKE' },
  NOTIONAL_CAP: { status: 'CANCELED', reason: 'QUOTE_DEBIT_LIMIT' },
  MARKET_NO_LIQUIDITY: { status: 'CANCELED', reason: 'NO_LIQUIDITY' },
  PRICE_PROTECTION: { status: 'CANCELED', reason: 'SLIPPAGE_LIMIT' },
};

export interface OrdersDeps {
  db: Db;
  /** Raw SQL on the same database: each batch is committed as one statement. */
  sql: SqlQueryable;
  clock: Clock;
  markets: MarketCatalog;
  limiter: RateLimiter;
  pageTokens: PageTokens;
  events: TypedEventTarget<CustomEvent>;
  topicPrefix: string;
  systemAccounts: { fees: bigint; custody: bigint };
  logger: Logger;
  /** The engine fence this process took with its lock: every commit checks it. */
  fence: EngineFence;
  /** Called once if a commit finds the fence moved: another process owns trading state now. */
  onFenced(err: unknown): void;
  /** How long the projector lets entries gather before applying them (0: at once). */
  projectionDelayMs?: number;
}

/**
 * Orders (spec 2.7, 4.5) over one matching engine per symbol. Requests are validated and
 * admitted here, then run as sequencer jobs: reserve balance, match, settle fills with
 * fees, and record everything in the batch's write set, acknowledged only once committed.
 */
export function createOrdersService(deps: OrdersDeps) {
  const { db, clock, markets } = deps;
  const balances = new BalanceBook(db);
  let orderIds: MonotonicIds;
  let transferIds: MonotonicIds;
  let engines = new Map<number, OrderBook>();
  /** Per symbol: level totals mirrored from engine events, and the delta sequence. */
  let books = new Map<number, BookLevels>();
  /** Open orders, by internal id: the engine knows the book, this the rest of the row. */
  let open = new Map<bigint, OrderRow & { accountPublicId: string }>();
  const vipTiers = new Map<bigint, { tier: number; at: number }>();
  const publications = new Publications<OrderEventPayload | FillPayload | PublicTradePayload | BookDeltaPayload>(deps.events);

  const journal = new Journal(deps.sql, deps.fence);
  const projector = new Projector(deps.sql, journal, { name: 'trading', logger: deps.logger, delayMs: deps.projectionDelayMs ?? 0 });
  const symbolOf = (symbolId: number) => (markets.marketById(symbolId) as Market).symbol;

  /**
   * A group is acknowledged by its journal append alone; then its private events go out,
   * numbered from the entry, and the projector brings the read tables up to it.
   */
  async function commit(ws: WriteSet): Promise<void> {
    if (ws.isEmpty) return;
    const seq = await journal.append(ws);
    projector.enqueue({ seq, ws });
    const { orders, fills } = entryEvents(seq, ws, symbolOf);
    for (const e of orders) publications.publish(`${deps.topicPrefix}orders:${e.accountPublicId}`, e);
    for (const e of fills) publications.publish(`${deps.topicPrefix}fills:${e.accountPublicId}`, e);
  }

  /** Reads of the projected tables start once they reflect every acknowledged change. */
  const readable = () => projector.reached(journal.lastSeq, READ_BARRIER_MS);

  /** Brings the read tables up to the end of the journal: memory is rebuilt from them. */
  async function syncFromJournal(): Promise<void> {
    await journal.open(await projector.open());
    await projector.catchUp();
  }

  let fenced = false;
  const sequencer = new Sequencer(
    commit,
    async (err) => {
      // Fenced off for good: rebuilding would only read what the new owner writes. The
      // sequencer keeps refusing work while this throws.
      if (fenced || isFenceLost(err)) {
        if (!fenced) deps.onFenced(err);
        fenced = true;
        throw err;
      }
      deps.logger.error({ err }, 'a trading batch failed (its commit, or a job with a bug): rebuilding books and balances from the database');
      balances.reset();
      // The sequencer retries with backoff and refuses work meanwhile; say why each time.
      await rebuild().catch((rebuildErr: unknown) => {
        deps.logger.error({ err: rebuildErr }, 'rebuilding the trading state failed: trading stays refused until it succeeds');
        throw rebuildErr;
      });
    },
  );

  /**
   * A job's time, read inside the job: jobs then carry times in the order they were
   * applied, so ledger legs listed by time chain their balances.
   */
  const jobTime = () => ({ now: clock.now(), nowNs: clock.nowNs() });

  const tradingRef = (accountId: bigint, assetId: number): BalanceRef => ({ accountId, ledgerAccount: 'TRADING', assetId });

  /**
   * Loads the books from PostgreSQL beside the current ones and swaps them in at once, so
   * nothing ever finds an engine missing; after a failed commit the sequencer refuses work
   * and book snapshots until the swap.
   */
  async function rebuild(): Promise<void> {
    await syncFromJournal();
    const nextOrderIds = await MonotonicIds.after(db, 'Order');
    const nextTransferIds = await MonotonicIds.after(db, 'LedgerTransfer');
    const nextEngines = new Map<number, OrderBook>();
    const nextOpen = new Map<bigint, OrderRow & { accountPublicId: string }>();
    const nextBooks = new Map<number, BookLevels>();
    for (const market of markets.markets) {
      // Snapshots may have shown changes that were never committed, under numbers above the
      // stored one: start past any of them, durably, so no number is ever reused with other
      // content (subscribers see a gap and fetch a new snapshot).
      const seq = await db.marketSequence.update({ where: { symbolId: market.symbolId }, data: { lastBookSeq: { increment: BOOK_SEQUENCE_JUMP } } });
      const engine = new OrderBook({
        symbol: market.symbol,
        tickSize: market.tickSize,
        baseScale: market.baseQuantityScale,
        quoteScale: market.quoteQuantityScale,
        nextMatchId: seq.lastMatchId + 1n,
        nextPrioritySeq: seq.lastPrioritySeq + 1n,
      });
      const rows = await db.order.findMany({
        where: { symbolId: market.symbolId, isOpen: true },
        orderBy: { prioritySeq: 'asc' },
        include: { account: { select: { publicId: true } } },
      });
      engine.restore(
        rows.map((r) => ({
          orderId: r.id,
          accountId: r.accountId,
          side: r.side,
          tif: r.tif as 'GTC' | 'GTD',
          price: r.price,
          qty: r.leavesQty,
          prioritySeq: r.prioritySeq,
          postOnly: r.postOnly,
          stpMode: r.stpMode,
          ...(r.expireAtTsNs !== null ? { expireAtNs: r.expireAtTsNs } : {}),
        })),
      );
      // Every account with a resting order may be charged as a maker: its balances and tier
      // must be in memory before any job matches against it.
      const makers = [...new Set(rows.map((r) => r.accountId))];
      await balances.load(refsFor(makers, market));
      await loadTiers(makers);
      for (const r of rows) {
        const { account, ...row } = r;
        nextOpen.set(r.id, { ...row, cumNotionalQ9: BigInt(row.cumNotionalQ9.toFixed(0)), inheritedNotionalQ9: BigInt(row.inheritedNotionalQ9.toFixed(0)), heldE18: BigInt(row.heldE18.toFixed(0)), accountPublicId: account.publicId } as OrderRow & { accountPublicId: string });
      }
      nextEngines.set(market.symbolId, engine);
      const depth = engine.depth();
      nextBooks.set(market.symbolId, {
        bids: new Map(depth.bids.map((l) => [l.price, l.qty])),
        asks: new Map(depth.asks.map((l) => [l.price, l.qty])),
        sequence: seq.lastBookSeq,
      });
    }
    orderIds = nextOrderIds;
    transferIds = nextTransferIds;
    engines = nextEngines;
    open = nextOpen;
    books = nextBooks;
    // Every group not yet committed was refused: the database holds every retained id.
    clientIds.clear();
    // A snapshot taken before the rebuild may show changes that were refused. An empty delta
    // under the jumped sequence tells every subscriber at once that its book is stale (the
    // gap), instead of at the symbol's next change, which in a quiet market may be long.
    for (const market of markets.markets) {
      const sequence = (books.get(market.symbolId) as BookLevels).sequence;
      publications.publish(`${deps.topicPrefix}book:${market.symbol}`, { symbol: market.symbol, sequence, bids: [], asks: [] });
    }
  }

  function marketOf(symbol: string, fieldPath = 'order.symbol'): Market {
    const m = markets.market(symbol);
    if (!m) throw invalidArgument(fieldPath, `is not a listed symbol`, 'symbol', 'UNKNOWN_SYMBOL');
    return m;
  }

  function engineOf(market: Market): OrderBook {
    return engines.get(market.symbolId) as OrderBook;
  }

  /** The balances a job on `account` in `market` may touch, loaded before it runs. */
  function refsFor(accountIds: bigint[], market: Market): BalanceRef[] {
    const ids = [...new Set([...accountIds, deps.systemAccounts.fees])];
    return ids.flatMap((id) => [tradingRef(id, market.base.unifiedAssetId), tradingRef(id, market.quote.unifiedAssetId)]);
  }

  /**
   * Applies engine events to order rows, balances and the write set (inside a job).
   * `userCancel` is recorded as the close reason of orders the caller's request canceled.
   */
  function applyEvents(ws: WriteSet, market: Market, events: MatchEvent[], nowNs: bigint, now: Date, touched: Set<bigint>, userCancel: UserCancel = 'USER_CANCELED') {
    const book = books.get(market.symbolId) as BookLevels;
    const changed = new Map<string, { side: 'BUY' | 'SELL'; price: bigint }>();
    const level = (side: 'BUY' | 'SELL', price: bigint, delta: bigint) => {
      const levels = side === 'BUY' ? book.bids : book.asks;
      const qty = (levels.get(price) ?? 0n) + delta;
      if (qty === 0n) levels.delete(price);
      else levels.set(price, qty);
      changed.set(`${side}:${price}`, { side, price });
    };
    for (const e of events) {
      switch (e.type) {
        case 'trade': {
          settle(ws, market, e, nowNs, now);
          touched.add(e.makerOrderId as bigint).add(e.takerOrderId as bigint);
          level(e.takerSide === 'BUY' ? 'SELL' : 'BUY', e.price, -e.qty);
          const trade: PublicTradePayload = { symbol: market.symbol, matchId: e.matchId, price: e.price, qty: e.qty, takerSide: e.takerSide, executedAt: now };
          sequencer.onCommit(() => publications.publish(`${deps.topicPrefix}trades:${market.symbol}`, trade));
          break;
        }
        case 'modified':
          if (e.priorityKept) level(e.side, e.price, e.qty - e.oldQty);
          else level(e.side, e.oldPrice, -e.oldQty);
          break;
        case 'canceled':
        case 'decremented': {
          if (e.wasResting) level(e.side, e.price, e.type === 'canceled' ? -e.remaining : -e.qty);
          const row = open.get(e.orderId as bigint);
          if (!row) break;
          if (e.type === 'decremented') {
            row.leavesQty = e.remaining;
          } else {
            row.leavesQty = 0n;
            row.isOpen = false;
            const close = e.reason === 'USER' ? { status: 'CANCELED' as const, reason: userCancel } : (CANCEL_REASONS[e.reason] as CloseInfo);
            row.status = close.status;
            row.closeReason = close.reason;
            row.terminalAt = now;
          }
          touched.add(row.id);
          break;
        }
        case 'rested': {
          level(e.side, e.price, e.qty);
          const row = open.get(e.orderId as bigint);
          if (row) {
            row.prioritySeq = e.prioritySeq;
            touched.add(row.id);
          }
          break;
        }
        default:
          break;
      }
    }
    for (const id of touched) {
      const row = open.get(id);
      if (!row) continue;
      if (!row.isOpen && row.heldE18 > 0n) {
        const heldAsset = row.side === 'BUY' ? market.quote.unifiedAssetId : market.base.unifiedAssetId;
        balances.release(ws, tradingRef(row.accountId, heldAsset), row.heldE18);
        row.heldE18 = 0n;
      }
      row.version += 1;
      // The new version is committed with the group, then streamed from its journal entry.
      ws.order(row);
      if (!row.isOpen) open.delete(id);
    }
    if (changed.size > 0) {
      book.sequence += 1n;
      const pick = (side: 'BUY' | 'SELL') =>
        [...changed.values()]
          .filter((c) => c.side === side)
          .map((c) => ({ price: c.price, qty: (side === 'BUY' ? book.bids : book.asks).get(c.price) ?? 0n }));
      const delta: BookDeltaPayload = { symbol: market.symbol, sequence: book.sequence, bids: pick('BUY'), asks: pick('SELL') };
      sequencer.onCommit(() => publications.publish(`${deps.topicPrefix}book:${market.symbol}`, delta));
    }
    const engine = engineOf(market);
    ws.sequences.set(market.symbolId, { lastMatchId: engine.nextMatchId - 1n, lastPrioritySeq: engine.nextPrioritySeq - 1n, lastBookSeq: book.sequence });
  }

  /**
   * VIP tiers (the root account's, for subaccounts too) of the accounts a job may charge
   * fees to, loaded before the job and re-read after a minute (operators change tiers).
   */
  async function loadTiers(accountIds: Iterable<bigint>): Promise<void> {
    const now = Date.now();
    const stale = [...new Set(accountIds)].filter((id) => (vipTiers.get(id)?.at ?? 0) < now - VIP_TIER_TTL_MS);
    if (stale.length === 0) return;
    const rows = await db.account.findMany({
      where: { id: { in: stale } },
      select: { id: true, vipTier: true, rootAccount: { select: { vipTier: true } } },
    });
    for (const r of rows) vipTiers.set(r.id, { tier: r.rootAccount?.vipTier ?? r.vipTier, at: now });
  }

  /**
   * Settles one fill as one ledger transfer: the buyer's quote (telescoped on its
   * cumulative notional, so many fills never cost more than the single reservation) for
   * the seller's base, and each side's fee in its fee asset.
   */
  function settle(ws: WriteSet, market: Market, t: TradeEvent, nowNs: bigint, now: Date) {
    const maker = open.get(t.makerOrderId as bigint) as OrderRow & { accountPublicId: string };
    const taker = open.get(t.takerOrderId as bigint) as OrderRow & { accountPublicId: string };
    const party = (o: OrderRow) => ({ accountId: o.accountId, feeAsset: o.feeAsset, vipTier: vipTiers.get(o.accountId)?.tier ?? 0, cumNotionalQ9: o.cumNotionalQ9 });
    const s = settleFill({ market, feeAccountId: deps.systemAccounts.fees, price: t.price, qty: t.qty, takerSide: t.takerSide, maker: party(maker), taker: party(taker) });
    const leg = (l: DebitLeg | CreditLeg): LegSpec => ({ ref: tradingRef(l.accountId, l.assetId), amount: l.amount, code: l.code, ...('debitFrom' in l ? { debitFrom: l.debitFrom } : {}) });
    const transferId = transferIds.take();
    balances.post(ws, { id: transferId, code: 'TRADE', timestampUs: nowNs / 1000n, symbolId: market.symbolId, matchId: t.matchId }, s.debits.map(leg), s.credits.map(leg));

    for (const [o, part] of [[maker, s.maker], [taker, s.taker]] as const) {
      o.heldE18 -= part.heldDecrease;
      o.cumQty += t.qty;
      o.cumNotionalQ9 += s.notionalQ9;
      o.leavesQty = o === maker ? t.makerRemaining : t.takerRemaining;
      o.status = o.leavesQty === 0n ? 'FILLED' : 'PARTIALLY_FILLED';
      if (o.leavesQty === 0n) {
        o.isOpen = false;
        o.closeReason = null;
        o.terminalAt = now;
      }
      const trade: TradeRow = {
        symbolId: market.symbolId,
        matchId: t.matchId,
        orderId: o.id,
        accountId: o.accountId,
        lineageId: o.lineageId,
        generation: o.generation,
        side: o.side,
        price: t.price,
        qty: t.qty,
        isMaker: o === maker,
        fee: part.fee,
        feeAsset: part.asset,
        feeIsRebate: part.rebate,
        executedAt: now,
        executedAtTsNs: nowNs,
        transferId,
      };
      ws.trades.push(trade);
    }
  }

  /** A market order's reference price (the client's, else the best opposite price) and the worst price its slippage allows. */
  function protectionPrice(engine: OrderBook, market: Market, side: 'BUY' | 'SELL', ref: bigint | undefined, ticks?: number, bps?: number): { reference: bigint; limit: bigint } {
    const reference = ref ?? (side === 'BUY' ? engine.bestAsk() : engine.bestBid());
    if (reference === null || reference === undefined) {
      throw new ApiError('invalid-argument', 'no reference price: the book is empty on the opposite side', {
        code: 'NO_REFERENCE_PRICE',
        violations: [{ fieldPath: 'order.marketIoc.clientRefPrice', message: 'is required when the book is empty', ruleId: 'reference-price' }],
      });
    }
    const delta = ticks !== undefined ? BigInt(ticks) * market.tickSize : (reference * BigInt(bps as number)) / 10_000n;
    const p = side === 'BUY' ? reference + delta : reference - delta;
    return { reference, limit: p > 0n ? p : 1n };
  }

  interface PlaceContext {
    account: AccountRef;
    market: Market;
    v: ValidatedOrder;
    input: { order: CreateOrderInput['order'] };
    now: Date;
    nowNs: bigint;
    lineage?: { lineageId: string; generation: number; inheritedCumQty: bigint; inheritedNotionalQ9: bigint; replacesOrderId: bigint };
  }

  /**
   * Per account, every client order id taken by an order (committed or in a group not yet
   * committed) with the time its retention ends. Read from the database once, then kept
   * here by the only writer; jobs check and take ids synchronously, so two orders can
   * never both take one, and an order with a clientOrderId costs no extra read. `usedAt`:
   * when they were last needed (idle accounts are forgotten, and read again).
   */
  const clientIds = new Map<bigint, { ids: Map<string, number>; usedAt: number }>();
  const clientIdLoads = new Map<bigint, Promise<void>>();
  let clientIdsPrunedAt = 0;

  /** Makes sure the account's ids are in memory before a job that may take one is submitted. */
  async function loadClientIds(accountId: bigint, clientOrderId: string | undefined): Promise<void> {
    if (clientOrderId === undefined) return;
    const known = clientIds.get(accountId);
    if (known) {
      known.usedAt = clock.now().getTime();
      return;
    }
    let load = clientIdLoads.get(accountId);
    if (!load) {
      load = readable()
        .then(() => db.clientOrderIdReservation.findMany({ where: { accountId, expiresAt: { gt: clock.now() } }, select: { clientOrderId: true, expiresAt: true } }))
        .then((rows) => {
          if (!clientIds.has(accountId)) {
            clientIds.set(accountId, { ids: new Map(rows.map((r) => [r.clientOrderId, (r.expiresAt as Date).getTime()])), usedAt: clock.now().getTime() });
          }
        })
        .finally(() => clientIdLoads.delete(accountId));
      clientIdLoads.set(accountId, load);
    }
    await load;
  }

  /** What a job placing or changing an account's order reads from memory: its balances, fee tier and client order ids. */
  function prepareOrder(account: AccountRef, market: Market, clientOrderId?: string) {
    return () => Promise.all([loadClientIds(account.id, clientOrderId), balances.load(refsFor([account.id], market)), loadTiers([account.id])]);
  }

  /** Inside a job: refuses a client order id still retained or taken by an order in flight. */
  function checkClientOrderId(accountId: bigint, clientOrderId: string | undefined, now: Date): void {
    if (clientOrderId === undefined) return;
    const ids = clientIds.get(accountId)?.ids;
    // Loaded before the job was submitted; only forgetting an idle account in between (see
    // pruneClientIds) could get here.
    if (!ids) throw new ApiError('unavailable', 'the order could not be checked for a duplicate clientOrderId; retry', { code: 'RETRY' });
    if ((ids.get(clientOrderId) ?? 0) > now.getTime()) throw duplicateClientOrderId();
  }

  /** What a new order reserves, and from which balance; the notional cap for BUY debit limits. */
  function reservationFor(market: Market, account: AccountRef, v: ValidatedOrder, order: CreateOrderInput['order'], working: bigint, protection?: bigint) {
    const r = reserve(market, { side: order.side, qty: working, limit: protection ?? v.price, feeAsset: v.feeAsset, maxQuoteDebit: v.maxQuoteDebit });
    return { ref: tradingRef(account.id, r.asset === 'QUOTE' ? market.quote.unifiedAssetId : market.base.unifiedAssetId), hold: r.hold, cap: r.cap };
  }

  /** A post-only order that would take is refused whole (nothing reserved, its clientOrderId not taken). */
  function refusePostOnlyTaker(engine: OrderBook, v: ValidatedOrder, side: 'BUY' | 'SELL', nowNs: bigint): void {
    if (!v.postOnly || !engine.wouldTake(side, v.price, nowNs)) return;
    throw new ApiError('invalid-argument', 'a post-only order may not take liquidity: it would trade on arrival', {
      code: 'POST_ONLY_WOULD_TAKE',
      violations: [{ fieldPath: `order.${v.variant}.postOnly`, message: 'the order would trade on arrival', ruleId: 'post-only' }],
    });
  }

  /**
   * Everything that can refuse a new order, checked against the current state without
   * changing it: a replacement runs this before it touches the order it replaces, so a
   * refusal never leaves a job half done. What it returns is what `placeInJob` applies.
   */
  function checkPlace(ctx: PlaceContext) {
    const { account, market, v, input, nowNs } = ctx;
    const engine = engineOf(market);
    checkClientOrderId(account.id, input.order.clientOrderId, ctx.now);
    refusePostOnlyTaker(engine, v, input.order.side, nowNs);
    let protection: bigint | undefined;
    if (v.variant === 'marketIoc') {
      const m = input.order.marketIoc!;
      const { reference, limit } = protectionPrice(engine, market, input.order.side, v.refPrice, m.maxSlippageTicks, m.maxSlippageBps);
      // Valued at its reference price: a market order has no price of its own to check.
      if (quoteNotional(reference, v.qty, market.notional) < market.minNotional) {
        throw invalidArgument('order.baseQty', 'the order value at the reference price is below the market minimum notional', 'min-notional');
      }
      protection = limit;
    }
    // A replacement's quantity is the lineage's total (FIX cancel/replace): what it still
    // works is that total less what its predecessors filled.
    const working = v.qty - (ctx.lineage?.inheritedCumQty ?? 0n);
    const { ref: holdRef, hold, cap } = reservationFor(market, account, v, input.order, working, protection);
    const place: PlaceOrder = {
      orderId: 0n,
      accountId: account.id,
      side: input.order.side,
      type: v.variant === 'marketIoc' ? 'MARKET' : 'LIMIT',
      tif: v.tif,
      qty: working,
      stpMode: input.order.selfTradePreventionMode ?? 'EXPIRE_MAKER',
      ...(v.variant === 'marketIoc' ? { price: protection as bigint } : { price: v.price }),
      ...(v.postOnly ? { postOnly: true } : {}),
      ...(v.expireAtNs !== undefined ? { expireAtNs: v.expireAtNs } : {}),
      ...(cap !== undefined ? { maxQuoteNotional: cap } : {}),
    };
    const refused = engine.validate(place);
    if (refused === 'INVALID_NOTIONAL_CAP') {
      throw invalidArgument(`order.${v.variant}.maxQuoteDebit`, 'is too small to pay for any quantity at this market’s fees', 'too-small');
    }
    if (refused !== null) throw new ApiError('invalid-argument', `the matching engine refuses this order: ${refused}`, { code: refused });
    return { place, holdRef, hold, working };
  }

  /** Reserves, matches and records one new order inside a sequencer job. */
  function placeInJob(ws: WriteSet, ctx: PlaceContext, checked: ReturnType<typeof checkPlace> = checkPlace(ctx)) {
    const { account, market, v, input, now, nowNs } = ctx;
    const engine = engineOf(market);
    const clientOrderId = input.order.clientOrderId;
    const { place, holdRef, hold, working } = checked;
    if (!balances.hold(ws, holdRef, hold)) throw insufficientBalance('order.baseQty');
    const id = orderIds.take();
    const publicId = newPublicId();
    const row: OrderRow & { accountPublicId: string } = {
      id,
      publicId,
      accountId: account.id,
      accountPublicId: account.publicId,
      symbolId: market.symbolId,
      clientOrderId: clientOrderId ?? null,
      side: place.side,
      orderType: place.type,
      tif: v.tif,
      status: 'NEW',
      isOpen: true,
      closeReason: null,
      price: v.variant === 'marketIoc' ? 0n : v.price,
      origQty: v.qty,
      cumQty: 0n,
      leavesQty: working,
      inheritedCumQty: ctx.lineage?.inheritedCumQty ?? 0n,
      cumNotionalQ9: 0n,
      inheritedNotionalQ9: ctx.lineage?.inheritedNotionalQ9 ?? 0n,
      feeAsset: v.feeAsset,
      postOnly: v.postOnly,
      stpMode: place.stpMode ?? 'EXPIRE_MAKER',
      expireAt: v.expireAtNs !== undefined ? new Date(Number(v.expireAtNs / 1_000_000n)) : null,
      expireAtTsNs: v.expireAtNs ?? null,
      createdAt: now,
      acceptedAtTsNs: nowNs,
      terminalAt: null,
      lineageId: ctx.lineage?.lineageId ?? publicId,
      generation: ctx.lineage?.generation ?? 1,
      replacesOrderId: ctx.lineage?.replacesOrderId ?? null,
      marketClientRefPrice: v.refPrice ?? null,
      marketMaxSlippageBps: input.order.marketIoc?.maxSlippageBps ?? null,
      marketMaxSlippageTicks: input.order.marketIoc?.maxSlippageTicks ?? null,
      submittedMaxQuoteDebit: v.maxQuoteDebit ?? null,
      version: 0,
      heldE18: hold,
      prioritySeq: 0n,
      oco: v.oco,
    };
    open.set(id, row);
    ws.newOrders.set(id, row);
    for (const leg of v.riskLegs) ws.riskLegs.push({ ...leg, orderId: id });
    const events = engine.place({ ...place, orderId: id }, nowNs);
    const rejected = events.find((e) => e.type === 'rejected');
    if (rejected) throw new Error(`engine rejected a validated order: ${rejected.type === 'rejected' ? rejected.reason : ''}`);
    applyEvents(ws, market, events, nowNs, now, new Set([id]));
    if (clientOrderId !== undefined) {
      const expiresAt = new Date(now.getTime() + CLIENT_ORDER_ID_RETENTION_MS);
      clientIds.get(account.id)?.ids.set(clientOrderId, expiresAt.getTime());
      ws.clientOrderIds.push({ accountId: account.id, clientOrderId, orderId: id, createdAt: now, expiresAt });
    }
    return {
      orderId: publicId,
      clientOrderId: clientOrderId ?? '',
      acceptedAt: now,
      acceptedAtTsNs: nowNs,
      resolvedBaseQty: v.qty,
      submittedMaxQuoteDebit: v.maxQuoteDebit,
      market,
    };
  }

  const service = {
    sequencer,
    balances,
    /** Ledger transfer ids, shared with the ledger service (same sequencer, same table). */
    transferIds: () => transferIds,

    /**
     * The caller's order versions or fills, published after commit (GraphQL subscriptions).
     * With `after` (an event's sequence), every later event the journal holds comes first.
     */
    async subscribe(caller: Caller, stream: 'orders' | 'fills', subaccountId: string | undefined, after?: bigint) {
      requirePermission(caller, 'READ');
      const account = await resolveAccount(db, caller, subaccountId);
      const live = publications.subscribe(`${deps.topicPrefix}${stream}:${account.publicId}`) as AsyncIterableIterator<OrderEventPayload & FillPayload>;
      if (after === undefined) return live;
      return resumeAfter(live, after, {
        lastEntry: () => journal.lastSeq,
        firstEntry: () => journal.firstSeq(),
        events: async (from, through) => {
          const out: (OrderEventPayload | FillPayload)[] = [];
          for (let cursor = from; cursor < through; ) {
            const entries = await journal.read(cursor, through, 500);
            if (entries.length === 0) break;
            for (const { seq, ws } of entries) {
              const events = entryEvents(seq, ws, symbolOf)[stream];
              for (const e of events) if (e.accountPublicId === account.publicId) out.push(e);
            }
            cursor = (entries[entries.length - 1] as { seq: bigint }).seq;
          }
          return out as (OrderEventPayload & FillPayload)[];
        },
      });
    },

    /** Resolves once the read tables reflect every change acknowledged so far (tests, shutdown). */
    projected: () => projector.reached(journal.lastSeq, READ_BARRIER_MS),

    /** Restores every book from PostgreSQL (start-up). */
    start: rebuild,

    async createOrder(caller: Caller, input: CreateOrderInput) {
      requirePermission(caller, 'TRADE');
      const account = await resolveAccount(db, caller, input.subaccountId);
      await deps.limiter.admit('trading.place', { caller, account });
      const market = marketOf(input.order.symbol);
      const v = validateNewOrder(input, market, clock.nowNs());
      return sequencer.submitAfter(prepareOrder(account, market, input.order.clientOrderId), (ws) => placeInJob(ws, { account, market, v, input, ...jobTime() }));
    },

    /**
     * Replaces an open order with the next generation of its lineage: the old order ends
     * REPLACED, the new one inherits its filled quantity (`inheritedCumQty`) and keeps
     * `lineage.id`. Both happen in one job, so the pair is never half-done.
     */
    async replaceOrder(caller: Caller, input: { orderId?: string; clientOrderId?: string; subaccountId?: string; order: CreateOrderInput['order'] }) {
      requirePermission(caller, 'TRADE');
      const account = await resolveAccount(db, caller, input.subaccountId);
      await deps.limiter.admit('trading.place', { caller, account });
      const old = await findOwnOrder(account, input);
      const market = marketOf(input.order.symbol);
      if (market.symbolId !== old.symbolId) throw invalidArgument('order.symbol', 'must be the replaced order’s symbol', 'same-as-replaced');
      if (input.order.side !== old.side) throw invalidArgument('order.side', 'must be the replaced order’s side', 'same-as-replaced');
      const v = validateNewOrder({ order: input.order }, market, clock.nowNs());
      if (v.variant === 'marketIoc') throw invalidArgument('order.marketIoc', 'a replacement is a limit order', 'limit-only');
      const outcome = await sequencer.submitAfter(prepareOrder(account, market, input.order.clientOrderId), (ws) => {
        const { now, nowNs } = jobTime();
        const live = open.get(old.id);
        if (!live || live.tif === 'IOC') throw orderNotFound('the order is no longer open');
        if (expireIfDue(ws, market, live, nowNs, now)) return { refused: orderNotFound('the order expired') };
        // Everything that can refuse the replacement is checked before the old order is touched.
        const inheritedCumQty = live.inheritedCumQty + live.cumQty;
        if (v.qty <= inheritedCumQty) throw invalidArgument('order.baseQty', 'must exceed the quantity the lineage has already filled', 'above-filled');
        const lineage = { lineageId: live.lineageId, generation: live.generation + 1, inheritedCumQty, inheritedNotionalQ9: live.inheritedNotionalQ9 + live.cumNotionalQ9, replacesOrderId: live.id };
        const placement: PlaceContext = { account, market, v, input: { order: input.order }, now, nowNs, lineage };
        // The old order rests on the replacement's own side, so removing it changes none of these checks.
        const checked = checkPlace(placement);
        const { holdRef: ref, hold } = checked;
        if (balances.get(ref).available + live.heldE18 < hold) throw insufficientBalance('order.baseQty');
        const removed = engineOf(market).cancel(old.id);
        balances.release(ws, ref, live.heldE18);
        Object.assign(live, { heldE18: 0n, leavesQty: 0n, isOpen: false, status: 'REPLACED', closeReason: 'REPLACED', terminalAt: now, version: live.version + 1 });
        ws.order(live);
        open.delete(live.id);
        // The old order leaves its level: the book's totals and delta stream follow.
        applyEvents(ws, market, removed, nowNs, now, new Set());
        return { placed: placeInJob(ws, placement, checked) };
      });
      if ('refused' in outcome) throw outcome.refused;
      return outcome.placed;
    },

    async cancelOrder(caller: Caller, input: { orderId?: string; clientOrderId?: string; subaccountId?: string; symbol?: string }) {
      requirePermission(caller, 'TRADE');
      const account = await resolveAccount(db, caller, input.subaccountId);
      // The routing hint is checked, not trusted: an unknown symbol is a bad request, and
      // an order of another market is not the order the client meant.
      const hinted = input.symbol !== undefined ? marketOf(input.symbol, 'symbol') : undefined;
      await deps.limiter.admit('trading.cancel', { caller, account });
      return cancelOne(account, input, '', 'one', hinted);
    },

    /**
     * Changes a resting order's total quantity and/or price. A decrease keeps time
     * priority; an increase or a new price re-queues it (and may match). The reservation
     * follows the new remaining quantity and price.
     */
    async modifyOrder(caller: Caller, input: { orderId?: string; clientOrderId?: string; subaccountId?: string; newQty?: string; newPrice?: string }) {
      requirePermission(caller, 'TRADE');
      const account = await resolveAccount(db, caller, input.subaccountId);
      await deps.limiter.admit('trading.modify', { caller, account });
      const row = await findOwnOrder(account, input);
      const market = markets.marketById(row.symbolId) as Market;
      if (input.newQty === undefined && input.newPrice === undefined) {
        throw invalidArgument('newQty', 'give newQty, newPrice or both', 'one-of');
      }
      const newTotal = input.newQty !== undefined ? parseScaled(input.newQty, market.baseQuantityScale, 'newQty') : undefined;
      let newPrice: bigint | undefined;
      if (input.newPrice !== undefined) {
        newPrice = parseScaled(input.newPrice, 9, 'newPrice');
        if (newPrice % market.tickSize !== 0n) throw invalidArgument('newPrice', 'is not a multiple of the tick size', 'tick-size');
      }
      const engine = engineOf(market);
      const outcome = await sequencer.submitAfter(prepareOrder(account, market), (ws) => {
        const { now, nowNs } = jobTime();
        const live = open.get(row.id);
        if (!live || live.tif === 'IOC') throw orderNotFound('the order is no longer open');
        // newQty is the lineage's new total, as origQty is: what it fills across generations.
        const leaves = newTotal !== undefined ? newTotal - live.inheritedCumQty - live.cumQty : live.leavesQty;
        if (leaves <= 0n) throw invalidArgument('newQty', 'must exceed the quantity already filled', 'above-filled');
        const price = newPrice ?? live.price;
        const ref = tradingRef(account.id, live.side === 'BUY' ? market.quote.unifiedAssetId : market.base.unifiedAssetId);
        const { required, delta } = reReservation(market, { side: live.side, price, leaves, feeAsset: live.feeAsset, heldE18: live.heldE18 });
        if (delta > 0n && !balances.hold(ws, ref, delta)) throw insufficientBalance('newQty');
        if (delta < 0n) balances.release(ws, ref, -delta);
        live.heldE18 = required;
        const events = engine.modify(row.id, { newQty: leaves, ...(newPrice !== undefined ? { newPrice } : {}) }, nowNs);
        const rejected = events.find((e) => e.type === 'rejected');
        if (rejected?.type === 'rejected') {
          // Undo the reservation change and keep whatever the engine did (an expiry): the
          // job succeeds, so that change is committed and published, and the caller is
          // refused once it is.
          if (delta > 0n) balances.release(ws, ref, delta);
          if (delta < 0n) balances.hold(ws, ref, -delta);
          live.heldE18 -= delta;
          applyEvents(ws, market, events.filter((e) => e.type !== 'rejected'), nowNs, now, new Set());
          return {
            refused: new ApiError(rejected.reason === 'ORDER_EXPIRED' ? 'not-found' : 'invalid-argument', `modify refused: ${rejected.reason}`, {
              code: rejected.reason === 'ORDER_EXPIRED' ? 'ORDER_NOT_FOUND' : rejected.reason,
            }),
          };
        }
        if (newTotal !== undefined) live.origQty = newTotal;
        if (newPrice !== undefined) live.price = newPrice;
        live.leavesQty = leaves;
        applyEvents(ws, market, events, nowNs, now, new Set([row.id]));
        return { order: { ...live }, market };
      });
      if ('refused' in outcome) throw outcome.refused;
      return outcome;
    },

    async cancelAllOrders(caller: Caller, input: { subaccountId?: string; symbol?: string; side?: 'BUY' | 'SELL' }) {
      requirePermission(caller, 'TRADE');
      const account = await resolveAccount(db, caller, input.subaccountId);
      await deps.limiter.admit('trading.cancel_all', { caller, account });
      const only = input.symbol !== undefined ? marketOf(input.symbol, 'symbol') : undefined;
      return cancelWhere(account.id, only, input.side, 'CANCEL_ALL');
    },

    async getOrder(caller: Caller, input: { orderId?: string; clientOrderId?: string; subaccountId?: string }) {
      requirePermission(caller, 'READ');
      const account = await resolveAccount(db, caller, input.subaccountId);
      const row = await findOwnOrder(account, input);
      return { order: row, symbol: (markets.marketById(row.symbolId) as Market).symbol };
    },

    async listOpenOrders(caller: Caller, input: { subaccountId?: string; symbols?: string[]; side?: 'BUY' | 'SELL'; triggerId?: string; limit?: number; pageToken?: string; includeAttachedRisk?: boolean; includeAttachedRiskState?: boolean }) {
      requirePermission(caller, 'READ');
      const account = await resolveAccount(db, caller, input.subaccountId);
      const symbolIds = (input.symbols ?? []).map((s) => marketOf(s, 'symbol').symbolId).sort();
      const limit = pageLimit(input.limit, 1000);
      const binding = { operation: 'listOpenOrders', caller: caller.rootPublicId, filters: { account: account.publicId, symbolIds, side: input.side ?? null, triggerId: input.triggerId ?? null } };
      const cursor = pageTokens.decode<{ createdAt: string; id: string }>(input.pageToken, binding);
      const where: Prisma.OrderWhereInput = {
        accountId: account.id,
        isOpen: true,
        ...(symbolIds.length > 0 ? { symbolId: { in: symbolIds } } : {}),
        ...(input.side ? { side: input.side } : {}),
        // Child orders of one of the account's triggers; another account's trigger id matches nothing.
        ...(input.triggerId ? { originTrigger: { publicId: input.triggerId, accountId: account.id } } : {}),
        ...(cursor
          ? { OR: [{ createdAt: { lt: new Date(cursor.createdAt) } }, { createdAt: new Date(cursor.createdAt), id: { lt: BigInt(cursor.id) } }] }
          : {}),
      };
      const withRisk = input.includeAttachedRisk === true || input.includeAttachedRiskState === true;
      await readable();
      const rows = await db.order.findMany({
        where,
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: limit + 1,
        include: { attachedRiskLegs: withRisk },
      });
      const page = toPage(rows, limit, pageTokens, binding, (r) => ({ createdAt: r.createdAt.toISOString(), id: r.id.toString() }));
      return {
        orders: page.items.map((o) => {
          const legs = o.attachedRiskLegs ?? [];
          return {
            order: o,
            symbol: (markets.marketById(o.symbolId) as Market).symbol,
            ...(withRisk && legs.length > 0 ? { attachedRisk: attachedRiskView(o.oco, legs, { policy: input.includeAttachedRisk === true, state: input.includeAttachedRiskState === true }) } : {}),
          };
        }),
        nextPageToken: page.nextPageToken,
      };
    },

    async listTrades(caller: Caller, input: { subaccountId?: string; symbol?: string; orderId?: string; lineageId?: string; throughGeneration?: number; afterMatchId?: bigint; side?: 'BUY' | 'SELL'; startTime?: bigint; endTime?: bigint; includeTransfers?: boolean; limit?: number; pageToken?: string }) {
      requirePermission(caller, 'READ');
      const account = await resolveAccount(db, caller, input.subaccountId);
      if (input.orderId !== undefined && input.lineageId !== undefined) throw invalidArgument('lineageId', 'cannot be combined with orderId', 'exclusive');
      if (input.throughGeneration !== undefined && input.lineageId === undefined) throw invalidArgument('throughGeneration', 'requires lineageId', 'requires');
      if (input.afterMatchId !== undefined && input.symbol === undefined) throw invalidArgument('afterMatchId', 'requires symbol', 'requires');
      const market = input.symbol !== undefined ? marketOf(input.symbol, 'symbol') : undefined;
      const limit = pageLimit(input.limit, 1000);
      const filters = { account: account.publicId, ...input, pageToken: undefined, limit: undefined };
      const binding = { operation: 'listTrades', caller: caller.rootPublicId, filters };
      const cursor = pageTokens.decode<{ ts: string; id: string }>(input.pageToken, binding);
      let orderDbId: bigint | undefined;
      await readable();
      if (input.orderId !== undefined) {
        const o = await db.order.findFirst({ where: { publicId: input.orderId, accountId: account.id }, select: { id: true } });
        if (!o) return { trades: [], transfers: [], nextPageToken: '' };
        orderDbId = o.id;
      }
      const rows = await db.trade.findMany({
        where: {
          accountId: account.id,
          ...(market ? { symbolId: market.symbolId } : {}),
          ...(orderDbId !== undefined ? { orderId: orderDbId } : {}),
          ...(input.lineageId !== undefined ? { lineageId: input.lineageId, ...(input.throughGeneration !== undefined ? { generation: { lte: input.throughGeneration } } : {}) } : {}),
          ...(input.afterMatchId !== undefined ? { matchId: { gt: input.afterMatchId } } : {}),
          ...(input.side ? { side: input.side } : {}),
          ...(input.startTime !== undefined || input.endTime !== undefined ? { executedAtTsNs: { ...(input.startTime !== undefined ? { gte: input.startTime } : {}), ...(input.endTime !== undefined ? { lt: input.endTime } : {}) } } : {}),
          ...(cursor ? { OR: [{ executedAtTsNs: { lt: BigInt(cursor.ts) } }, { executedAtTsNs: BigInt(cursor.ts), id: { lt: BigInt(cursor.id) } }] } : {}),
        },
        orderBy: [{ executedAtTsNs: 'desc' }, { id: 'desc' }],
        take: limit + 1,
        include: { order: { select: { publicId: true } } },
      });
      const page = toPage(rows, limit, pageTokens, binding, (r) => ({ ts: r.executedAtTsNs.toString(), id: r.id.toString() }));
      const transfers = input.includeTransfers && page.items.length > 0
        ? await db.ledgerTransferLeg.findMany({
            where: { accountId: account.id, transferId: { in: [...new Set(page.items.map((t) => t.transferId).filter((x): x is bigint => x !== null))] } },
            orderBy: { id: 'asc' },
          })
        : [];
      return { trades: page.items.map((t) => ({ trade: t, symbol: (markets.marketById(t.symbolId) as Market).symbol, orderPublicId: t.order.publicId })), transfers, nextPageToken: page.nextPageToken };
    },

    /** Cancels every open order of `accountId` in scope (cancel all, dead-man switch). */
    cancelWhere,

    /** Spec 4.5 Batch Cancel: `requestId` makes it idempotent; errors are per item (7.5). */
    async cancelBatch(caller: Caller, input: { requestId: string; subaccountId?: string; items: { orderId?: string; clientOrderId?: string }[] }) {
      requirePermission(caller, 'TRADE');
      const account = await resolveAccount(db, caller, input.subaccountId);
      if (input.items.length < 1 || input.items.length > 50) throw invalidArgument('items', 'give 1 to 50 items', 'max-items');
      if (input.requestId.length < 1 || input.requestId.length > 128) throw invalidArgument('requestId', 'must be 1 to 128 characters', 'length');
      input.items.forEach((item, i) => {
        if ((item.orderId?.length ?? 0) > 64) throw invalidArgument(`items[${i}].orderId`, 'must be at most 64 characters', 'length');
        if ((item.clientOrderId?.length ?? 0) > 128) throw invalidArgument(`items[${i}].clientOrderId`, 'must be at most 128 characters', 'length');
      });
      let transient = false;
      return once(
        { db, clock },
        { accountId: account.id, operation: 'cancelBatch', key: input.requestId, request: input },
        async () => {
          const admitted: (ApiError | undefined)[] = [];
          for (let i = 0; i < input.items.length; i++) {
            try {
              await deps.limiter.admit('trading.batch_cancel_item', { caller, account });
              admitted.push(undefined);
            } catch (err) {
              if (err instanceof ApiError && err.code === 'RATE_LIMIT_EXCEEDED') admitted.push(err);
              else throw err;
            }
          }
          const results = await Promise.all(
            input.items.map(async (item, i) => {
              const echo = item.clientOrderId !== undefined ? { clientOrderId: item.clientOrderId } : {};
              try {
                const quota = admitted[i];
                if (quota) throw quota;
                const r = await cancelOne(account, item, `items[${i}]`, 'one-or-both');
                return { orderId: r.orderId, ...echo, status: 'ACCEPTED' as const };
              } catch (err) {
                if (!(err instanceof ApiError)) throw err;
                if (err.status === 503) transient = true;
                return { orderId: item.orderId ?? '', ...echo, status: 'REJECTED' as const, code: err.code, error: itemError(err) };
              }
            }),
          );
          const now = clock.now();
          return {
            acceptedCount: results.filter((r) => r.status === 'ACCEPTED').length,
            rejectedCount: results.filter((r) => r.status === 'REJECTED').length,
            results,
            ts: now.toISOString(),
            tsNs: clock.nowNs().toString(),
          };
        },
        // An item refused for a moment (503: a commit or the rate-limit authority failed)
        // must be retried with the same requestId, so that answer is not remembered.
        { encode: (v) => v as never, decode: (json) => json as never, keep: () => !transient },
      );
    },

    /** Spec 3 dead-man switch: 0 disables, 10..120 arms or refreshes; others are refused. */
    async cancelAllAfter(caller: Caller, input: { requestId: string; timeoutSec: number; symbol?: string; side?: 'BUY' | 'SELL'; subaccountId?: string }) {
      requirePermission(caller, 'TRADE');
      const account = await resolveAccount(db, caller, input.subaccountId);
      if (input.requestId.length < 1 || input.requestId.length > 128) throw invalidArgument('requestId', 'must be 1 to 128 characters', 'length');
      if (input.timeoutSec !== 0 && (input.timeoutSec < 10 || input.timeoutSec > 120)) {
        throw invalidArgument('timeoutSec', 'must be 0 (disable) or 10 to 120 seconds', 'dead-man-timeout');
      }
      const symbolId = input.symbol !== undefined ? marketOf(input.symbol, 'symbol').symbolId : 0;
      // Every call is applied, a repeated requestId too (it is recorded for tracing): arming,
      // refreshing and disabling are idempotent in effect, and a heartbeat answered from a
      // stored first result would leave the deadline where it was while the client believes
      // it moved.
      await deps.limiter.admit('trading.cancel_all_after', { caller, account });
      const side = input.side ?? 'ANY';
      // Waits for a firing of this switch in progress (see fireDeadManSwitches).
      return switchLock(switchKey({ accountId: account.id, symbolId, side }), async () => {
        const now = clock.now();
        const nowNs = clock.nowNs();
        const armed = input.timeoutSec > 0;
        const expiresAtTsNs = armed ? nowNs + BigInt(input.timeoutSec) * 1_000_000_000n : 0n;
        const data = { status: armed ? ('ARMED' as const) : ('DISABLED' as const), timeoutSec: input.timeoutSec, expiresAtTsNs, requestId: input.requestId, ...(armed ? { armedAt: now } : {}) };
        await db.deadManSwitch.upsert({
          where: { accountId_symbolId_side: { accountId: account.id, symbolId, side } },
          update: data,
          create: { accountId: account.id, symbolId, side, ...data },
        });
        return { status: data.status, effectiveTimeoutSec: input.timeoutSec, expiresAtTsNs: expiresAtTsNs.toString(), ts: now.toISOString(), tsNs: nowNs.toString() };
      });
    },

    /** Fires every armed switch whose time has passed, also after a restart (run on a timer). */
    async fireDeadManSwitches(): Promise<number> {
      const nowNs = clock.nowNs();
      const due = await db.deadManSwitch.findMany({ where: { status: 'ARMED', expiresAtTsNs: { lte: nowNs } }, select: { id: true, accountId: true, symbolId: true, side: true } });
      let fired = 0;
      for (const found of due) {
        // One switch at a time with its heartbeats (switchLock): a heartbeat or disable that
        // lands first is seen by the re-read below, and one that lands during the firing is
        // answered only after it, so nothing placed after a client was told its switch was
        // refreshed or disabled is canceled by the old deadline.
        fired += await switchLock(switchKey(found), async () => {
          const sw = await db.deadManSwitch.findUnique({ where: { id: found.id } });
          const firedAt = clock.nowNs();
          if (!sw || sw.status !== 'ARMED' || sw.expiresAtTsNs > firedAt) return 0;
          // Cancel, then disarm: a crash in between fires the switch again after the restart
          // (at least once), where disarming first could leave it off with the orders live.
          const market = sw.symbolId === 0 ? undefined : markets.marketById(sw.symbolId);
          await cancelWhere(sw.accountId, market, sw.side === 'ANY' ? undefined : sw.side, 'DEAD_MAN_SWITCH');
          await db.deadManSwitch.updateMany({
            where: { id: sw.id, status: 'ARMED', expiresAtTsNs: sw.expiresAtTsNs },
            data: { status: 'DISABLED', timeoutSec: 0, expiresAtTsNs: 0n, lastFiredAtTsNs: firedAt },
          });
          return 1;
        });
      }
      return fired;
    },

    depth(symbol: string, levels: number) {
      const market = marketOf(symbol, 'symbol');
      if (!Number.isInteger(levels) || levels < 1 || levels > 500) throw invalidArgument('depth', 'must be 1 to 500', 'range');
      // Mid-rebuild, memory may hold a refused group's changes under a newer sequence.
      sequencer.assertReady();
      return { market, depth: engineOf(market).depth(levels), sequence: books.get(market.symbolId)?.sequence ?? 0n };
    },

    /** Public market streams: order-book deltas and trades of one symbol. */
    subscribeMarket(symbol: string, stream: 'book' | 'trades') {
      const market = marketOf(symbol, 'symbol');
      return publications.subscribe(`${deps.topicPrefix}${stream}:${market.symbol}`);
    },

    /** The most recent public trades of a symbol, newest first. */
    async recentTrades(symbol: string, limit: number | undefined) {
      const market = marketOf(symbol, 'symbol');
      const take = pageLimit(limit, 500);
      await readable();
      const rows = await db.trade.findMany({
        where: { symbolId: market.symbolId, isMaker: false },
        orderBy: { matchId: 'desc' },
        take,
        select: { matchId: true, price: true, qty: true, side: true, executedAt: true },
      });
      return { market, trades: rows.map((t) => ({ matchId: t.matchId, price: t.price, qty: t.qty, takerSide: t.side, executedAt: t.executedAt })) };
    },

    /**
     * Once a minute (run on the sweep timer): forgets expired client order ids, and the ids
     * of accounts idle for ten minutes (read again on their next order), so memory holds
     * only active accounts' last day; deletes expired reservations from the database.
     */
    async pruneClientIds(): Promise<void> {
      const nowMs = clock.now().getTime();
      if (nowMs - clientIdsPrunedAt < CLIENT_ID_PRUNE_MS) return;
      clientIdsPrunedAt = nowMs;
      for (const [accountId, { ids, usedAt }] of clientIds) {
        if (usedAt < nowMs - CLIENT_ID_IDLE_MS) clientIds.delete(accountId);
        else for (const [id, until] of ids) if (until <= nowMs) ids.delete(id);
      }
      await db.clientOrderIdReservation.deleteMany({ where: { expiresAt: { lte: new Date(nowMs) } } });
      await journal.prune(new Date(nowMs - JOURNAL_RETENTION_MS), projector.watermark);
    },

    /** Expires resting GTD orders whose time has come (run on a timer). */
    async expireDue() {
      const dueNs = clock.nowNs();
      for (const market of markets.markets) {
        const accounts = [...open.values()].filter((o) => o.symbolId === market.symbolId && o.expireAtTsNs !== null && o.expireAtTsNs <= dueNs).map((o) => o.accountId);
        if (accounts.length === 0) continue;
        await sequencer.submitAfter(
          () => balances.load(refsFor(accounts, market)),
          (ws) => {
            const { now, nowNs } = jobTime();
            applyEvents(ws, market, engineOf(market).expireDue(nowNs), nowNs, now, new Set());
          },
        );
      }
    },
  };

  /**
   * Runs `fn` alone among the calls with the same key, in arrival order: a dead-man switch's
   * firing and its heartbeats. In-process is enough because this process is the only
   * trading writer (docs/scaling.md); an API-only node would forward these calls to it.
   */
  const switchQueues = new Map<string, Promise<unknown>>();
  function switchLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = switchQueues.get(key) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => undefined);
    switchQueues.set(key, tail);
    void tail.then(() => {
      if (switchQueues.get(key) === tail) switchQueues.delete(key);
    });
    return run;
  }
  const switchKey = (sw: { accountId: bigint; symbolId: number; side: string }) => `${sw.accountId}:${sw.symbolId}:${sw.side}`;

  /** Cancels every open order of `accountId` in scope, in every market at once: one job, so all of it commits or none. */
  async function cancelWhere(accountId: bigint, only: Market | undefined, side: 'BUY' | 'SELL' | undefined, why: UserCancel) {
    const targets = only ? [only] : markets.markets;
    return sequencer.submitAfter(() => balances.load(targets.flatMap((market) => refsFor([accountId], market))), (ws) => {
      const { now, nowNs } = jobTime();
      let count = 0;
      for (const market of targets) {
        const engine = engineOf(market);
        // Orders already past their expiry end EXPIRED, as the sweep would have them.
        applyEvents(ws, market, engine.expireDue(nowNs), nowNs, now, new Set());
        const ids = [...open.values()].filter((o) => o.accountId === accountId && o.symbolId === market.symbolId && (!side || o.side === side)).map((o) => o.id);
        applyEvents(ws, market, ids.flatMap((id) => engine.cancel(id)), nowNs, now, new Set(), why);
        count += ids.length;
      }
      return { canceledCount: count, ts: now, tsNs: nowNs };
    });
  }

  async function cancelOne(account: AccountRef, input: { orderId?: string; clientOrderId?: string }, fieldPath: string, ids: Ids = 'one', hinted?: Market) {
    const row = await findOwnOrder(account, input, fieldPath, ids);
    if (hinted && hinted.symbolId !== row.symbolId) throw orderNotFound(`no such order in ${hinted.symbol}`);
    const market = markets.marketById(row.symbolId) as Market;
    const outcome = await sequencer.submitAfter(() => balances.load(refsFor([account.id], market)), (ws) => {
      const { now, nowNs } = jobTime();
      const live = open.get(row.id);
      if (!live) throw orderNotFound('the order is no longer open');
      // An order past its expiry ends EXPIRED, as if the sweep had come first.
      if (expireIfDue(ws, market, live, nowNs, now)) return { refused: orderNotFound('the order expired') };
      applyEvents(ws, market, engineOf(market).cancel(row.id), nowNs, now, new Set());
      return { canceled: { orderId: row.publicId, status: 'ACCEPTED' as const, ts: now, tsNs: nowNs } };
    });
    if ('refused' in outcome) throw outcome.refused;
    return outcome.canceled;
  }

  /**
   * Inside a job: if `live` is past its GTD expiry (the sweep has not reached it yet), expires
   * every due order of its book, as the sweep would, and says so. The caller then refuses
   * what it was asked, once that expiry is committed.
   */
  function expireIfDue(ws: WriteSet, market: Market, live: OrderRow, nowNs: bigint, now: Date): boolean {
    if (live.expireAtTsNs === null || live.expireAtTsNs > nowNs) return false;
    applyEvents(ws, market, engineOf(market).expireDue(nowNs), nowNs, now, new Set());
    return true;
  }

  /**
   * The account's order named by `orderId` or `clientOrderId` (the latest order to carry
   * it). Batch cancel items may give both (spec 4.5 "and/or"): then they must name the
   * same order.
   */
  async function findOwnOrder(account: AccountRef, input: { orderId?: string; clientOrderId?: string }, prefix = '', ids: Ids = 'one') {
    const both = input.orderId !== undefined && input.clientOrderId !== undefined;
    if ((input.orderId === undefined && input.clientOrderId === undefined) || (both && ids === 'one')) {
      const rule = ids === 'one' ? 'give exactly one of orderId and clientOrderId' : 'give orderId, clientOrderId or both';
      throw invalidArgument(prefix ? `${prefix}.orderId` : 'orderId', rule, 'one-of');
    }
    await readable();
    const row =
      input.orderId !== undefined
        ? await db.order.findFirst({ where: { publicId: input.orderId, accountId: account.id, ...(both ? { clientOrderId: input.clientOrderId as string } : {}) } })
        : await db.order.findFirst({ where: { clientOrderId: input.clientOrderId as string, accountId: account.id }, orderBy: { id: 'desc' } });
    if (!row) throw orderNotFound('order not found');
    return row;
  }

  const pageTokens = deps.pageTokens;
  return service;
}

function duplicateClientOrderId(): ApiError {
  return new ApiError('conflict', 'this clientOrderId is still retained by an earlier order', {
    code: 'CONFLICT_DUPLICATE_CLIENT_ORDER_ID',
    violations: [{ fieldPath: 'order.clientOrderId', message: 'is retained by an earlier order', ruleId: 'unique' }],
  });
}

/** Spec 7.5: a batch item's error, with the quota fields as JSON numbers. */
function itemError(err: ApiError) {
  const rl = err.extensions.rate_limit as Record<string, string> | undefined;
  return {
    code: err.code,
    ...(rl
      ? {
          rateLimit: {
            limit: Number(rl.limit),
            operationId: rl.operation_id,
            policyClass: rl.policy_class,
            policyVersion: rl.policy_version,
            reason: rl.reason,
            refillModel: rl.refill_model,
            remaining: Number(rl.remaining),
            retryAfterMs: Number(rl.retry_after_ms),
            scope: rl.scope,
          },
        }
      : {}),
    violations: err.violations,
  };
}

function insufficientBalance(fieldPath: string): ApiError {
  return new ApiError('invalid-argument', 'insufficient available balance in the trading account', {
    code: 'INSUFFICIENT_BALANCE',
    violations: [{ fieldPath, message: 'exceeds what the available balance can pay', ruleId: 'balance' }],
  });
}

function orderNotFound(detail: string): ApiError {
  return new ApiError('not-found', detail, { code: 'ORDER_NOT_FOUND' });
}

export type OrdersService = ReturnType<typeof createOrdersService>;
