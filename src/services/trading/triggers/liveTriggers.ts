import { errors } from '../../../domain/errorCatalogue.ts';
import { TriggerBook, type TrailingParams, type TrailingState } from '../../../domain/triggers/index.ts';
import type { Clock } from '../../../infra/clock.ts';
import type { Market, MarketCatalog } from '../../markets.ts';
import type { BalanceBook } from '../balances.ts';
import type { TradingCore } from '../core/tradingCore.ts';
import { tradingRef, type EndedIdsRead, type EngineIds, type Owner } from '../engineTypes.ts';
import { ExpiryIndex } from '../expiries.ts';
import type { CreateOrderInput, ValidatedOrder } from '../orderInput.ts';
import { childProtection, trailingParamsOf, trailingStateOf, type TrailingStateJson } from '../triggerRules.ts';
import type { TriggerEventRow, TriggerRow, WriteSet } from '../writeSet.ts';

/** A trigger not yet terminal, with its owner. */
export type LiveTrigger = { row: TriggerRow; owner: Owner };

/** What the trigger engine's parts use of the core: placing and canceling child orders, and what they reserve. */
export type CoreForTriggers = Pick<TradingCore, 'placeOrderRow' | 'checkPlace' | 'reservationFor' | 'cancelOpen' | 'refsFor' | 'loadTiers' | 'openOrder'>;

export interface TriggerDeps {
  clock: Clock;
  markets: MarketCatalog;
  balances: BalanceBook;
  core: CoreForTriggers;
  ids: EngineIds;
  /** The journal's last entry: ended client trigger ids are kept until the projection passes it. */
  journal: { readonly lastSeq: bigint };
  projector: { readonly watermark: bigint };
  maxLiveTriggersPerAccount?: number | undefined;
}

/** The triggers as loaded from the tables (recovery). */
export interface LoadedTriggers {
  triggers: Map<bigint, LiveTrigger>;
  books: Map<number, TriggerBook>;
  trailing: Map<number, Set<bigint>>;
  twaps: Set<bigint>;
  lastPrice: Map<number, bigint>;
}

/**
 * The trigger engine's memory and the steps every kind of trigger shares (watching,
 * recording events, ending, releasing its hold). Used only by the trigger engine's parts
 * (triggerEngine.ts, legs.ts, ladders.ts, twaps.ts).
 */
export class LiveTriggers {
  /** Triggers not yet terminal, by id, with their owner (spec 2.8). */
  triggers = new Map<bigint, LiveTrigger>();
  /** Per symbol, the armed price triggers, sorted by how soon a move reaches them. */
  triggerBooks = new Map<number, TriggerBook>();
  /** Per symbol, its watching trailing stops: each follows every trade of its symbol. */
  trailing = new Map<number, Set<bigint>>();
  /** Live triggers by `${accountId}:${clientTriggerId}`: a repeated create finds its trigger without a scan. */
  triggerByClientId = new Map<string, bigint>();
  /**
   * Ended triggers by `${accountId}:${clientTriggerId}`, with (an upper bound of) the journal
   * entry that ended them, in that order. A create looks ended ids up in the tables before
   * its job runs; one that ended after that read is found here instead, so a duplicate is
   * never journaled (the unique index would refuse its projection). Kept until both the
   * projection and every read in flight have passed the entry.
   */
  readonly endedByClientId = new Map<string, { row: TriggerRow; seq: bigint }>();
  /** Journal positions of the ended-id reads in flight (holdEndedTriggerIds), with their counts. */
  readonly endedIdReads = new Map<bigint, number>();
  /** Counts rebuilds, which forget `endedByClientId`: a read begun before one must look again. */
  endedIdsEpoch = 0;
  /** Per parent order, the triggers of its attached-risk legs. */
  legsByParent = new Map<bigint, bigint[]>();
  /** TWAPs working (not paused): each runs a slice when its time comes. */
  twaps = new Set<bigint>();
  /** Per symbol, the price of its last trade: what price triggers watch (LAST_PRICE). */
  lastPrice = new Map<number, bigint>();
  /** Symbols that traded in the job now running: their triggers are checked after it. */
  readonly priceMoved = new Set<number>();
  /** Live triggers with an `expireAt`, by it (epoch ns): the sweep costs the due ones, not a scan. */
  expiries = new ExpiryIndex<bigint>();
  /**
   * Trailing stops' parameters and state as typed values, read from their row once per
   * version: a trade costs each of its symbol's trailing stops arithmetic, not JSON.
   */
  readonly trailingMemo = new Map<bigint, { version: number; params: TrailingParams; state: TrailingState }>();
  /** Per account, its live standalone triggers (legs not counted): what the cap checks. */
  standaloneLive = new Map<bigint, number>();

  constructor(private readonly deps: TriggerDeps) {}

  /** Starts watching prices for an armed trigger: a stop in its symbol's price book, a trailing stop in its symbol's followers. */
  watch(row: TriggerRow): void {
    if (row.triggerType === 'TWAP') return void this.twaps.add(row.id);
    if (row.triggerType !== 'TRAILING_STOP') return this.bookOf(row.symbolId).add({ id: row.id, direction: row.triggerDirection, triggerPrice: row.triggerPrice });
    let ids = this.trailing.get(row.symbolId);
    if (!ids) this.trailing.set(row.symbolId, (ids = new Set()));
    ids.add(row.id);
  }

  unwatch(row: TriggerRow): void {
    if (row.triggerType === 'TWAP') this.twaps.delete(row.id);
    else if (row.triggerType === 'TRAILING_STOP') this.trailing.get(row.symbolId)?.delete(row.id);
    else this.bookOf(row.symbolId).remove({ id: row.id, direction: row.triggerDirection, triggerPrice: row.triggerPrice });
  }

  bookOf(symbolId: number): TriggerBook {
    let book = this.triggerBooks.get(symbolId);
    if (!book) this.triggerBooks.set(symbolId, (book = new TriggerBook()));
    return book;
  }

  /** The account's live trigger `id`, or 404. */
  liveTrigger(accountId: bigint, id: bigint): LiveTrigger {
    const live = this.triggers.get(id);
    if (!live || live.row.accountId !== accountId) throw errors.TRIGGER_NOT_FOUND('no live trigger with that id');
    return live;
  }

  /** What a trigger holds: its child's reservation at the price the child is bounded by. */
  triggerReservation(owner: Owner, market: Market, t: Pick<TriggerRow, 'side' | 'qty' | 'feeAsset' | 'childKind' | 'childLimitPrice' | 'triggerPrice' | 'maxSlippageBps' | 'maxSlippageTicks'>) {
    const limit = t.childKind === 'LIMIT' ? (t.childLimitPrice as bigint) : childProtection(t, market.tickSize);
    return this.deps.core.reservationFor(market, owner, { price: limit, feeAsset: t.feeAsset, maxQuoteDebit: undefined } as ValidatedOrder, { side: t.side } as CreateOrderInput['order'], t.qty);
  }

  releaseTriggerHold(ws: WriteSet, row: TriggerRow, owner: Owner): void {
    if (row.heldE18 === 0n) return;
    const market = this.deps.markets.marketById(row.symbolId) as Market;
    const asset = row.side === 'BUY' ? market.quote.unifiedAssetId : market.base.unifiedAssetId;
    this.deps.balances.release(ws, tradingRef(owner.id, asset), row.heldE18);
    row.heldE18 = 0n;
  }

  triggerEvent(ws: WriteSet, row: TriggerRow, eventType: TriggerEventRow['eventType'], tsNs: bigint, extra: Partial<TriggerEventRow> = {}): void {
    const owner = this.triggers.get(row.id)?.owner;
    ws.triggerEvents.push({
      triggerPublicId: row.publicId,
      accountPublicId: owner?.publicId ?? '',
      childOrderPublicId: null,
      triggerId: row.id,
      eventType,
      triggerType: row.triggerType,
      accountId: row.accountId,
      symbolId: row.symbolId,
      childOrderId: null,
      childSeq: 0,
      firePx: null,
      cancelReason: null,
      failureReason: null,
      tsNs,
      ...extra,
    });
  }

  /** A trailing stop's typed parameters and state, parsed again only when its row changed elsewhere (a new version). */
  trailingOf(row: TriggerRow, tickSize: bigint): { version: number; params: TrailingParams; state: TrailingState } {
    let memo = this.trailingMemo.get(row.id);
    if (memo?.version !== row.version) {
      memo = { version: row.version, params: trailingParamsOf(row, tickSize), state: trailingStateOf(JSON.parse(row.state) as Partial<TrailingStateJson>) };
      this.trailingMemo.set(row.id, memo);
    }
    return memo;
  }

  /** A standalone trigger became live: counted for its account's cap, indexed by its expiry. */
  admitted(row: TriggerRow): void {
    this.standaloneLive.set(row.accountId, (this.standaloneLive.get(row.accountId) ?? 0) + 1);
    const at = expireAtOf(row);
    if (at !== null) this.expiries.add(row.id, at);
  }

  /** Ends a trigger: it leaves memory, its row and event record why. */
  endTrigger(ws: WriteSet, row: TriggerRow, end: Pick<TriggerRow, 'status'> & Partial<Pick<TriggerRow, 'cancelReason' | 'failureReason'>>, now: Date, nowNs: bigint): void {
    Object.assign(row, end, { updatedAt: now, terminalAt: now, version: row.version + 1, ...(end.status === 'COMPLETED' ? { completedAt: now } : {}) });
    ws.trigger(row);
    const eventType = end.status === 'COMPLETED' ? 'COMPLETED' : end.status === 'CANCELED' ? 'CANCELED' : end.status === 'EXPIRED' ? 'EXPIRED' : 'FAILED';
    this.triggerEvent(ws, row, eventType, nowNs, { cancelReason: end.cancelReason ?? null, failureReason: end.failureReason ?? null });
    this.triggers.delete(row.id);
    this.trailingMemo.delete(row.id);
    if (row.parentOrderId === null) this.forgetStandalone(row);
    if (row.clientTriggerId !== null) {
      const key = `${row.accountId}:${row.clientTriggerId}`;
      this.triggerByClientId.delete(key);
      // The open group is committed after the one in flight, if any: at most two entries on.
      this.endedByClientId.delete(key);
      this.endedByClientId.set(key, { row: { ...row }, seq: this.deps.journal.lastSeq + 2n });
      this.pruneEndedTriggerIds();
    }
    if (row.parentOrderId !== null) {
      // A parent is followed while any of its legs is live.
      const left = (this.legsByParent.get(row.parentOrderId) ?? []).filter((id) => id !== row.id);
      if (left.length > 0) this.legsByParent.set(row.parentOrderId, left);
      else this.legsByParent.delete(row.parentOrderId);
    }
  }

  private forgetStandalone(row: TriggerRow): void {
    const n = (this.standaloneLive.get(row.accountId) ?? 1) - 1;
    if (n > 0) this.standaloneLive.set(row.accountId, n);
    else this.standaloneLive.delete(row.accountId);
    this.expiries.delete(row.id);
  }

  /**
   * Taken before reading ended triggers' client ids from the tables, released once the
   * create that follows is answered: the ids of triggers ending after the read are kept in
   * memory until then (see `endedByClientId`).
   */
  holdEndedTriggerIds(): EndedIdsRead {
    const seq = this.deps.journal.lastSeq;
    this.endedIdReads.set(seq, (this.endedIdReads.get(seq) ?? 0) + 1);
    let released = false;
    return {
      epoch: this.endedIdsEpoch,
      release: () => {
        if (released) return;
        released = true;
        const n = (this.endedIdReads.get(seq) ?? 1) - 1;
        if (n > 0) this.endedIdReads.set(seq, n);
        else this.endedIdReads.delete(seq);
      },
    };
  }

  /** Forgets the ended ids the tables hold for every reader: entries are in journal order, so it stops at the first kept. */
  pruneEndedTriggerIds(): void {
    let floor = this.deps.projector.watermark;
    for (const seq of this.endedIdReads.keys()) if (seq < floor) floor = seq;
    for (const [key, e] of this.endedByClientId) {
      if (e.seq > floor) break;
      this.endedByClientId.delete(key);
    }
  }

  /** Takes the triggers loaded from the tables: the tables now hold every end that was durable. */
  install(loaded: LoadedTriggers): void {
    const { triggers } = loaded;
    this.triggers = triggers;
    this.triggerByClientId = new Map([...triggers.values()].filter((t) => t.row.clientTriggerId !== null).map((t) => [`${t.row.accountId}:${t.row.clientTriggerId}`, t.row.id]));
    // The tables now hold every end that was durable; an end refused with its group never happened.
    this.endedByClientId.clear();
    this.endedIdsEpoch += 1;
    this.triggerBooks = loaded.books;
    this.trailing = loaded.trailing;
    const legs = new Map<bigint, bigint[]>();
    for (const { row } of triggers.values()) if (row.parentOrderId !== null) legs.set(row.parentOrderId, [...(legs.get(row.parentOrderId) ?? []), row.id]);
    this.legsByParent = legs;
    this.twaps = loaded.twaps;
    this.lastPrice = loaded.lastPrice;
    this.priceMoved.clear();
    this.expiries = new ExpiryIndex<bigint>();
    this.trailingMemo.clear();
    this.standaloneLive = new Map();
    for (const { row } of triggers.values()) if (row.parentOrderId === null) this.admitted(row);
  }
}

/** A trigger's expiry (epoch ns), kept with its submitted parameters; null when it has none. */
export function expireAtOf(row: Pick<TriggerRow, 'params'>): bigint | null {
  const params = (typeof row.params === 'string' ? JSON.parse(row.params) : row.params) as { expireAtTsNs?: string };
  return params.expireAtTsNs === undefined ? null : BigInt(params.expireAtTsNs);
}
