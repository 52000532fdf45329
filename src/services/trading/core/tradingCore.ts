import { ApiError, codes, errors } from '../../../domain/errorCatalogue.ts';
import { invalidArgument } from '../../../domain/errors.ts';
import { newPublicId } from '../../../domain/ids.ts';
import type { MatchEvent, OrderBook, PlaceOrder, TradeEvent } from '../../../domain/matching/index.ts';
import { quoteNotional } from '../../../domain/matching/index.ts';
import { reReservation, reservationFor as reserve, settleFill, type CreditLeg, type DebitLeg } from '../../../domain/settlement/index.ts';
import type { Clock } from '../../../infra/clock.ts';
import type { Db } from '../../../infra/database.ts';
import type { AccountRef } from '../../access.ts';
import type { Market, MarketCatalog } from '../../markets.ts';
import type { TopicBus } from '../../topicBus.ts';
import type { BalanceBook, BalanceRef, LegSpec } from '../balances.ts';
import { CLIENT_ORDER_ID_RETENTION_MS, MAX_OPEN_ORDERS_PER_ACCOUNT, jobTime, tradingRef, type Accepted, type EngineIds, type EngineMemory, type Owner, type UserCancel } from '../engineTypes.ts';
import { insufficientBalance, orderNotFound } from '../errors.ts';
import { OpenOrders } from '../openOrders.ts';
import type { CreateOrderInput, ValidatedOrder } from '../orderInput.ts';
import type { Sequencer } from '../sequencer.ts';
import type { TradingTopics } from '../streams.ts';
import type { OrderRow, OrderVersion, TradeRow, TriggerRow, WriteSet } from '../writeSet.ts';
import { ClientOrderIds } from './clientOrderIds.ts';
import { CANCEL_REASONS, checkMinimumSize, newOrderRow, protectionPrice, refusePostOnlyTaker, type BookLevels, type CheckedPlacement, type CloseInfo, type PlaceContext } from './placement.ts';

const VIP_TIER_TTL_MS = 60_000;

/**
 * What the core reports of a job's effects on orders, as it applies them: the trigger
 * engine reacts to these and to nothing else of the core. Each is reported at the point
 * the effect is final, before the job's next step, so what reacts sees the state the
 * step left (a leg funded on a fill sees the balances before a later order's release).
 */
export interface OrderEffects {
  /** A new order is recorded, before it matches: answers the triggers of its attached-risk legs. */
  accepted(ws: WriteSet, order: { account: Owner; market: Market; row: OrderRow; riskLegs: ValidatedOrder['riskLegs']; replacesOrderId?: bigint; now: Date; nowNs: bigint }): Accepted['legTriggers'];
  /** A trade in `symbolId` at `price` was settled. */
  traded(symbolId: number, price: bigint): void;
  /** An order's new version is final in the group (a fill, a cancel, its end, its requeue). */
  orderChanged(ws: WriteSet, row: OrderRow, now: Date, nowNs: bigint): void;
}

export interface CoreDeps {
  db: Db;
  clock: Clock;
  markets: MarketCatalog;
  /** The core publishes only the empty delta that tells book subscribers of a rebuild (install). */
  topics: TopicBus<Pick<TradingTopics, 'book'>>;
  systemAccounts: { fees: bigint };
  sequencer: Sequencer;
  balances: BalanceBook;
  ids: EngineIds;
}

/** The books, their open orders, and what loaded them: what recovery swaps in at once. */
export interface CoreState {
  engines: Map<number, OrderBook>;
  open: OpenOrders;
  books: Map<number, BookLevels>;
}

/**
 * The trading core: the order books and their open orders, placing, replacing, modifying
 * and canceling orders, and settling their trades. Every public method that changes state
 * either submits its own job or runs inside one (`ws`); the trigger engine places and
 * cancels its child orders through the in-job methods, never the books themselves.
 */
export class TradingCore {
  private readonly sequencer: Sequencer;
  private readonly balances: BalanceBook;
  private effects!: OrderEffects;
  private engines = new Map<number, OrderBook>();
  /** Per symbol: level totals mirrored from engine events, and the delta sequence. */
  private books = new Map<number, BookLevels>();
  /** Open orders, by internal id: the engine knows the book, this the rest of the row. */
  private open = new OpenOrders();
  private readonly vipTiers = new Map<bigint, { tier: number; at: number }>();
  private readonly clientIds: ClientOrderIds;

  constructor(private readonly deps: CoreDeps) {
    this.sequencer = deps.sequencer;
    this.balances = deps.balances;
    this.clientIds = new ClientOrderIds(deps);
  }

  /** Who is told of every order's effects (the trigger engine). */
  connect(effects: OrderEffects): void {
    this.effects = effects;
  }

  /** Swaps in books loaded from the tables (recovery): every group not yet committed was refused. */
  install(next: CoreState): void {
    this.engines = next.engines;
    this.open = next.open;
    this.books = next.books;
    // Every group not yet committed was refused: the database holds every retained id.
    this.clientIds.clear();
    // A snapshot taken before the rebuild may show changes that were refused. An empty delta
    // under the jumped sequence tells every subscriber at once that its book is stale (the
    // gap), instead of at the symbol's next change, which in a quiet market may be long.
    for (const market of this.deps.markets.markets) {
      const sequence = (this.books.get(market.symbolId) as BookLevels).sequence;
      this.deps.topics.publish('book', market.symbol, { symbol: market.symbol, sequence, bids: [], asks: [] });
    }
  }

  // ---- Reads -------------------------------------------------------------------------------

  /**
   * The account's open orders as of every change acknowledged before the call: read in
   * sequence, as a job, and answered once everything before it is durable, so it never
   * shows a change that could still be refused, and never waits for the projection.
   */
  openOrdersOf(accountId: bigint): Promise<OrderVersion[]> {
    return this.sequencer.submit(() => this.open.ofAccount(accountId).map((o) => ({ ...o })));
  }

  /** Inside a job: the open order `id` as memory holds it now (the trigger engine's attached-risk change). */
  openOrder(id: bigint): OrderRow | undefined {
    return this.open.get(id);
  }

  /** Copies of every open order (memory()). */
  openCopies(): OrderVersion[] {
    return [...this.open.values()].map((o) => ({ ...o }));
  }

  /** Per market: the matching book's levels and the mirrored level totals (memory()). */
  bookCopies(): EngineMemory['books'] {
    return this.deps.markets.markets.map((m) => {
      const levels = this.books.get(m.symbolId) as BookLevels;
      return { symbolId: m.symbolId, depth: this.engineOf(m).depth(), mirror: { bids: new Map(levels.bids), asks: new Map(levels.asks) } };
    });
  }

  /** A book snapshot with its delta sequence (refused, 503, while memory is rebuilt). */
  depth(market: Market, levels: number) {
    // Mid-rebuild, memory may hold a refused group's changes under a newer sequence.
    this.sequencer.assertReady();
    return { depth: this.engineOf(market).depth(levels), sequence: this.books.get(market.symbolId)?.sequence ?? 0n };
  }

  // ---- Commands --------------------------------------------------------------------------

  /** Reserves, matches and settles a new order (spec 4.5 Create Order). */
  place(account: AccountRef, market: Market, v: ValidatedOrder, order: CreateOrderInput['order']): Promise<Accepted> {
    return this.sequencer.submitAfter(this.prepareOrder(account, market, order.clientOrderId), (ws) => this.placeInJob(ws, { account, market, v, input: { order }, ...jobTime(this.deps.clock) }));
  }

  /**
   * Replaces an open order with the next generation of its lineage: the old order ends
   * REPLACED, the new one inherits its filled quantity (`inheritedCumQty`) and keeps
   * `lineage.id`. Both happen in one job, so the pair is never half-done.
   */
  async replace(account: AccountRef, market: Market, oldId: bigint, v: ValidatedOrder, order: CreateOrderInput['order']): Promise<Accepted> {
    const outcome = await this.sequencer.submitAfter(this.prepareOrder(account, market, order.clientOrderId), (ws) => {
      const { now, nowNs } = jobTime(this.deps.clock);
      const live = this.open.get(oldId);
      if (!live || live.tif === 'IOC') throw orderNotFound('the order is no longer open');
      if (this.expireIfDue(ws, market, live, nowNs, now)) return { refused: orderNotFound('the order expired') };
      // Everything that can refuse the replacement is checked before the old order is touched.
      const inheritedCumQty = live.inheritedCumQty + live.cumQty;
      if (v.qty <= inheritedCumQty) throw invalidArgument('order.baseQty', 'must exceed the quantity the lineage has already filled', 'above-filled');
      checkMinimumSize(market, v.price, v.qty - inheritedCumQty, 'order.baseQty');
      const lineage = { lineageId: live.lineageId, generation: live.generation + 1, inheritedCumQty, inheritedNotionalQ9: live.inheritedNotionalQ9 + live.cumNotionalQ9, replacesOrderId: live.id };
      // A trigger's child (a ladder's level) stays its child across generations: the trigger follows it.
      const origin = live.originTriggerId !== null ? { origin: { triggerId: live.originTriggerId, triggerType: live.originTriggerType as TriggerRow['triggerType'], childSeq: live.childSeq } } : {};
      const placement: PlaceContext = { account, market, v, input: { order }, now, nowNs, lineage, ...origin };
      // The old order rests on the replacement's own side, so removing it changes none of these checks.
      const checked = this.checkPlace(placement);
      const { holdRef: ref, hold } = checked;
      if (this.balances.get(ref).available + live.heldE18 < hold) throw insufficientBalance('order.baseQty');
      this.balances.requireUnlocked(ref, hold - live.heldE18, now.getTime(), 'order.baseQty');
      const removed = this.engineOf(market).cancel(oldId);
      this.balances.release(ws, ref, live.heldE18);
      Object.assign(live, { heldE18: 0n, leavesQty: 0n, isOpen: false, status: 'REPLACED', closeReason: 'REPLACED', terminalAt: now, version: live.version + 1 });
      ws.order(live);
      this.open.delete(live.id);
      // The old order leaves its level: the book's totals and delta stream follow.
      this.applyEvents(ws, market, removed, nowNs, now, new Set());
      return { placed: this.placeInJob(ws, placement, checked) };
    });
    if ('refused' in outcome) throw outcome.refused;
    return outcome.placed;
  }

  /**
   * Changes a resting order's total quantity and/or price. A decrease keeps time
   * priority; an increase or a new price re-queues it (and may match). The reservation
   * follows the new remaining quantity and price.
   */
  async modify(account: AccountRef, market: Market, orderId: bigint, change: { newTotal?: bigint; newPrice?: bigint }) {
    const { newTotal, newPrice } = change;
    const engine = this.engineOf(market);
    const outcome = await this.sequencer.submitAfter(this.prepareOrder(account, market), (ws) => {
      const { now, nowNs } = jobTime(this.deps.clock);
      const live = this.open.get(orderId);
      if (!live || live.tif === 'IOC') throw orderNotFound('the order is no longer open');
      // newQty is the lineage's new total, as origQty is: what it fills across generations.
      const leaves = newTotal !== undefined ? newTotal - live.inheritedCumQty - live.cumQty : live.leavesQty;
      if (leaves <= 0n) throw invalidArgument('newQty', 'must exceed the quantity already filled', 'above-filled');
      const price = newPrice ?? live.price;
      checkMinimumSize(market, price, leaves, newTotal !== undefined ? 'newQty' : 'newPrice');
      const ref = tradingRef(account.id, live.side === 'BUY' ? market.quote.unifiedAssetId : market.base.unifiedAssetId);
      const { required, delta } = reReservation(market, { side: live.side, price, leaves, feeAsset: live.feeAsset, heldE18: live.heldE18 });
      this.balances.requireUnlocked(ref, delta, now.getTime(), 'newQty');
      if (delta > 0n && !this.balances.hold(ws, ref, delta)) throw insufficientBalance('newQty');
      if (delta < 0n) this.balances.release(ws, ref, -delta);
      live.heldE18 = required;
      const events = engine.modify(orderId, { newQty: leaves, ...(newPrice !== undefined ? { newPrice } : {}) }, nowNs);
      const rejected = events.find((e) => e.type === 'rejected');
      if (rejected?.type === 'rejected') {
        // Undo the reservation change and keep whatever the engine did (an expiry): the
        // job succeeds, so that change is committed and published, and the caller is
        // refused once it is.
        if (delta > 0n) this.balances.release(ws, ref, delta);
        if (delta < 0n) this.balances.hold(ws, ref, -delta);
        live.heldE18 -= delta;
        this.applyEvents(ws, market, events.filter((e) => e.type !== 'rejected'), nowNs, now, new Set());
        // The catalogue gives each code its status: an order the book no longer holds is a 404.
        const code = rejected.reason === 'ORDER_EXPIRED' ? codes.ORDER_NOT_FOUND : rejected.reason;
        return { refused: errors[code](`modify refused: ${rejected.reason}`) as ApiError };
      }
      if (newTotal !== undefined) live.origQty = newTotal;
      if (newPrice !== undefined) live.price = newPrice;
      live.leavesQty = leaves;
      this.applyEvents(ws, market, events, nowNs, now, new Set([orderId]));
      return { order: { ...live }, market };
    });
    if ('refused' in outcome) throw outcome.refused;
    return outcome;
  }

  /** Cancels one open order of the account (spec 4.5 Cancel Order). */
  async cancel(account: AccountRef, market: Market, order: { id: bigint; publicId: string }) {
    const outcome = await this.sequencer.submitAfter(() => this.balances.load(this.refsFor([account.id], market)), (ws) => {
      const { now, nowNs } = jobTime(this.deps.clock);
      const live = this.open.get(order.id);
      if (!live) throw orderNotFound('the order is no longer open');
      // An order past its expiry ends EXPIRED, as if the sweep had come first.
      if (this.expireIfDue(ws, market, live, nowNs, now)) return { refused: orderNotFound('the order expired') };
      this.applyEvents(ws, market, this.engineOf(market).cancel(order.id), nowNs, now, new Set());
      return { canceled: { orderId: order.publicId, status: 'ACCEPTED' as const, ts: now, tsNs: nowNs } };
    });
    if ('refused' in outcome) throw outcome.refused;
    return outcome.canceled;
  }

  /** Expires resting GTD orders whose time has come (run on a timer). */
  async expireDue(): Promise<void> {
    const due = this.open.dueBy(this.deps.clock.nowNs());
    for (const market of this.deps.markets.markets) {
      const accounts = due.filter((o) => o.symbolId === market.symbolId).map((o) => o.accountId);
      if (accounts.length === 0) continue;
      await this.sequencer.submitAfter(
        () => this.balances.load(this.refsFor(accounts, market)),
        (ws) => {
          const { now, nowNs } = jobTime(this.deps.clock);
          this.applyEvents(ws, market, this.engineOf(market).expireDue(nowNs), nowNs, now, new Set());
        },
      );
    }
  }

  /** Forgets client order ids (see ClientOrderIds.prune). */
  pruneClientIds(nowMs: number, projected: boolean): void {
    this.clientIds.prune(nowMs, projected);
  }

  // ---- Inside a job: what the other parts use ------------------------------------------------

  /** The balances a job on `account` in `market` may touch, loaded before it runs. */
  refsFor(accountIds: bigint[], market: Market): BalanceRef[] {
    const ids = [...new Set([...accountIds, this.deps.systemAccounts.fees])];
    return ids.flatMap((id) => [tradingRef(id, market.base.unifiedAssetId), tradingRef(id, market.quote.unifiedAssetId)]);
  }

  /**
   * VIP tiers (the root account's, for subaccounts too) of the accounts a job may charge
   * fees to, loaded before the job and re-read after a minute (operators change tiers).
   */
  async loadTiers(accountIds: Iterable<bigint>): Promise<void> {
    const now = Date.now();
    const stale = [...new Set(accountIds)].filter((id) => (this.vipTiers.get(id)?.at ?? 0) < now - VIP_TIER_TTL_MS);
    if (stale.length === 0) return;
    const rows = await this.deps.db.account.findMany({
      where: { id: { in: stale } },
      select: { id: true, vipTier: true, rootAccount: { select: { vipTier: true } } },
    });
    for (const r of rows) this.vipTiers.set(r.id, { tier: r.rootAccount?.vipTier ?? r.vipTier, at: now });
  }

  /** What a new order reserves, and from which balance; the notional cap for BUY debit limits. */
  reservationFor(market: Market, account: Owner, v: ValidatedOrder, order: CreateOrderInput['order'], working: bigint, protection?: bigint) {
    const r = reserve(market, { side: order.side, qty: working, limit: protection ?? v.price, feeAsset: v.feeAsset, maxQuoteDebit: v.maxQuoteDebit });
    return { ref: tradingRef(account.id, r.asset === 'QUOTE' ? market.quote.unifiedAssetId : market.base.unifiedAssetId), hold: r.hold, cap: r.cap };
  }

  /**
   * Everything that can refuse a new order, checked against the current state without
   * changing it: a replacement runs this before it touches the order it replaces, so a
   * refusal never leaves a job half done. What it returns is what `placeInJob` applies.
   */
  checkPlace(ctx: PlaceContext): CheckedPlacement {
    const { account, market, v, input, nowNs } = ctx;
    const engine = this.engineOf(market);
    if (v.tif !== 'IOC') {
      // A replacement takes the place of an order already counted.
      const resting = this.open.countOf(account.id) - (ctx.lineage?.replacesOrderId !== undefined ? 1 : 0);
      if (resting >= MAX_OPEN_ORDERS_PER_ACCOUNT) {
        throw invalidArgument('order', `an account keeps at most ${MAX_OPEN_ORDERS_PER_ACCOUNT} open orders: cancel some first`, 'max-open-orders', errors.TOO_MANY_OPEN_ORDERS);
      }
    }
    this.clientIds.check(account.id, input.order.clientOrderId, ctx.now);
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
    const { ref: holdRef, hold, cap } = this.reservationFor(market, account, v, input.order, working, protection);
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
    if (refused === codes.INVALID_NOTIONAL_CAP) {
      throw invalidArgument(`order.${v.variant}.maxQuoteDebit`, 'is too small to pay for any quantity at this market’s fees', 'too-small');
    }
    if (refused !== null) throw errors[refused](`the matching engine refuses this order: ${refused}`);
    return { place, holdRef, hold, working };
  }

  /** `placeInJob`, also answering the new order's version in the group: what a trigger records of its child. */
  placeOrderRow(ws: WriteSet, ctx: PlaceContext, checked: CheckedPlacement = this.checkPlace(ctx)): { accepted: Accepted; row: OrderVersion } {
    const { account, market, v, input, now, nowNs } = ctx;
    const engine = this.engineOf(market);
    const clientOrderId = input.order.clientOrderId;
    const { place, holdRef, hold } = checked;
    this.balances.requireUnlocked(holdRef, hold, now.getTime(), 'order.baseQty');
    if (!this.balances.hold(ws, holdRef, hold)) throw insufficientBalance('order.baseQty');
    const id = this.deps.ids.orders.take();
    const publicId = newPublicId();
    const row = newOrderRow(ctx, checked, id, publicId);
    this.open.set(id, row);
    ws.newOrders.set(id, row);
    // Before it matches: a replacement that fills at once resizes and arms the legs it carries.
    const legTriggers = this.effects.accepted(ws, { account, market, row, riskLegs: v.riskLegs, ...(ctx.lineage ? { replacesOrderId: ctx.lineage.replacesOrderId } : {}), now, nowNs });
    const events = engine.place({ ...place, orderId: id }, nowNs);
    const rejected = events.find((e) => e.type === 'rejected');
    if (rejected) throw new Error(`engine rejected a validated order: ${rejected.type === 'rejected' ? rejected.reason : ''}`);
    this.applyEvents(ws, market, events, nowNs, now, new Set([id]));
    if (clientOrderId !== undefined) {
      const expiresAt = new Date(now.getTime() + CLIENT_ORDER_ID_RETENTION_MS);
      this.clientIds.take(account.id, clientOrderId, expiresAt.getTime());
      ws.clientOrderIds.push({ accountId: account.id, clientOrderId, orderId: id, createdAt: now, expiresAt });
    }
    const accepted: Accepted = {
      orderId: publicId,
      clientOrderId: clientOrderId ?? '',
      acceptedAt: now,
      acceptedAtTsNs: nowNs,
      resolvedBaseQty: v.qty,
      submittedMaxQuoteDebit: v.maxQuoteDebit,
      market,
      legTriggers,
    };
    return { accepted, row: ws.newOrders.get(id) as OrderVersion };
  }

  /** Inside a job: cancels those of `ids` still open in `market`, `why` their close reason; how many. */
  cancelOpen(ws: WriteSet, market: Market, ids: bigint[], why: UserCancel, now: Date, nowNs: bigint): number {
    const engine = this.engineOf(market);
    const open = ids.filter((id) => this.open.get(id)?.isOpen);
    this.applyEvents(ws, market, open.flatMap((id) => engine.cancel(id)), nowNs, now, new Set(), why);
    return open.length;
  }

  /** Inside a job: cancels the account's open orders in `market` (and `side`); how many. */
  cancelAccountOrders(ws: WriteSet, accountId: bigint, market: Market, side: 'BUY' | 'SELL' | undefined, why: UserCancel, now: Date, nowNs: bigint): number {
    const engine = this.engineOf(market);
    const ids = this.open.ofAccount(accountId).filter((o) => o.symbolId === market.symbolId && (!side || o.side === side)).map((o) => o.id);
    this.applyEvents(ws, market, ids.flatMap((id) => engine.cancel(id)), nowNs, now, new Set(), why);
    return ids.length;
  }

  /** Inside a job: expires every order of `market` past its expiry, as the sweep would. */
  expireDueIn(ws: WriteSet, market: Market, now: Date, nowNs: bigint): void {
    this.applyEvents(ws, market, this.engineOf(market).expireDue(nowNs), nowNs, now, new Set());
  }

  // ---- Private -----------------------------------------------------------------------------

  /** What a job placing or changing an account's order reads from memory: its balances, fee tier and client order ids. */
  private prepareOrder(account: AccountRef, market: Market, clientOrderId?: string) {
    return () => Promise.all([this.clientIds.load(account.id, clientOrderId), this.balances.load(this.refsFor([account.id], market)), this.loadTiers([account.id])]);
  }

  /** Reserves, matches and records one new order inside a sequencer job. */
  private placeInJob(ws: WriteSet, ctx: PlaceContext, checked: CheckedPlacement = this.checkPlace(ctx)): Accepted {
    return this.placeOrderRow(ws, ctx, checked).accepted;
  }

  /**
   * Inside a job: if `live` is past its GTD expiry (the sweep has not reached it yet), expires
   * every due order of its book, as the sweep would, and says so. The caller then refuses
   * what it was asked, once that expiry is committed.
   */
  private expireIfDue(ws: WriteSet, market: Market, live: OrderRow, nowNs: bigint, now: Date): boolean {
    if (live.expireAtTsNs === null || live.expireAtTsNs > nowNs) return false;
    this.applyEvents(ws, market, this.engineOf(market).expireDue(nowNs), nowNs, now, new Set());
    return true;
  }

  private engineOf(market: Market): OrderBook {
    return this.engines.get(market.symbolId) as OrderBook;
  }

  /**
   * Applies engine events to order rows, balances and the write set (inside a job).
   * `userCancel` is recorded as the close reason of orders the caller's request canceled.
   */
  private applyEvents(ws: WriteSet, market: Market, events: MatchEvent[], nowNs: bigint, now: Date, touched: Set<bigint>, userCancel: UserCancel = 'USER_CANCELED') {
    const book = this.books.get(market.symbolId) as BookLevels;
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
          this.settle(ws, market, e, nowNs, now);
          this.effects.traded(market.symbolId, e.price);
          touched.add(e.makerOrderId as bigint).add(e.takerOrderId as bigint);
          level(e.takerSide === 'BUY' ? 'SELL' : 'BUY', e.price, -e.qty);
          break;
        }
        case 'modified':
          if (e.priorityKept) level(e.side, e.price, e.qty - e.oldQty);
          else level(e.side, e.oldPrice, -e.oldQty);
          break;
        case 'canceled':
        case 'decremented': {
          if (e.wasResting) level(e.side, e.price, e.type === 'canceled' ? -e.remaining : -e.qty);
          const row = this.open.get(e.orderId as bigint);
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
          const row = this.open.get(e.orderId as bigint);
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
      const row = this.open.get(id);
      if (!row) continue;
      if (!row.isOpen && row.heldE18 > 0n) {
        const heldAsset = row.side === 'BUY' ? market.quote.unifiedAssetId : market.base.unifiedAssetId;
        this.balances.release(ws, tradingRef(row.accountId, heldAsset), row.heldE18);
        row.heldE18 = 0n;
      }
      row.version += 1;
      // The new version is committed with the group, then streamed from its journal entry.
      ws.order(row);
      this.effects.orderChanged(ws, row, now, nowNs);
      if (!row.isOpen) this.open.delete(id);
    }
    if (changed.size > 0) {
      // One delta per call, its levels' totals as they are now: streamed from the journal entry.
      book.sequence += 1n;
      for (const { side, price } of changed.values()) {
        ws.bookLevels.push({ symbolId: market.symbolId, sequence: book.sequence, side, price, qty: (side === 'BUY' ? book.bids : book.asks).get(price) ?? 0n });
      }
    }
    const engine = this.engineOf(market);
    ws.sequences.set(market.symbolId, { lastMatchId: engine.nextMatchId - 1n, lastPrioritySeq: engine.nextPrioritySeq - 1n, lastBookSeq: book.sequence });
  }

  /**
   * Settles one fill as one ledger transfer: the buyer's quote (telescoped on its
   * cumulative notional, so many fills never cost more than the single reservation) for
   * the seller's base, and each side's fee in its fee asset.
   */
  private settle(ws: WriteSet, market: Market, t: TradeEvent, nowNs: bigint, now: Date) {
    const maker = this.open.get(t.makerOrderId as bigint) as OrderRow & { accountPublicId: string };
    const taker = this.open.get(t.takerOrderId as bigint) as OrderRow & { accountPublicId: string };
    const party = (o: OrderRow) => ({ accountId: o.accountId, feeAsset: o.feeAsset, vipTier: this.vipTiers.get(o.accountId)?.tier ?? 0, cumNotionalQ9: o.cumNotionalQ9 });
    const s = settleFill({ market, feeAccountId: this.deps.systemAccounts.fees, price: t.price, qty: t.qty, takerSide: t.takerSide, maker: party(maker), taker: party(taker) });
    const leg = (l: DebitLeg | CreditLeg): LegSpec => ({ ref: tradingRef(l.accountId, l.assetId), amount: l.amount, code: l.code, ...('debitFrom' in l ? { debitFrom: l.debitFrom } : {}) });
    const transferId = this.deps.ids.transfers.take();
    this.balances.post(ws, { id: transferId, code: 'TRADE', timestampUs: nowNs / 1000n, symbolId: market.symbolId, matchId: t.matchId }, s.debits.map(leg), s.credits.map(leg));

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
}
