import type { TypedEventTarget } from '@graphql-yoga/typed-event-target';
import type { Logger } from 'pino';
import { ApiError, invalidArgument } from '../../domain/errors.ts';
import { newPublicId } from '../../domain/ids.ts';
import { OrderBook, quoteNotional, type Depth, type MatchEvent, type PlaceOrder, type TradeEvent } from '../../domain/matching/index.ts';
import { reReservation, reservationFor as reserve, settleFill, type CreditLeg, type DebitLeg } from '../../domain/settlement/index.ts';
import type { OrderCloseReason } from '../../generated/prisma/client.ts';
import type { Clock } from '../../infra/clock.ts';
import type { Db } from '../../infra/database.ts';
import type { SqlQueryable } from '../../infra/migrations.ts';
import type { AccountRef } from '../access.ts';
import type { Market, MarketCatalog } from '../markets.ts';
import { BalanceBook, type BalanceRef, type LegSpec } from './balances.ts';
import { DepositLocks } from './depositLocks.ts';
import { FlowBook, type FlowJob, type FlowMove } from './flowJobs.ts';
import { MonotonicIds } from './ids.ts';
import { ExpiryIndex } from './expiries.ts';
import { OpenOrders } from './openOrders.ts';
import { INITIAL_TRAILING, TriggerBook, crosses, directionOf, onTrailingPrice, sliceQty, slicePrice, twapOutcome, worstThreshold } from '../../domain/triggers/index.ts';
import { formatScaled } from '../../domain/money.ts';
import { Journal } from './journal.ts';
import { validateNewOrder, type CreateOrderInput, type ValidatedOrder } from './orderInput.ts';
import {
  checkSameTrigger,
  childOrderOf,
  childProtection,
  failureOf,
  noReferencePrice,
  trailingParamsOf,
  trailingStateJson,
  trailingStateOf,
  triggerNotPausable,
  unfilledReason,
  wouldFireAtOnce,
  type LadderChild,
  type TrailingStateJson,
  type TriggerSpec,
} from './triggerRules.ts';
import type { EngineOwner } from './ownership.ts';
import { isFenceLost } from './persist.ts';
import { isReadTimeout } from '../../infra/databaseErrors.ts';
import { Projector, type QuarantinedEntry, type ReapplyOutcome } from './projector.ts';
import { Publications, type SubscriberLimits } from '../publications.ts';
import { CommitAbandoned, rebuildingError, Sequencer } from './sequencer.ts';
import { entryEvents, resumeAfter, type BookDeltaPayload, type FillPayload, type OrderEventPayload, type PublicTradePayload, type TriggerEventPayload } from './streams.ts';
import { switchKey, type WithdrawStatusRow, type OrderRow, type OrderVersion, type SwitchRow, type TriggerEventRow, type TriggerRow, type TradeRow, type TransferRow, type WriteSet } from './writeSet.ts';
import { misfitError, writeSetMisfit } from './storable.ts';
import { duplicateClientOrderId, insufficientBalance, orderNotFound } from './errors.ts';
import { WithdrawalBook, type PreparedWithdrawal, type WithdrawHold, type WithdrawSubmission } from './withdrawals.ts';

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
/** Open orders one trading account (root or subaccount) may keep: the spec's largest open-orders page, so one read lists them all. */
export const MAX_OPEN_ORDERS_PER_ACCOUNT = 1000;
/** Journal entries a resume reads and decodes at once before it lets other work run (docs/scaling.md). */
export const RESUME_PAGE_ENTRIES = 100;

type BookLevels = { bids: Map<bigint, bigint>; asks: Map<bigint, bigint>; sequence: bigint };
type CloseInfo = { status: 'FILLED' | 'CANCELED' | 'EXPIRED'; reason: OrderCloseReason | null };
/** Why a cancel the account asked for closed its orders. */
export type UserCancel = Extract<OrderCloseReason, 'USER_CANCELED' | 'CANCEL_ALL' | 'DEAD_MAN_SWITCH'>;

const CANCEL_REASONS: Record<string, CloseInfo> = {
  IOC_REMAINDER: { status: 'CANCELED', reason: 'IOC_REMAINDER' },
  STP: { status: 'CANCELED', reason: 'SELF_TRADE_PREVENTION' },
  EXPIRED: { status: 'EXPIRED', reason: 'GTD_EXPIRED' },
  POST_ONLY: { status: 'CANCELED', reason: 'POST_ONLY_WOULD_TAKE' },
  NOTIONAL_CAP: { status: 'CANCELED', reason: 'QUOTE_DEBIT_LIMIT' },
  MARKET_NO_LIQUIDITY: { status: 'CANCELED', reason: 'NO_LIQUIDITY' },
  PRICE_PROTECTION: { status: 'CANCELED', reason: 'SLIPPAGE_LIMIT' },
};

/** Whose order it is: all a placement needs of the account. */
type Owner = Pick<AccountRef, 'id' | 'publicId'>;

interface PlaceContext {
  account: Owner;
  market: Market;
  v: ValidatedOrder;
  input: { order: CreateOrderInput['order'] };
  now: Date;
  nowNs: bigint;
  lineage?: { lineageId: string; generation: number; inheritedCumQty: bigint; inheritedNotionalQ9: bigint; replacesOrderId: bigint };
  /** Set for a trigger's child order. */
  origin?: { triggerId: bigint; triggerType: TriggerRow['triggerType']; childSeq: number };
}

/** What `checkPlace` found an order may do: what `placeInJob` then applies. */
interface CheckedPlacement {
  place: PlaceOrder;
  holdRef: BalanceRef;
  hold: bigint;
  working: bigint;
}

/** What an accepted order answers (spec 4.5 Create Order), before rendering. */
/** A read of ended triggers' client ids from the tables, in flight (Engine.holdEndedTriggerIds). */
export interface EndedIdsRead {
  epoch: number;
  release(): void;
}

export interface Accepted {
  orderId: string;
  clientOrderId: string;
  acceptedAt: Date;
  acceptedAtTsNs: bigint;
  resolvedBaseQty: bigint;
  submittedMaxQuoteDebit: bigint | undefined;
  market: Market;
  /** The public ids of the triggers executing its attached-risk legs. */
  legTriggers: Partial<Record<'stopLoss' | 'takeProfit' | 'trailingStop', string>>;
}

/** The engine's memory as `TradingEngine.memory()` copies it out. */
export interface EngineMemory {
  openOrders: OrderVersion[];
  balances: (BalanceRef & { available: bigint; held: bigint })[];
  /** Triggers not yet terminal. */
  triggers: TriggerRow[];
  armedSwitches: SwitchRow[];
  withdrawalHolds: (WithdrawHold & { intentId: bigint })[];
  /** Per market: the matching book's levels, and the level totals mirrored from its events. */
  books: { symbolId: number; depth: Depth; mirror: { bids: Map<bigint, bigint>; asks: Map<bigint, bigint> } }[];
}

/** What a ledger job may do inside the engine: post transfers and read the balances it loaded. */
export interface LedgerJob {
  post(transfer: { code: TransferRow['transferCode']; memo?: string; flowId?: bigint }, debits: LegSpec[], credits: LegSpec[]): TransferRow;
  balance(ref: BalanceRef): { available: bigint; held: bigint };
  /** Locks a credited deposit on the account it was credited to until its network's finality (depositLocks.ts). */
  lockDeposit(credit: { ref: BalanceRef; amount: bigint; serviceChainId: number; flowId: bigint }): void;
  /** The job's time, in microseconds, read inside the job. */
  nowUs: bigint;
}

export interface EngineDeps {
  db: Db;
  /** Raw SQL on the same database: journal appends and projections. */
  sql: SqlQueryable;
  clock: Clock;
  markets: MarketCatalog;
  events: TypedEventTarget<CustomEvent>;
  subscriberLimits?: SubscriberLimits;
  topicPrefix: string;
  systemAccounts: { fees: bigint; custody: bigint };
  logger: Logger;
  /** This process's claim to own trading state: the fence every append checks, and how to take it again. */
  owner: EngineOwner;
  /** Called once per loss if an append finds the fence moved: another process took trading state over. */
  onFenced(err: unknown): void;
  /** How long the projector lets entries gather before applying them (0: at once). */
  projectionDelayMs?: number;
  /** Told each entry's projection lag, in seconds (metrics). */
  onProjectionLag?: (seconds: number) => void;
  /** How long an order may wait for its journal append; past it, it is refused (503) and never stored. */
  commitDeadlineMs?: number;
  /** The chain's block interval: how long a credited deposit stays locked (depositLocks.ts); 1 s unless told. */
  chainBlockMs?: number;
}

/**
 * The trading engine: the order books, the balance authority, the sequencer and the
 * journal of one database, owned by this process alone (docs/scaling.md). Every change of
 * trading state goes through its public methods, each one sequenced job: validated against
 * memory, applied to memory, acknowledged once its group's journal entry is durable, then
 * streamed and projected into the read tables. Commands (commands/) check who may do what;
 * the engine checks what the state allows.
 */
export class TradingEngine {
  private readonly balances: BalanceBook;
  private readonly locks: DepositLocks;
  private readonly withdrawals: WithdrawalBook;
  private readonly flows: FlowBook;
  private readonly publications: Publications<OrderEventPayload | FillPayload | TriggerEventPayload | PublicTradePayload | BookDeltaPayload>;
  private readonly journal: Journal;
  private readonly projector: Projector;
  private readonly sequencer: Sequencer;
  private orderIds!: MonotonicIds;
  private transferIds!: MonotonicIds;
  private engines = new Map<number, OrderBook>();
  /** Per symbol: level totals mirrored from engine events, and the delta sequence. */
  private books = new Map<number, BookLevels>();
  /** Open orders, by internal id: the engine knows the book, this the rest of the row. */
  private open = new OpenOrders();
  private readonly vipTiers = new Map<bigint, { tier: number; at: number }>();
  /** Triggers not yet terminal, by id, with their owner (spec 2.8). */
  private triggers = new Map<bigint, { row: TriggerRow; owner: Owner }>();
  /** Per symbol, the armed price triggers, sorted by how soon a move reaches them. */
  private triggerBooks = new Map<number, TriggerBook>();
  /** Per symbol, its watching trailing stops: each follows every trade of its symbol. */
  private trailing = new Map<number, Set<bigint>>();
  /** Live triggers by `${accountId}:${clientTriggerId}`: a repeated create finds its trigger without a scan. */
  private triggerByClientId = new Map<string, bigint>();
  /**
   * Ended triggers by `${accountId}:${clientTriggerId}`, with (an upper bound of) the journal
   * entry that ended them, in that order. A create looks ended ids up in the tables before
   * its job runs; one that ended after that read is found here instead, so a duplicate is
   * never journaled (the unique index would refuse its projection). Kept until both the
   * projection and every read in flight have passed the entry.
   */
  private readonly endedByClientId = new Map<string, { row: TriggerRow; seq: bigint }>();
  /** Journal positions of the ended-id reads in flight (holdEndedTriggerIds), with their counts. */
  private readonly endedIdReads = new Map<bigint, number>();
  /** Counts rebuilds, which forget `endedByClientId`: a read begun before one must look again. */
  private endedIdsEpoch = 0;
  /** Per parent order, the triggers of its attached-risk legs. */
  private legsByParent = new Map<bigint, bigint[]>();
  /** TWAPs working (not paused): each runs a slice when its time comes. */
  private twaps = new Set<bigint>();
  /** Per symbol, the price of its last trade: what price triggers watch (LAST_PRICE). */
  private lastPrice = new Map<number, bigint>();
  /** Symbols that traded in the job now running: their triggers are checked after it. */
  private readonly priceMoved = new Set<number>();
  private triggerIds!: MonotonicIds;
  /** Armed dead-man switches, by switchKey: they fire inside a job, so a heartbeat is ordered before or after a firing. */
  private armedSwitches = new Map<string, SwitchRow>();
  /** The armed switches by expiry, for the sweep. */
  private switchExpiries = new ExpiryIndex<string>();
  /**
   * Per account, every client order id taken by an order (committed or in a group not yet
   * committed) with the time its retention ends. Read from the database once, then kept
   * here by the only writer; jobs check and take ids synchronously, so two orders can
   * never both take one, and an order with a clientOrderId costs no extra read. `usedAt`:
   * when they were last needed (idle accounts are forgotten, and read again).
   */
  private readonly clientIds = new Map<bigint, { ids: Map<string, number>; usedAt: number }>();
  private readonly clientIdLoads = new Map<bigint, Promise<void>>();
  private clientIdsPrunedAt = 0;
  /** Counts clears of `clientIds`: a read of the table begun before one is not kept. */
  private clientIdsEpoch = 0;
  /** Entries parked when memory was last rebuilt: memory, loaded from the tables, lacks them. */
  private parkedAtRebuild = new Set<bigint>();
  /** False from a lost lock or a moved fence until the lock is held and the fence moved again. */
  private owned = true;

  constructor(private readonly deps: EngineDeps) {
    this.locks = new DepositLocks(deps.sql, deps.chainBlockMs ?? 1_000);
    this.balances = new BalanceBook(deps.db, this.locks);
    this.withdrawals = new WithdrawalBook(deps.db, deps.sql);
    this.flows = new FlowBook(deps.db);
    this.publications = new Publications(deps.events, deps.subscriberLimits);
    this.journal = new Journal(deps.sql, () => deps.owner.fence);
    this.projector = new Projector(deps.sql, this.journal, {
      name: 'trading',
      logger: deps.logger,
      delayMs: deps.projectionDelayMs ?? 0,
      systemAccounts: new Set([deps.systemAccounts.fees, deps.systemAccounts.custody]),
      ...(deps.onProjectionLag ? { onLag: deps.onProjectionLag } : {}),
    });
    this.sequencer = new Sequencer(
      (ws, deadline) => this.commit(ws, deadline),
      (err) => this.recover(err),
      deps.commitDeadlineMs ?? Number.POSITIVE_INFINITY,
      // Triggers fire inside the job whose trade crossed them: the same journal entry.
      (ws) => this.fireCrossedTriggers(ws),
      (ws) => {
        const misfit = writeSetMisfit(ws);
        return misfit ? misfitError(misfit) : null;
      },
    );
  }

  // ---- Life cycle and reads ------------------------------------------------------------

  /** Brings the read tables up to the journal's end and loads the books from them (start-up). */
  start(): Promise<void> {
    return this.rebuild();
  }

  /**
   * The engine lock was lost (its connection died): another process may take trading state
   * over. Trading is refused from now on; the engine takes the lock again, rebuilds from
   * the database and serves again, with no restart.
   */
  ownershipLost(err: unknown): void {
    this.owned = false;
    this.sequencer.interrupt(err);
  }

  /** Throws (503) unless the engine serves: it owns trading state and its memory is current. */
  assertServing(): void {
    this.sequencer.assertReady();
  }

  /**
   * The account's open orders as of every change acknowledged before the call: read in
   * sequence, as a job, and answered once everything before it is durable, so it never
   * shows a change that could still be refused, and never waits for the projection.
   */
  openOrdersOf(accountId: bigint): Promise<OrderVersion[]> {
    return this.sequencer.submit(() => this.open.ofAccount(accountId).map((o) => ({ ...o })));
  }

  /** The account's balances in `assetIds`, both ledgers (FUNDING first, then by asset id), read in sequence like `openOrdersOf`. */
  async balancesOf(accountId: bigint, assetIds: readonly number[]): Promise<(BalanceRef & { available: bigint; held: bigint })[]> {
    const sorted = [...assetIds].sort((a, b) => a - b);
    const refs = (['FUNDING', 'TRADING'] as const).flatMap((ledgerAccount) => sorted.map((assetId) => ({ accountId, ledgerAccount, assetId })));
    return this.sequencer.submitAfter(
      () => this.balances.load(refs),
      () => refs.map((ref) => ({ ...ref, ...this.balances.get(ref) })),
    );
  }

  /**
   * A copy of the trading state this engine keeps in memory, read in sequence (after every
   * change acknowledged before the call): what the differential test holds against the
   * projected tables and a replay of the journal. Balances are the ones loaded so far.
   */
  memory(): Promise<EngineMemory> {
    return this.sequencer.submit(() => ({
      openOrders: [...this.open.values()].map((o) => ({ ...o })),
      balances: this.balances.loaded(),
      triggers: [...this.triggers.values()].map(({ row }) => ({ ...row })),
      armedSwitches: [...this.armedSwitches.values()].map((sw) => ({ ...sw })),
      withdrawalHolds: this.withdrawals.openHolds(),
      books: this.deps.markets.markets.map((m) => {
        const levels = this.books.get(m.symbolId) as BookLevels;
        return { symbolId: m.symbolId, depth: this.engineOf(m).depth(), mirror: { bids: new Map(levels.bids), asks: new Map(levels.asks) } };
      }),
    }));
  }

  /**
   * Resolves once the read tables reflect every acknowledged change; 503 past its bound,
   * and at once for a read of `accountIds` whose rows wait behind a quarantined entry.
   */
  readable(...accountIds: bigint[]): Promise<void> {
    return this.projector.reached(this.journal.lastSeq, READ_BARRIER_MS, accountIds);
  }

  /** The journal entries the projection parked (docs/scaling.md, "Quarantine"), oldest first. */
  get quarantined(): readonly QuarantinedEntry[] {
    return this.projector.parkedEntries;
  }

  /**
   * Projects a parked entry and those parked behind it, after the operator fixed what made
   * it fail. Memory rebuilt while they were parked was loaded from tables without them:
   * then it is rebuilt again, now that the tables hold them.
   */
  async reapplyQuarantined(seq: bigint): Promise<ReapplyOutcome> {
    const outcome = await this.projector.reapply(seq);
    if (outcome.reapplied.some((s) => this.parkedAtRebuild.has(s))) {
      for (const s of outcome.reapplied) this.parkedAtRebuild.delete(s);
      this.sequencer.interrupt(new Error('quarantined journal entries were re-applied that memory, rebuilt while they were parked, lacks'));
    }
    return outcome;
  }

  /** Resolves when every job submitted before the call has been committed or refused. */
  flushed(): Promise<void> {
    return this.sequencer.flushed();
  }

  /** A book snapshot with its delta sequence (refused, 503, while memory is rebuilt). */
  depth(market: Market, levels: number) {
    // Mid-rebuild, memory may hold a refused group's changes under a newer sequence.
    this.sequencer.assertReady();
    return { depth: this.engineOf(market).depth(levels), sequence: this.books.get(market.symbolId)?.sequence ?? 0n };
  }

  /** Public market streams: order-book deltas and trades of one symbol. */
  subscribeMarket(market: Market, stream: 'book' | 'trades') {
    return this.publications.subscribe(`${this.deps.topicPrefix}${stream}:${market.symbol}`);
  }

  /**
   * An account's order versions or fills, as they are acknowledged. With `after` (an
   * event's sequence), every later event the journal holds comes first.
   */
  async subscribe(stream: 'orders' | 'fills' | 'triggers', accountPublicId: string, after?: bigint) {
    const live = this.publications.subscribe(`${this.deps.topicPrefix}${stream}:${accountPublicId}`) as AsyncIterableIterator<OrderEventPayload & FillPayload & TriggerEventPayload>;
    if (after === undefined) return live;
    return resumeAfter(live, after, {
      lastEntry: () => this.journal.lastSeq,
      firstEntry: () => this.journal.firstSeq(),
      pages: (from, through) => this.journalPages(stream, accountPublicId, from, through),
    });
  }

  /** The account's events of one stream in entries after `from` through `through`: a page per read of its entries. */
  private async *journalPages(stream: 'orders' | 'fills' | 'triggers', accountPublicId: string, from: bigint, through: bigint) {
    for (let cursor = from; cursor < through; ) {
      const entries = await this.journal.readOf(accountPublicId, cursor, through, RESUME_PAGE_ENTRIES);
      const page: (OrderEventPayload & FillPayload & TriggerEventPayload)[] = [];
      for (const { seq, ws } of entries) {
        for (const e of entryEvents(seq, ws, this.symbolOf)[stream]) if (e.accountPublicId === accountPublicId) page.push(e as OrderEventPayload & FillPayload & TriggerEventPayload);
      }
      yield page;
      if (entries.length < RESUME_PAGE_ENTRIES) return;
      cursor = (entries[entries.length - 1] as { seq: bigint }).seq;
    }
  }

  // ---- Commands --------------------------------------------------------------------------

  /** Reserves, matches and settles a new order (spec 4.5 Create Order). */
  place(account: AccountRef, market: Market, v: ValidatedOrder, order: CreateOrderInput['order']): Promise<Accepted> {
    return this.sequencer.submitAfter(this.prepareOrder(account, market, order.clientOrderId), (ws) => this.placeInJob(ws, { account, market, v, input: { order }, ...this.jobTime() }));
  }

  /**
   * Replaces an open order with the next generation of its lineage: the old order ends
   * REPLACED, the new one inherits its filled quantity (`inheritedCumQty`) and keeps
   * `lineage.id`. Both happen in one job, so the pair is never half-done.
   */
  async replace(account: AccountRef, market: Market, oldId: bigint, v: ValidatedOrder, order: CreateOrderInput['order']): Promise<Accepted> {
    const outcome = await this.sequencer.submitAfter(this.prepareOrder(account, market, order.clientOrderId), (ws) => {
      const { now, nowNs } = this.jobTime();
      const live = this.open.get(oldId);
      if (!live || live.tif === 'IOC') throw orderNotFound('the order is no longer open');
      if (this.expireIfDue(ws, market, live, nowNs, now)) return { refused: orderNotFound('the order expired') };
      // Everything that can refuse the replacement is checked before the old order is touched.
      const inheritedCumQty = live.inheritedCumQty + live.cumQty;
      if (v.qty <= inheritedCumQty) throw invalidArgument('order.baseQty', 'must exceed the quantity the lineage has already filled', 'above-filled');
      this.checkMinimumSize(market, v.price, v.qty - inheritedCumQty, 'order.baseQty');
      const lineage = { lineageId: live.lineageId, generation: live.generation + 1, inheritedCumQty, inheritedNotionalQ9: live.inheritedNotionalQ9 + live.cumNotionalQ9, replacesOrderId: live.id };
      const placement: PlaceContext = { account, market, v, input: { order }, now, nowNs, lineage };
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
      const { now, nowNs } = this.jobTime();
      const live = this.open.get(orderId);
      if (!live || live.tif === 'IOC') throw orderNotFound('the order is no longer open');
      // newQty is the lineage's new total, as origQty is: what it fills across generations.
      const leaves = newTotal !== undefined ? newTotal - live.inheritedCumQty - live.cumQty : live.leavesQty;
      if (leaves <= 0n) throw invalidArgument('newQty', 'must exceed the quantity already filled', 'above-filled');
      const price = newPrice ?? live.price;
      this.checkMinimumSize(market, price, leaves, newTotal !== undefined ? 'newQty' : 'newPrice');
      const ref = this.tradingRef(account.id, live.side === 'BUY' ? market.quote.unifiedAssetId : market.base.unifiedAssetId);
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
        return {
          refused: new ApiError(rejected.reason === 'ORDER_EXPIRED' ? 'not-found' : 'invalid-argument', `modify refused: ${rejected.reason}`, {
            code: rejected.reason === 'ORDER_EXPIRED' ? 'ORDER_NOT_FOUND' : rejected.reason,
          }),
        };
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
      const { now, nowNs } = this.jobTime();
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

  /** Posts ledger transfers (credits, internal transfers) through the same sequencer and balances as trades. */
  transfer<T>(refs: BalanceRef[], run: (job: LedgerJob) => T): Promise<T> {
    return this.sequencer.submitAfter(
      () => this.balances.load(refs),
      (ws) => run(this.ledgerJob(ws)),
    );
  }

  private ledgerJob(ws: WriteSet, fieldPath = 'amount'): LedgerJob {
    // Read inside the job, so legs listed by time are listed in the order they applied.
    const nowUs = this.deps.clock.nowNs() / 1000n;
    const nowMs = Number(nowUs / 1000n);
    return {
      post: (transfer, debits, credits) => (this.balances.requireUnlockedTransfer(debits, credits, nowMs, fieldPath), this.balances.post(ws, { id: this.transferIds.take(), code: transfer.code, timestampUs: nowUs, ...(transfer.memo !== undefined ? { memo: transfer.memo } : {}), ...(transfer.flowId !== undefined ? { flowId: transfer.flowId } : {}) }, debits, credits)),
      balance: (ref) => this.balances.get(ref),
      lockDeposit: ({ ref, amount, serviceChainId, flowId }) => this.locks.add(ref.accountId, ref.assetId, amount, serviceChainId, flowId, nowMs),
      nowUs,
    };
  }

  /**
   * A chain flow's step as one job (flowJobs.ts): it applies only over the flow version it
   * names, with the transfers and locks that go with it, in one journal entry.
   */
  flowJob<P, T>(refs: BalanceRef[], prepare: (flows: FlowBook) => Promise<P>, run: (job: FlowJob, prepared: P) => T): Promise<T> {
    let prepared: P;
    return this.sequencer.submitAfter(
      async () => ([, prepared] = await Promise.all([this.balances.load(refs), prepare(this.flows)])),
      (ws) => run({ ...this.ledgerJob(ws), ...this.flows.writer(ws) }, prepared),
    );
  }

  /**
   * Accepts a withdrawal from Trading (spec 4.7): holds its amount and fee in `hold`, or,
   * with `settle`, moves it at once; and records the intent and its flow, all in one
   * journal entry. Its idempotency key with the same payload answers the intent it
   * created; with another payload, or a nonce used before, it is refused.
   */
  submitWithdrawal(s: WithdrawSubmission, move: { hold: BalanceRef; refs: BalanceRef[]; settle?: (job: LedgerJob, flowId: bigint) => void }): Promise<{ intentId: string; replayed: boolean }> {
    let prepared: PreparedWithdrawal | undefined;
    return this.sequencer.submitAfter(
      async () => {
        [, prepared] = await Promise.all([this.balances.load([move.hold, ...move.refs]), this.withdrawals.prepare(s)]);
      },
      (ws) => {
        const ids = prepared as PreparedWithdrawal;
        const existing = this.withdrawals.existing(s, ids);
        if (existing !== undefined) return { intentId: existing, replayed: true };
        const total = s.amount + s.fee;
        let hold: WithdrawHold | undefined;
        if (move.settle) {
          if (this.balances.get(move.hold).available < total) throw insufficientBalance('payload.amount');
          move.settle(this.ledgerJob(ws, 'payload.amount'), ids.flowId);
        } else {
          this.balances.requireUnlocked(move.hold, total, this.deps.clock.now().getTime(), 'payload.amount');
          if (!this.balances.hold(ws, move.hold, total)) throw insufficientBalance('payload.amount');
          hold = { ref: move.hold, held: total };
        }
        const { flow, ...intent } = s;
        this.withdrawals.accept(ws, { ...intent, id: ids.intentId, flowId: ids.flowId }, hold, this.deps.clock.now().getTime());
        this.flows.insert(ws, { ...flow, id: ids.flowId });
        return { intentId: s.publicId, replayed: false };
      },
    );
  }

  /**
   * Ends an accepted withdrawal: `settle` debits its hold (completion), else the hold is
   * released; the intent takes `end`'s status in the same entry. False when it had ended
   * already, so a step repeated after a crash changes nothing; with `onlyUnsubmitted` (a
   * reject, a cancel, an expiry) also false once it is marked for broadcast.
   */
  endWithdrawal(end: Omit<WithdrawStatusRow, 'updatedAt'>, settle?: { refs: BalanceRef[]; run: (job: LedgerJob, hold: WithdrawHold) => void }, onlyUnsubmitted = false, flow?: FlowMove): Promise<boolean> {
    return this.sequencer.submitAfter(
      async () => {
        const hold = this.withdrawals.holdOf(end.id);
        if (hold) await this.balances.load([hold.ref, ...(settle?.refs ?? [])]);
      },
      (ws) => {
        const hold = this.withdrawals.holdOf(end.id);
        if (!hold || (onlyUnsubmitted && this.withdrawals.isSubmitted(end.id)) || (flow && !this.flows.can(flow))) return false;
        if (settle) settle.run(this.ledgerJob(ws), hold);
        else this.balances.release(ws, hold.ref, hold.held);
        this.withdrawals.end(ws, { ...end, updatedAt: this.deps.clock.now() });
        if (flow) this.flows.move(ws, flow);
        return true;
      },
    );
  }

  /**
   * Marks an open withdrawal for broadcast (SUBMITTED), durable in the journal before the
   * chain sees it: from then on a reject or cancel cannot release its hold. True when it is
   * marked (now or before), false when it had ended: then it must not be sent.
   */
  markWithdrawalSubmitted(intentId: bigint, flow?: FlowMove): Promise<boolean> {
    return this.sequencer.submit((ws) => {
      if (!this.withdrawals.holdOf(intentId) || (flow && !this.flows.can(flow))) return false;
      if (!this.withdrawals.isSubmitted(intentId)) this.withdrawals.submit(ws, intentId, this.deps.clock.now());
      if (flow) this.flows.move(ws, flow);
      return true;
    });
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
          const { now, nowNs } = this.jobTime();
          this.applyEvents(ws, market, this.engineOf(market).expireDue(nowNs), nowNs, now, new Set());
        },
      );
    }
  }

  /**
   * Once a minute (run on the sweep timer): forgets expired client order ids, and the ids
   * of accounts idle for ten minutes (read again on their next order), so memory holds
   * only active accounts' last day; forgets withdrawal keys the table answers for; deletes
   * expired reservations and journal entries past their retention.
   */
  async prune(): Promise<void> {
    const nowMs = this.deps.clock.now().getTime();
    if (nowMs - this.clientIdsPrunedAt < CLIENT_ID_PRUNE_MS) return;
    this.clientIdsPrunedAt = nowMs;
    // An idle account's ids are read again from the table when next needed, so they are
    // forgotten only while the table holds every reservation acknowledged so far.
    const projected = this.projector.watermark >= this.journal.lastSeq && this.projector.complete;
    for (const [accountId, { ids, usedAt }] of this.clientIds) {
      if (projected && usedAt < nowMs - CLIENT_ID_IDLE_MS) this.clientIds.delete(accountId);
      else for (const [id, until] of ids) if (until <= nowMs) ids.delete(id);
    }
    this.withdrawals.prune(nowMs, projected);
    await this.deps.db.clientOrderIdReservation.deleteMany({ where: { expiresAt: { lte: new Date(nowMs) } } });
    await this.journal.prune(new Date(nowMs - JOURNAL_RETENTION_MS), this.projector.prunableThrough);
  }

  // ---- Inside the engine -------------------------------------------------------------------

  private readonly symbolOf = (symbolId: number) => (this.deps.markets.marketById(symbolId) as Market).symbol;

  /**
   * A job's time, read inside the job: jobs then carry times in the order they were
   * applied, so ledger legs listed by time chain their balances.
   */
  private jobTime() {
    return { now: this.deps.clock.now(), nowNs: this.deps.clock.nowNs() };
  }

  private tradingRef(accountId: bigint, assetId: number): BalanceRef {
    return { accountId, ledgerAccount: 'TRADING', assetId };
  }

  /**
   * After a failed append, a job with a bug or a lost lock: memory may be ahead of the
   * journal, so rebuild it, once this process owns trading state again.
   */
  private async recover(err: unknown): Promise<void> {
    if (isFenceLost(err) && this.owned) {
      this.owned = false;
      this.deps.onFenced(err);
    }
    if (!this.owned) {
      // While another process holds the lock, rebuilding would only read what it writes:
      // the sequencer keeps refusing work and calls again after a pause.
      if (!(await this.deps.owner.reacquire())) throw new Error('another process holds the trading-engine lock');
      this.owned = true;
      this.deps.logger.warn('took the trading-engine lock again: rebuilding books and balances from the database');
    } else {
      this.deps.logger.error({ err }, 'a trading batch failed (its commit, or a job with a bug): rebuilding books and balances from the database');
      if (err instanceof CommitAbandoned || isReadTimeout(err)) {
        // The append was given up unanswered and may still be on its way to PostgreSQL.
        // Moving the fence decides its outcome: it either landed before (the journal read
        // next shows its seq) or is refused whenever it arrives.
        await this.deps.owner.advance();
      }
    }
    this.balances.reset();
    // The sequencer retries with backoff and refuses work meanwhile; say why each time.
    await this.rebuild().catch((rebuildErr: unknown) => {
      this.deps.logger.error({ err: rebuildErr }, 'rebuilding the trading state failed: trading stays refused until it succeeds');
      throw rebuildErr;
    });
  }

  /**
   * A group is acknowledged by its journal append alone; then its private events go out,
   * numbered from the entry, and the projector brings the read tables up to it.
   */
  private async commit(ws: WriteSet, deadline: number): Promise<void> {
    if (ws.isEmpty) return;
    const seq = await this.journal.append(ws, deadline);
    this.projector.enqueue({ seq, ws });
    const { orders, fills, triggers } = entryEvents(seq, ws, this.symbolOf);
    for (const e of orders) this.publications.publish(`${this.deps.topicPrefix}orders:${e.accountPublicId}`, e);
    for (const e of fills) this.publications.publish(`${this.deps.topicPrefix}fills:${e.accountPublicId}`, e);
    for (const e of triggers) this.publications.publish(`${this.deps.topicPrefix}triggers:${e.accountPublicId}`, e);
  }

  /** Brings the read tables up to the end of the journal: memory is rebuilt from them. */
  private async syncFromJournal(): Promise<void> {
    await this.journal.open(await this.projector.open());
    await this.projector.catchUp();
  }

  /**
   * Loads the books from PostgreSQL beside the current ones and swaps them in at once, so
   * nothing ever finds an engine missing; after a failed commit the sequencer refuses work
   * and book snapshots until the swap.
   */
  private async rebuild(): Promise<void> {
    await this.syncFromJournal();
    this.parkedAtRebuild = new Set(this.projector.parkedEntries.map((e) => e.seq));
    // Balances loaded while the tables were still behind the journal must not be used.
    this.balances.reset();
    const nextOrderIds = await MonotonicIds.after(this.deps.db, 'Order');
    const nextTransferIds = await MonotonicIds.after(this.deps.db, 'LedgerTransfer');
    const nextEngines = new Map<number, OrderBook>();
    const nextOpen = new OpenOrders();
    const nextBooks = new Map<number, BookLevels>();
    for (const market of this.deps.markets.markets) {
      // Snapshots may have shown changes that were never committed, under numbers above the
      // stored one: start past any of them, durably, so no number is ever reused with other
      // content (subscribers see a gap and fetch a new snapshot).
      const seq = await this.deps.db.marketSequence.update({ where: { symbolId: market.symbolId }, data: { lastBookSeq: { increment: BOOK_SEQUENCE_JUMP } } });
      const engine = new OrderBook({
        symbol: market.symbol,
        tickSize: market.tickSize,
        baseScale: market.baseQuantityScale,
        quoteScale: market.quoteQuantityScale,
        nextMatchId: seq.lastMatchId + 1n,
        nextPrioritySeq: seq.lastPrioritySeq + 1n,
      });
      const rows = await this.deps.db.order.findMany({
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
      await this.balances.load(this.refsFor(makers, market));
      await this.loadTiers(makers);
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
    await this.loadTriggers();
    await this.withdrawals.load();
    await this.locks.load(this.deps.clock.now().getTime());
    await this.flows.load();
    const armed = await this.deps.db.deadManSwitch.findMany({ where: { status: 'ARMED' } });
    this.armedSwitches = new Map();
    this.switchExpiries = new ExpiryIndex();
    for (const sw of armed) {
      this.armSwitch({ accountId: sw.accountId, symbolId: sw.symbolId, side: sw.side, status: sw.status, timeoutSec: sw.timeoutSec, expiresAtTsNs: sw.expiresAtTsNs, requestId: sw.requestId, armedAt: sw.armedAt, lastFiredAtTsNs: sw.lastFiredAtTsNs });
    }
    this.orderIds = nextOrderIds;
    this.transferIds = nextTransferIds;
    this.engines = nextEngines;
    this.open = nextOpen;
    this.books = nextBooks;
    // Every group not yet committed was refused: the database holds every retained id.
    this.clientIds.clear();
    this.clientIdsEpoch += 1;
    // A snapshot taken before the rebuild may show changes that were refused. An empty delta
    // under the jumped sequence tells every subscriber at once that its book is stale (the
    // gap), instead of at the symbol's next change, which in a quiet market may be long.
    for (const market of this.deps.markets.markets) {
      const sequence = (this.books.get(market.symbolId) as BookLevels).sequence;
      this.publications.publish(`${this.deps.topicPrefix}book:${market.symbol}`, { symbol: market.symbol, sequence, bids: [], asks: [] });
    }
  }

  private engineOf(market: Market): OrderBook {
    return this.engines.get(market.symbolId) as OrderBook;
  }

  /** The balances a job on `account` in `market` may touch, loaded before it runs. */
  private refsFor(accountIds: bigint[], market: Market): BalanceRef[] {
    const ids = [...new Set([...accountIds, this.deps.systemAccounts.fees])];
    return ids.flatMap((id) => [this.tradingRef(id, market.base.unifiedAssetId), this.tradingRef(id, market.quote.unifiedAssetId)]);
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
          this.lastPrice.set(market.symbolId, e.price);
          this.priceMoved.add(market.symbolId);
          touched.add(e.makerOrderId as bigint).add(e.takerOrderId as bigint);
          level(e.takerSide === 'BUY' ? 'SELL' : 'BUY', e.price, -e.qty);
          const trade: PublicTradePayload = { symbol: market.symbol, matchId: e.matchId, price: e.price, qty: e.qty, takerSide: e.takerSide, executedAt: now };
          this.sequencer.onCommit(() => this.publications.publish(`${this.deps.topicPrefix}trades:${market.symbol}`, trade));
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
        this.balances.release(ws, this.tradingRef(row.accountId, heldAsset), row.heldE18);
        row.heldE18 = 0n;
      }
      row.version += 1;
      // The new version is committed with the group, then streamed from its journal entry.
      ws.order(row);
      if (row.originTriggerId !== null) this.ladderChildChanged(ws, row, now, nowNs);
      if (this.legsByParent.has(row.id)) this.parentChanged(ws, row, now, nowNs);
      if (!row.isOpen) this.open.delete(id);
    }
    if (changed.size > 0) {
      book.sequence += 1n;
      const pick = (side: 'BUY' | 'SELL') =>
        [...changed.values()]
          .filter((c) => c.side === side)
          .map((c) => ({ price: c.price, qty: (side === 'BUY' ? book.bids : book.asks).get(c.price) ?? 0n }));
      const delta: BookDeltaPayload = { symbol: market.symbol, sequence: book.sequence, bids: pick('BUY'), asks: pick('SELL') };
      this.sequencer.onCommit(() => this.publications.publish(`${this.deps.topicPrefix}book:${market.symbol}`, delta));
    }
    const engine = this.engineOf(market);
    ws.sequences.set(market.symbolId, { lastMatchId: engine.nextMatchId - 1n, lastPrioritySeq: engine.nextPrioritySeq - 1n, lastBookSeq: book.sequence });
  }

  /**
   * VIP tiers (the root account's, for subaccounts too) of the accounts a job may charge
   * fees to, loaded before the job and re-read after a minute (operators change tiers).
   */
  private async loadTiers(accountIds: Iterable<bigint>): Promise<void> {
    const now = Date.now();
    const stale = [...new Set(accountIds)].filter((id) => (this.vipTiers.get(id)?.at ?? 0) < now - VIP_TIER_TTL_MS);
    if (stale.length === 0) return;
    const rows = await this.deps.db.account.findMany({
      where: { id: { in: stale } },
      select: { id: true, vipTier: true, rootAccount: { select: { vipTier: true } } },
    });
    for (const r of rows) this.vipTiers.set(r.id, { tier: r.rootAccount?.vipTier ?? r.vipTier, at: now });
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
    const leg = (l: DebitLeg | CreditLeg): LegSpec => ({ ref: this.tradingRef(l.accountId, l.assetId), amount: l.amount, code: l.code, ...('debitFrom' in l ? { debitFrom: l.debitFrom } : {}) });
    const transferId = this.transferIds.take();
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

  /** A market order's reference price (the client's, else the best opposite price) and the worst price its slippage allows. */
  private protectionPrice(engine: OrderBook, market: Market, side: 'BUY' | 'SELL', ref: bigint | undefined, ticks?: number, bps?: number): { reference: bigint; limit: bigint } {
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

  /** Makes sure the account's ids are in memory before a job that may take one is submitted. */
  private async loadClientIds(accountId: bigint, clientOrderId: string | undefined): Promise<void> {
    if (clientOrderId === undefined) return;
    const known = this.clientIds.get(accountId);
    if (known) {
      known.usedAt = this.deps.clock.now().getTime();
      return;
    }
    let load = this.clientIdLoads.get(accountId);
    if (!load) {
      // No wait for the projection: every reservation of an account whose ids are not in
      // memory is in the table already (a rebuild catches the table up before it clears
      // them, and `prune` forgets an account only while the table is caught up).
      const epoch = this.clientIdsEpoch;
      load = this.deps.db.clientOrderIdReservation
        .findMany({ where: { accountId, expiresAt: { gt: this.deps.clock.now() } }, select: { clientOrderId: true, expiresAt: true } })
        .then((rows) => {
          if (epoch === this.clientIdsEpoch && !this.clientIds.has(accountId)) {
            this.clientIds.set(accountId, { ids: new Map(rows.map((r) => [r.clientOrderId, (r.expiresAt as Date).getTime()])), usedAt: this.deps.clock.now().getTime() });
          }
        })
        .finally(() => this.clientIdLoads.delete(accountId));
      this.clientIdLoads.set(accountId, load);
    }
    await load;
  }

  /** What a job placing or changing an account's order reads from memory: its balances, fee tier and client order ids. */
  private prepareOrder(account: AccountRef, market: Market, clientOrderId?: string) {
    return () => Promise.all([this.loadClientIds(account.id, clientOrderId), this.balances.load(this.refsFor([account.id], market)), this.loadTiers([account.id])]);
  }

  /** Inside a job: refuses a client order id still retained or taken by an order in flight. */
  private checkClientOrderId(accountId: bigint, clientOrderId: string | undefined, now: Date): void {
    if (clientOrderId === undefined) return;
    const ids = this.clientIds.get(accountId)?.ids;
    // Loaded before the job was submitted; only forgetting an idle account in between (see
    // pruneClientIds) could get here.
    if (!ids) throw new ApiError('unavailable', 'the order could not be checked for a duplicate clientOrderId; retry', { code: 'RETRY' });
    if ((ids.get(clientOrderId) ?? 0) > now.getTime()) throw duplicateClientOrderId();
  }

  /** What a new order reserves, and from which balance; the notional cap for BUY debit limits. */
  private reservationFor(market: Market, account: Owner, v: ValidatedOrder, order: CreateOrderInput['order'], working: bigint, protection?: bigint) {
    const r = reserve(market, { side: order.side, qty: working, limit: protection ?? v.price, feeAsset: v.feeAsset, maxQuoteDebit: v.maxQuoteDebit });
    return { ref: this.tradingRef(account.id, r.asset === 'QUOTE' ? market.quote.unifiedAssetId : market.base.unifiedAssetId), hold: r.hold, cap: r.cap };
  }

  /** A post-only order that would take is refused whole (nothing reserved, its clientOrderId not taken). */
  private refusePostOnlyTaker(engine: OrderBook, v: ValidatedOrder, side: 'BUY' | 'SELL', nowNs: bigint): void {
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
  private checkPlace(ctx: PlaceContext): CheckedPlacement {
    const { account, market, v, input, nowNs } = ctx;
    const engine = this.engineOf(market);
    if (v.tif !== 'IOC') {
      // A replacement takes the place of an order already counted.
      const resting = this.open.countOf(account.id) - (ctx.lineage?.replacesOrderId !== undefined ? 1 : 0);
      if (resting >= MAX_OPEN_ORDERS_PER_ACCOUNT) {
        throw invalidArgument('order', `an account keeps at most ${MAX_OPEN_ORDERS_PER_ACCOUNT} open orders: cancel some first`, 'max-open-orders', 'TOO_MANY_OPEN_ORDERS');
      }
    }
    this.checkClientOrderId(account.id, input.order.clientOrderId, ctx.now);
    this.refusePostOnlyTaker(engine, v, input.order.side, nowNs);
    let protection: bigint | undefined;
    if (v.variant === 'marketIoc') {
      const m = input.order.marketIoc!;
      const { reference, limit } = this.protectionPrice(engine, market, input.order.side, v.refPrice, m.maxSlippageTicks, m.maxSlippageBps);
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
    if (refused === 'INVALID_NOTIONAL_CAP') {
      throw invalidArgument(`order.${v.variant}.maxQuoteDebit`, 'is too small to pay for any quantity at this market’s fees', 'too-small');
    }
    if (refused !== null) throw new ApiError('invalid-argument', `the matching engine refuses this order: ${refused}`, { code: refused });
    return { place, holdRef, hold, working };
  }

  /**
   * A modify or a replacement works a new quantity: like a new order, it must be at least
   * the market's minimum quantity and value, or book spam would cost a 1-unit order.
   */
  private checkMinimumSize(market: Market, price: bigint, working: bigint, field: string): void {
    if (working < market.minQty) throw invalidArgument(field, 'the quantity left to work is below the market minimum quantity', 'min-qty');
    if (quoteNotional(price, working, market.notional) < market.minNotional) {
      throw invalidArgument(field, 'the value left to work is below the market minimum notional', 'min-notional');
    }
  }

  /** Reserves, matches and records one new order inside a sequencer job. */
  private placeInJob(ws: WriteSet, ctx: PlaceContext, checked: CheckedPlacement = this.checkPlace(ctx)): Accepted {
    return this.placeOrderRow(ws, ctx, checked).accepted;
  }

  /** `placeInJob`, also answering the new order's version in the group: what a trigger records of its child. */
  private placeOrderRow(ws: WriteSet, ctx: PlaceContext, checked: CheckedPlacement = this.checkPlace(ctx)): { accepted: Accepted; row: OrderVersion } {
    const { account, market, v, input, now, nowNs } = ctx;
    const engine = this.engineOf(market);
    const clientOrderId = input.order.clientOrderId;
    const { place, holdRef, hold, working } = checked;
    this.balances.requireUnlocked(holdRef, hold, now.getTime(), 'order.baseQty');
    if (!this.balances.hold(ws, holdRef, hold)) throw insufficientBalance('order.baseQty');
    const id = this.orderIds.take();
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
      originScope: ctx.origin ? 'TRIGGER' : 'DIRECT',
      originTriggerId: ctx.origin?.triggerId ?? null,
      originTriggerType: ctx.origin?.triggerType ?? null,
      childSeq: ctx.origin?.childSeq ?? 0,
      oco: v.oco,
    };
    this.open.set(id, row);
    ws.newOrders.set(id, row);
    // Before it matches: a replacement that fills at once resizes and arms the legs it carries.
    if (ctx.lineage) this.carryLegs(ws, ctx.lineage.replacesOrderId, row, now);
    const legTriggers: Partial<Record<'stopLoss' | 'takeProfit' | 'trailingStop', string>> = {};
    for (const leg of v.riskLegs) {
      const trigger = this.legTrigger(ws, account, market, row, leg, now, nowNs);
      ws.riskLegs.push({ ...leg, orderId: id, triggerId: trigger.id });
      legTriggers[leg.kind === 'STOP_LOSS' ? 'stopLoss' : leg.kind === 'TAKE_PROFIT' ? 'takeProfit' : 'trailingStop'] = trigger.publicId;
    }
    const events = engine.place({ ...place, orderId: id }, nowNs);
    const rejected = events.find((e) => e.type === 'rejected');
    if (rejected) throw new Error(`engine rejected a validated order: ${rejected.type === 'rejected' ? rejected.reason : ''}`);
    this.applyEvents(ws, market, events, nowNs, now, new Set([id]));
    if (clientOrderId !== undefined) {
      const expiresAt = new Date(now.getTime() + CLIENT_ORDER_ID_RETENTION_MS);
      this.clientIds.get(account.id)?.ids.set(clientOrderId, expiresAt.getTime());
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

  /** Cancels every open order of `accountId` in scope, in every market at once: one job, so all of it commits or none. */
  async cancelWhere(accountId: bigint, only: Market | undefined, side: 'BUY' | 'SELL' | undefined, why: UserCancel) {
    const targets = only ? [only] : this.deps.markets.markets;
    return this.sequencer.submitAfter(() => this.balances.load(targets.flatMap((market) => this.refsFor([accountId], market))), (ws) => {
      const { now, nowNs } = this.jobTime();
      const count = this.cancelInJob(ws, accountId, targets, side, why, now, nowNs);
      return { canceledCount: count, ts: now, tsNs: nowNs };
    });
  }

  /**
   * Arms or refreshes (timeoutSec > 0) or disables (0) a dead-man switch (spec 3). A
   * journaled job like any other: a firing is sequenced wholly before or after it.
   */
  setDeadManSwitch(scope: { accountId: bigint; symbolId: number; side: SwitchRow['side'] }, timeoutSec: number, requestId: string) {
    return this.sequencer.submit((ws) => {
      const { now, nowNs } = this.jobTime();
      const armed = timeoutSec > 0;
      const row: SwitchRow = {
        ...scope,
        status: armed ? 'ARMED' : 'DISABLED',
        timeoutSec,
        expiresAtTsNs: armed ? nowNs + BigInt(timeoutSec) * 1_000_000_000n : 0n,
        requestId,
        armedAt: armed ? now : null,
        lastFiredAtTsNs: null,
      };
      ws.switch(row);
      if (armed) this.armSwitch(row);
      else this.disarmSwitch(row);
      return { row, now, nowNs };
    });
  }

  /**
   * Fires every armed switch whose time has passed, also one armed before a restart: its
   * cancels and its disarming are one job, so they commit together or not at all.
   */
  async fireDueSwitches(): Promise<number> {
    const due = this.switchExpiries.due(this.deps.clock.nowNs()).map((key) => this.armedSwitches.get(key) as SwitchRow);
    if (due.length === 0) return 0;
    const refs = due.flatMap((sw) => this.switchMarkets(sw).flatMap((market) => this.refsFor([sw.accountId], market)));
    return this.sequencer.submitAfter(() => this.balances.load(refs), (ws) => {
      const { now, nowNs } = this.jobTime();
      let fired = 0;
      for (const found of due) {
        const sw = this.armedSwitches.get(switchKey(found));
        // A heartbeat or a disable sequenced since it was found has moved or ended it.
        if (!sw || sw.expiresAtTsNs > nowNs) continue;
        this.cancelInJob(ws, sw.accountId, this.switchMarkets(sw), sw.side === 'ANY' ? undefined : sw.side, 'DEAD_MAN_SWITCH', now, nowNs);
        ws.switch({ ...sw, status: 'DISABLED', timeoutSec: 0, expiresAtTsNs: 0n, armedAt: null, lastFiredAtTsNs: nowNs });
        this.disarmSwitch(sw);
        fired += 1;
      }
      return fired;
    });
  }

  private armSwitch(row: SwitchRow): void {
    this.armedSwitches.set(switchKey(row), row);
    this.switchExpiries.add(switchKey(row), row.expiresAtTsNs);
  }

  private disarmSwitch(row: SwitchRow): void {
    this.armedSwitches.delete(switchKey(row));
    this.switchExpiries.delete(switchKey(row));
  }

  private switchMarkets(sw: SwitchRow): readonly Market[] {
    if (sw.symbolId === 0) return this.deps.markets.markets;
    const market = this.deps.markets.marketById(sw.symbolId);
    return market ? [market] : [];
  }

  /** Inside a job: cancels the account's open orders in `markets` (and `side`); how many. */
  private cancelInJob(ws: WriteSet, accountId: bigint, markets: readonly Market[], side: 'BUY' | 'SELL' | undefined, why: UserCancel, now: Date, nowNs: bigint): number {
    let count = 0;
    // A kill switch stops all the account's working orders, conditional ones too (a TWAP
    // would go on opening exposure): its live triggers in scope (side: their child's) first,
    // so a ladder ends canceled, not completed by its levels' cancels.
    const reason = why === 'DEAD_MAN_SWITCH' ? 'DEAD_MAN_SWITCH' : 'CANCEL_ALL';
    const triggers = [...this.triggers.values()].filter((t) => t.row.accountId === accountId && (!side || t.row.side === side));
    for (const market of markets) {
      const engine = this.engineOf(market);
      // Orders already past their expiry end EXPIRED, as the sweep would have them.
      this.applyEvents(ws, market, engine.expireDue(nowNs), nowNs, now, new Set());
      for (const live of triggers) {
        if (live.row.symbolId === market.symbolId && this.triggers.has(live.row.id)) count += this.cancelLive(ws, live, reason, why, now, nowNs);
      }
      const ids = this.open.ofAccount(accountId).filter((o) => o.symbolId === market.symbolId && (!side || o.side === side)).map((o) => o.id);
      this.applyEvents(ws, market, ids.flatMap((id) => engine.cancel(id)), nowNs, now, new Set(), why);
      count += ids.length;
    }
    return count;
  }

  // ---- Triggers (spec 2.8, 4.6) ------------------------------------------------------------

  /**
   * Taken before reading ended triggers' client ids from the tables, released once the
   * create that follows is answered: the ids of triggers ending after the read are kept in
   * memory until then (see `endedByClientId`).
   */
  holdEndedTriggerIds(): EndedIdsRead {
    const seq = this.journal.lastSeq;
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
  private pruneEndedTriggerIds(): void {
    let floor = this.projector.watermark;
    for (const seq of this.endedIdReads.keys()) if (seq < floor) floor = seq;
    for (const [key, e] of this.endedByClientId) {
      if (e.seq > floor) break;
      this.endedByClientId.delete(key);
    }
  }

  /**
   * Accepts a stop-loss or take-profit: refused if a trade at the last price would fire it
   * at once, funded from acceptance (its child's reservation is held until it fires or
   * ends), armed at once. A repeated clientTriggerId with the same trigger answers the
   * existing one; with another, 409.
   */
  async createTrigger(owner: Owner, market: Market, submitted: TriggerSpec, read?: EndedIdsRead): Promise<{ row: TriggerRow; existing: boolean }> {
    const refs = this.refsFor([owner.id], market);
    return this.sequencer.submitAfter(
      () => Promise.all([this.balances.load(refs), this.loadTiers([owner.id])]),
      (ws) => {
        let spec = submitted;
        const { now, nowNs } = this.jobTime();
        if (spec.clientTriggerId !== null) {
          const key = `${owner.id}:${spec.clientTriggerId}`;
          const same = this.triggers.get(this.triggerByClientId.get(key) ?? -1n);
          if (same) return { row: { ...checkSameTrigger(same.row, spec) }, existing: true };
          if (read && read.epoch !== this.endedIdsEpoch) throw rebuildingError();
          this.pruneEndedTriggerIds();
          const ended = this.endedByClientId.get(key);
          if (ended) return { row: { ...checkSameTrigger(ended.row, spec) }, existing: true };
        }
        const last = this.lastPrice.get(market.symbolId);
        let fields: Pick<TriggerRow, 'triggerPrice' | 'state'> = { triggerPrice: spec.triggerPrice, state: '{}' };
        let holdAt = spec.row;
        if (spec.ladder) return this.createLadder(ws, owner, market, spec, now, nowNs);
        if (spec.twap) {
          if (last === undefined) throw noReferencePrice('trigger.twap');
          const price = slicePrice(spec.row.side, last, spec.twap.limitPrice, spec.twap.adverse, market.tickSize);
          const params = { ...JSON.parse(spec.row.params), startPrice: last.toString(), slicePrice: price.toString() };
          fields = { triggerPrice: price, state: JSON.stringify({ sliceIndex: 0, nextSliceAtTsNs: nowNs.toString(), skippedSlices: 0 }) };
          spec = { ...spec, row: { ...spec.row, params: JSON.stringify(params) } };
          holdAt = { ...spec.row, childLimitPrice: price };
        } else if (spec.trailing) {
          if (last === undefined && spec.trailing.activationPrice === null) throw noReferencePrice('trigger.trailingStop.activationPrice');
          // Without an activation price it follows from the last price at once.
          const state = spec.trailing.activationPrice === null ? onTrailingPrice(spec.trailing, INITIAL_TRAILING, last as bigint).state : INITIAL_TRAILING;
          fields = { triggerPrice: state.threshold ?? 0n, state: trailingStateJson(state) };
          // A BUY stop's threshold only falls from where it starts: funds are held for that.
          holdAt = { ...spec.row, triggerPrice: spec.row.side === 'BUY' ? worstThreshold(spec.trailing, last ?? 0n) : 0n };
        } else if (last !== undefined && crosses(spec.triggerDirection, spec.triggerPrice, last)) {
          throw wouldFireAtOnce(last, `trigger.${spec.block}.triggerPrice`);
        }
        const { ref, hold } = this.triggerReservation(owner, market, holdAt);
        this.balances.requireUnlocked(ref, hold, now.getTime(), 'trigger.qty');
        if (!this.balances.hold(ws, ref, hold)) throw insufficientBalance('trigger.qty');
        const row: TriggerRow = {
          ...spec.row,
          ...fields,
          id: this.triggerIds.take(),
          publicId: newPublicId(),
          accountId: owner.id,
          parentOrderId: null,
          status: 'ARMED',
          cancelReason: null,
          failureReason: null,
          cumFilledQty: 0n,
          lastChildSeq: 0,
          firePx: null,
          version: 1,
          heldE18: hold,
          acceptedAtTsNs: nowNs,
          createdAt: now,
          updatedAt: now,
          armedAt: now,
          completedAt: null,
          terminalAt: null,
        };
        this.triggers.set(row.id, { row, owner });
        if (row.clientTriggerId !== null) this.triggerByClientId.set(`${owner.id}:${row.clientTriggerId}`, row.id);
        this.watch(row);
        ws.trigger(row);
        this.triggerEvent(ws, row, 'CREATED', nowNs);
        this.triggerEvent(ws, row, 'ARMED', nowNs);
        return { row: { ...row }, existing: false };
      },
    );
  }

  /** Cancels a live trigger of the account (its hold released); 404 when it is not live. */
  cancelTrigger(accountId: bigint, id: bigint): Promise<TriggerRow> {
    return this.sequencer.submit((ws) => {
      const live = this.liveTrigger(accountId, id);
      const { now, nowNs } = this.jobTime();
      this.cancelLive(ws, live, 'USER_REQUEST', 'USER_CANCELED', now, nowNs);
      return { ...live.row };
    });
  }

  /** Inside a job: cancels a live trigger, its hold released; answers how many of its child orders that canceled. */
  private cancelLive(ws: WriteSet, live: { row: TriggerRow; owner: Owner }, reason: NonNullable<TriggerRow['cancelReason']>, why: UserCancel, now: Date, nowNs: bigint): number {
    const { row, owner } = live;
    this.unwatch(row);
    this.releaseTriggerHold(ws, row, owner);
    this.endTrigger(ws, row, { status: 'CANCELED', cancelReason: reason }, now, nowNs);
    // A ladder's resting levels go with it (once it has ended, their cancels change it no more).
    if (row.triggerType === 'LADDER') return this.cancelLadderChildren(ws, row, why, now, nowNs);
    if (row.parentOrderId !== null) {
      // The legs left of its bracket take over the hold it may have kept.
      const rest = this.liveLegs(row.parentOrderId);
      if (rest[0]) this.fundLegs(ws, rest, rest[0].row.qty, now, nowNs);
    }
    return 0;
  }

  /** Pauses an armed trigger: it stops watching prices and keeps its funds held. Pausing a paused one changes nothing. */
  pauseTrigger(accountId: bigint, id: bigint): Promise<TriggerRow> {
    return this.sequencer.submit((ws) => {
      const { row } = this.liveTrigger(accountId, id);
      if (row.status === 'PAUSED') return { ...row };
      if (row.status !== 'ARMED') throw triggerNotPausable(row.status);
      const { now, nowNs } = this.jobTime();
      this.unwatch(row);
      Object.assign(row, { status: 'PAUSED', updatedAt: now, version: row.version + 1 });
      ws.trigger(row);
      this.triggerEvent(ws, row, 'PAUSED', nowNs);
      return { ...row };
    });
  }

  /**
   * Arms a paused trigger again; refused, and left paused, when the last price is already
   * at or through it (as on creation). Resuming an armed one changes nothing.
   */
  resumeTrigger(accountId: bigint, id: bigint): Promise<TriggerRow> {
    return this.sequencer.submit((ws) => {
      const { row } = this.liveTrigger(accountId, id);
      if (row.status === 'ARMED') return { ...row };
      if (row.status !== 'PAUSED') throw triggerNotPausable(row.status);
      const last = this.lastPrice.get(row.symbolId);
      if ((row.triggerType === 'STOP_LOSS' || row.triggerType === 'TAKE_PROFIT') && last !== undefined && crosses(row.triggerDirection, row.triggerPrice, last)) throw wouldFireAtOnce(last, 'triggerId');
      const { now, nowNs } = this.jobTime();
      this.watch(row);
      Object.assign(row, { status: 'ARMED', armedAt: now, updatedAt: now, version: row.version + 1 });
      ws.trigger(row);
      this.triggerEvent(ws, row, 'RESUMED', nowNs);
      return { ...row };
    });
  }

  /** The account's live trigger `id`, or 404. */
  private liveTrigger(accountId: bigint, id: bigint): { row: TriggerRow; owner: Owner } {
    const live = this.triggers.get(id);
    if (!live || live.row.accountId !== accountId) throw new ApiError('not-found', 'no live trigger with that id', { code: 'TRIGGER_NOT_FOUND' });
    return live;
  }

  /** Starts watching prices for an armed trigger: a stop in its symbol's price book, a trailing stop in its symbol's followers. */
  private watch(row: TriggerRow): void {
    if (row.triggerType === 'TWAP') return void this.twaps.add(row.id);
    if (row.triggerType !== 'TRAILING_STOP') return this.bookOf(row.symbolId).add({ id: row.id, direction: row.triggerDirection, triggerPrice: row.triggerPrice });
    let ids = this.trailing.get(row.symbolId);
    if (!ids) this.trailing.set(row.symbolId, (ids = new Set()));
    ids.add(row.id);
  }

  private unwatch(row: TriggerRow): void {
    if (row.triggerType === 'TWAP') this.twaps.delete(row.id);
    else if (row.triggerType === 'TRAILING_STOP') this.trailing.get(row.symbolId)?.delete(row.id);
    else this.bookOf(row.symbolId).remove({ id: row.id, direction: row.triggerDirection, triggerPrice: row.triggerPrice });
  }

  /**
   * Runs the slices whose time has come (on the sweep timer): one job for all of them, each
   * slice a limit IOC child bounded by the TWAP's slice price, placed once.
   */
  async runDueTwaps(): Promise<number> {
    const nowNs = this.deps.clock.nowNs();
    const due = [...this.twaps].filter((id) => {
      const live = this.triggers.get(id);
      return live && BigInt((JSON.parse(live.row.state) as { nextSliceAtTsNs: string }).nextSliceAtTsNs) <= nowNs;
    });
    if (due.length === 0) return 0;
    return this.sequencer.submit((ws) => {
      const { now, nowNs } = this.jobTime();
      let ran = 0;
      for (const id of due) {
        const live = this.triggers.get(id);
        if (!live || !this.twaps.has(id)) continue;
        this.runSlice(ws, live, now, nowNs);
        ran += 1;
      }
      return ran;
    });
  }

  private runSlice(ws: WriteSet, live: { row: TriggerRow; owner: Owner }, now: Date, nowNs: bigint): void {
    const { row, owner } = live;
    const market = this.deps.markets.marketById(row.symbolId) as Market;
    const params = JSON.parse(row.params) as { intervalMs: number; plannedSlices: number; slicePrice: string };
    const state = JSON.parse(row.state) as { sliceIndex: number; nextSliceAtTsNs: string; skippedSlices: number };
    const price = BigInt(params.slicePrice);
    const remaining = row.qty - row.cumFilledQty;
    const qty = sliceQty(row.qty, params.plannedSlices, remaining, params.plannedSlices - state.sliceIndex);
    this.releaseTriggerHold(ws, row, owner);
    const childSeq = row.lastChildSeq + 1;
    let filled = 0n;
    const order: CreateOrderInput['order'] = { symbol: market.symbol, side: row.side, baseQty: formatScaled(qty, market.baseQuantityScale), feeAsset: row.feeAsset, selfTradePreventionMode: row.stpMode, limitIoc: { price: formatScaled(price, 9) } };
    try {
      if (qty < market.minQty) throw new ApiError('invalid-argument', 'the slice is below the minimum quantity', { code: 'SLICE_TOO_SMALL' });
      const v = validateNewOrder({ order }, market, nowNs);
      const { row: child } = this.placeOrderRow(ws, { account: owner, market, v, input: { order }, now, nowNs, origin: { triggerId: row.id, triggerType: row.triggerType, childSeq } });
      filled = child.cumQty;
      row.lastChildSeq = childSeq;
      this.triggerEvent(ws, row, 'CHILD_PLACED', nowNs, { childOrderId: child.id, childOrderPublicId: child.publicId, childSeq });
      if (filled > 0n) this.triggerEvent(ws, row, 'CHILD_FILLED', nowNs, { childOrderId: child.id, childOrderPublicId: child.publicId, childSeq });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      // Refused (too small, below the minimum notional, unfunded): its quantity is carried.
      state.skippedSlices += 1;
      this.triggerEvent(ws, row, 'SLICE_SKIPPED', nowNs, { childSeq });
    }
    state.sliceIndex += 1;
    state.nextSliceAtTsNs = (BigInt(state.nextSliceAtTsNs) + BigInt(params.intervalMs) * 1_000_000n).toString();
    Object.assign(row, { cumFilledQty: row.cumFilledQty + filled, state: JSON.stringify(state), updatedAt: now, version: row.version + 1 });
    const outcome = twapOutcome(row.qty, row.cumFilledQty);
    if (outcome === 'FILLED') return this.endTrigger(ws, row, { status: 'COMPLETED' }, now, nowNs), void this.twaps.delete(row.id);
    if (state.sliceIndex >= params.plannedSlices) {
      this.twaps.delete(row.id);
      // Partly filled: expired with what it did; nothing filled: failed, for want of liquidity at its price.
      return this.endTrigger(ws, row, outcome === 'PARTIAL' ? { status: 'EXPIRED' } : { status: 'FAILED', failureReason: 'NO_LIQUIDITY' }, now, nowNs);
    }
    // What is left stays held; never more than is there (reservations round up).
    const { ref, hold } = this.triggerReservation(owner, market, { ...row, qty: row.qty - row.cumFilledQty, childLimitPrice: price });
    const spendable = this.balances.spendable(ref, now.getTime());
    const amount = hold < spendable ? hold : spendable;
    if (amount > 0n) this.balances.hold(ws, ref, amount);
    row.heldE18 = amount;
    ws.trigger(row);
  }

  /**
   * Places every level of a ladder in the creating job: all are checked (post-only, sizes,
   * funds for the whole ladder) before the first is placed, so it is accepted whole or not.
   */
  private createLadder(ws: WriteSet, owner: Owner, market: Market, spec: TriggerSpec, now: Date, nowNs: bigint): { row: TriggerRow; existing: boolean } {
    const { levels, postOnly } = spec.ladder as NonNullable<TriggerSpec['ladder']>;
    const orders = levels.map((l) => ({
      symbol: market.symbol,
      side: spec.row.side,
      baseQty: formatScaled(l.qty, market.baseQuantityScale),
      feeAsset: spec.row.feeAsset,
      selfTradePreventionMode: spec.row.stpMode,
      limitGtc: { price: formatScaled(l.price, 9), postOnly },
    }));
    const checked = orders.map((order) => {
      const v = validateNewOrder({ order }, market, nowNs);
      return { order, v, checked: this.checkPlace({ account: owner, market, v, input: { order }, now, nowNs }) };
    });
    const need = checked.reduce((a, c) => a + c.checked.hold, 0n);
    if (this.balances.get((checked[0] as (typeof checked)[number]).checked.holdRef).available < need) throw insufficientBalance('trigger.qty');
    this.balances.requireUnlocked((checked[0] as (typeof checked)[number]).checked.holdRef, need, now.getTime(), 'trigger.qty');
    const row: TriggerRow = {
      ...spec.row,
      triggerPrice: 0n,
      state: '{}',
      id: this.triggerIds.take(),
      publicId: newPublicId(),
      accountId: owner.id,
      parentOrderId: null,
      status: 'RUNNING',
      cancelReason: null,
      failureReason: null,
      cumFilledQty: 0n,
      lastChildSeq: 0,
      firePx: null,
      version: 1,
      heldE18: 0n,
      acceptedAtTsNs: nowNs,
      createdAt: now,
      updatedAt: now,
      armedAt: now,
      completedAt: null,
      terminalAt: null,
    };
    this.triggers.set(row.id, { row, owner });
    if (row.clientTriggerId !== null) this.triggerByClientId.set(`${owner.id}:${row.clientTriggerId}`, row.id);
    this.triggerEvent(ws, row, 'CREATED', nowNs);
    const children: LadderChild[] = [];
    for (const [i, c] of checked.entries()) {
      const { row: child } = this.placeOrderRow(ws, { account: owner, market, v: c.v, input: { order: c.order }, now, nowNs, origin: { triggerId: row.id, triggerType: 'LADDER', childSeq: i + 1 } }, c.checked);
      children.push({ id: child.id.toString(), orderId: child.publicId, price: (levels[i] as { price: bigint }).price.toString(), qty: (levels[i] as { qty: bigint }).qty.toString(), filledQty: '0', done: false });
      this.triggerEvent(ws, row, 'CHILD_PLACED', nowNs, { childOrderId: child.id, childOrderPublicId: child.publicId, childSeq: i + 1 });
    }
    Object.assign(row, { state: JSON.stringify({ children }), lastChildSeq: children.length });
    ws.trigger(row);
    return { row: { ...row }, existing: false };
  }

  /** A ladder's child changed (a fill, or its end): the ladder's progress follows; it completes when every child has ended. */
  private ladderChildChanged(ws: WriteSet, child: OrderRow, now: Date, nowNs: bigint): void {
    const live = this.triggers.get(child.originTriggerId as bigint);
    if (!live || live.row.triggerType !== 'LADDER' || live.row.status !== 'RUNNING') return;
    const { row } = live;
    const state = JSON.parse(row.state) as { children?: LadderChild[] };
    const mine = state.children?.find((c) => c.id === child.id.toString());
    if (!mine) return;
    mine.filledQty = child.cumQty.toString();
    mine.done = !child.isOpen;
    const children = state.children as LadderChild[];
    Object.assign(row, { state: JSON.stringify(state), cumFilledQty: children.reduce((a, c) => a + BigInt(c.filledQty), 0n), updatedAt: now, version: row.version + 1 });
    if (!mine.done && child.cumQty > 0n) this.triggerEvent(ws, row, 'CHILD_FILLED', nowNs, { childOrderId: child.id, childOrderPublicId: child.publicId, childSeq: child.childSeq });
    if (children.every((c) => c.done)) return this.endTrigger(ws, row, { status: 'COMPLETED' }, now, nowNs);
    ws.trigger(row);
  }

  private cancelLadderChildren(ws: WriteSet, row: TriggerRow, why: UserCancel, now: Date, nowNs: bigint): number {
    const market = this.deps.markets.marketById(row.symbolId) as Market;
    const engine = this.engineOf(market);
    const children = (JSON.parse(row.state) as { children?: LadderChild[] }).children ?? [];
    const open = children.map((c) => BigInt(c.id)).filter((id) => this.open.get(id)?.isOpen);
    this.applyEvents(ws, market, open.flatMap((id) => engine.cancel(id)), nowNs, now, new Set(), why);
    return open.length;
  }

  /**
   * An attached-risk leg becomes a trigger when its parent is accepted: CREATED, with no
   * quantity, waiting for the parent to fill (spec 2.7).
   */
  private legTrigger(ws: WriteSet, owner: Owner, market: Market, parent: OrderRow, leg: ValidatedOrder['riskLegs'][number], now: Date, nowNs: bigint): TriggerRow {
    const side = parent.side === 'BUY' ? 'SELL' : 'BUY';
    const trailing = leg.kind === 'TRAILING_STOP';
    const row: TriggerRow = {
      id: this.triggerIds.take(),
      publicId: newPublicId(),
      accountId: owner.id,
      parentOrderId: parent.id,
      clientTriggerId: null,
      symbolId: market.symbolId,
      triggerType: leg.kind,
      status: 'CREATED',
      side,
      qty: 0n,
      feeAsset: 'QUOTE',
      stpMode: parent.stpMode,
      cancelReason: null,
      failureReason: null,
      triggerDirection: trailing ? (side === 'SELL' ? 'BELOW' : 'ABOVE') : directionOf(leg.kind as 'STOP_LOSS' | 'TAKE_PROFIT', side),
      triggerPrice: leg.triggerPrice ?? 0n,
      childKind: leg.childKind,
      childLimitPrice: leg.childLimitPrice,
      childPostOnly: leg.childPostOnly,
      maxSlippageTicks: leg.maxSlippageTicks,
      maxSlippageBps: leg.maxSlippageBps,
      cumFilledQty: 0n,
      lastChildSeq: 0,
      firePx: null,
      version: 1,
      heldE18: 0n,
      acceptedAtTsNs: nowNs,
      createdAt: now,
      updatedAt: now,
      armedAt: null,
      completedAt: null,
      terminalAt: null,
      params: trailing
        ? JSON.stringify({ activationPrice: leg.activationPrice?.toString() ?? null, trailingDistanceTicks: leg.trailingDistanceTicks?.toString() ?? null, trailingDistanceBps: leg.trailingDistanceBps })
        : '{}',
      state: '{}',
    };
    this.triggers.set(row.id, { row, owner });
    this.legsByParent.set(parent.id, [...(this.legsByParent.get(parent.id) ?? []), row.id]);
    ws.trigger(row);
    this.triggerEvent(ws, row, 'CREATED', nowNs);
    return row;
  }

  /** The legs of `parentId` that have not ended, in the order they were created. */
  private liveLegs(parentId: bigint): { row: TriggerRow; owner: Owner }[] {
    return (this.legsByParent.get(parentId) ?? [])
      .map((id) => this.triggers.get(id))
      .filter((l): l is { row: TriggerRow; owner: Owner } => l !== undefined && (l.row.status === 'CREATED' || l.row.status === 'ARMED' || l.row.status === 'PAUSED'));
  }

  /**
   * A parent's fill or end reaches its legs: each leg's quantity is what the parent's
   * lineage has filled (one leg, resized, not one per fill), armed at the first fill and
   * funded as it grows; a parent that ends with nothing filled takes its legs with it.
   * A replaced parent hands its legs to its next generation (see `replace`).
   */
  private parentChanged(ws: WriteSet, parent: OrderRow, now: Date, nowNs: bigint): void {
    const legs = this.liveLegs(parent.id);
    const filled = parent.inheritedCumQty + parent.cumQty;
    if (!parent.isOpen && parent.closeReason === 'REPLACED') return;
    if (filled === 0n) {
      if (parent.isOpen) return;
      const reason = parent.status === 'EXPIRED' ? 'PARENT_EXPIRED' : 'PARENT_CANCELED';
      for (const { row } of legs) this.endTrigger(ws, row, { status: 'CANCELED', cancelReason: reason }, now, nowNs);
      return;
    }
    // Re-reckoned only when the position grew: a BUY trailing leg's need follows the last price.
    if (legs.some(({ row }) => row.qty !== filled)) this.fundLegs(ws, legs, filled, now, nowNs);
  }

  /**
   * The live legs of one parent protect one position, as a bracket does: each is sized to
   * `qty`, and they share one hold, the largest any of them needs (a SELL parent's BUY legs
   * need quote at different bounds), kept by the first. Unfundable, they all fail: a leg
   * never fails alone and leaves its sibling thinking it is covered.
   */
  private fundLegs(ws: WriteSet, legs: { row: TriggerRow; owner: Owner }[], qty: bigint, now: Date, nowNs: bigint): void {
    const first = legs[0];
    if (!first) return;
    const market = this.deps.markets.marketById(first.row.symbolId) as Market;
    const { ref } = this.triggerReservation(first.owner, market, this.holdBasis(first.row, market, qty));
    const need = legs.reduce((max, { row, owner }) => {
      const { hold } = this.triggerReservation(owner, market, this.holdBasis(row, market, qty));
      return hold > max ? hold : max;
    }, 0n);
    const held = legs.reduce((sum, { row }) => sum + row.heldE18, 0n);
    // A deposit not yet final cannot fund a protective leg (docs/chain.md, "The finality lock").
    if (need > held && (need - held > this.balances.spendable(ref, now.getTime()) || !this.balances.hold(ws, ref, need - held))) {
      for (const { row, owner } of legs) {
        this.unwatch(row);
        this.releaseTriggerHold(ws, row, owner);
        this.endTrigger(ws, row, { status: 'FAILED', failureReason: 'INSUFFICIENT_BALANCE' }, now, nowNs);
      }
      return;
    }
    if (need < held) this.balances.release(ws, ref, held - need);
    for (const [i, { row }] of legs.entries()) {
      const heldE18 = i === 0 ? need : 0n;
      if (row.qty === qty && row.heldE18 === heldE18) continue;
      Object.assign(row, { qty, heldE18, updatedAt: now, version: row.version + 1 });
      if (row.status === 'CREATED') {
        Object.assign(row, { status: 'ARMED', armedAt: now });
        if (row.triggerType === 'TRAILING_STOP') {
          const params = trailingParamsOf(row, market.tickSize);
          const state = params.activationPrice === null ? onTrailingPrice(params, INITIAL_TRAILING, this.lastPrice.get(market.symbolId) as bigint).state : INITIAL_TRAILING;
          Object.assign(row, { state: trailingStateJson(state), triggerPrice: state.threshold ?? 0n });
        }
        this.watch(row);
        this.triggerEvent(ws, row, 'ARMED', nowNs);
        // Its price may already be through: it fires after this job's trades, like any other.
        this.priceMoved.add(market.symbolId);
      }
      ws.trigger(row);
    }
  }

  /**
   * A replaced parent's legs move to its next generation in the replacing job, before it
   * matches, so a filled position is never without its stop; the new order's own fills
   * then resize them.
   */
  private carryLegs(ws: WriteSet, oldId: bigint, next: OrderRow, now: Date): void {
    const ids = this.legsByParent.get(oldId);
    if (!ids) return;
    this.legsByParent.delete(oldId);
    this.legsByParent.set(next.id, [...(this.legsByParent.get(next.id) ?? []), ...ids]);
    for (const id of ids) {
      const live = this.triggers.get(id);
      if (!live) continue;
      Object.assign(live.row, { parentOrderId: next.id, updatedAt: now, version: live.row.version + 1 });
      ws.trigger(live.row);
    }
  }

  /** What a leg's funds are reckoned on: its child at its bound, for `qty`. */
  private holdBasis(row: TriggerRow, market: Market, qty: bigint): TriggerRow {
    if (row.triggerType !== 'TRAILING_STOP' || row.side === 'SELL') return { ...row, qty };
    // A BUY trailing leg: its threshold never rises above where it starts (the last price).
    const start = worstThreshold(trailingParamsOf(row, market.tickSize), this.lastPrice.get(market.symbolId) ?? 0n);
    return { ...row, qty, triggerPrice: start };
  }

  /**
   * One leg fired: the others protected the same position, so they are canceled in the
   * same job (one-cancels-other, with or without `oco`), their share of the hold released.
   */
  private endSiblings(ws: WriteSet, fired: TriggerRow, now: Date, nowNs: bigint): void {
    const siblings = this.liveLegs(fired.parentOrderId as bigint).filter((t) => t.row.id !== fired.id);
    for (const { row, owner } of siblings) {
      this.unwatch(row);
      this.releaseTriggerHold(ws, row, owner);
      this.endTrigger(ws, row, { status: 'CANCELED', cancelReason: 'OCO_SIBLING_FIRED' }, now, nowNs);
    }
  }

  /** Moves a symbol's trailing stops with a trade at `price`; fires those it reaches. */
  private followTrailing(ws: WriteSet, symbolId: number, price: bigint): void {
    const ids = this.trailing.get(symbolId);
    if (!ids || ids.size === 0) return;
    const tickSize = (this.deps.markets.marketById(symbolId) as Market).tickSize;
    for (const id of [...ids]) {
      const live = this.triggers.get(id);
      if (!live) continue;
      const { row } = live;
      const before = JSON.parse(row.state) as Partial<TrailingStateJson>;
      const params = trailingParamsOf(row, tickSize);
      const { state, fire } = onTrailingPrice(params, trailingStateOf(before), price);
      const json = trailingStateJson(state);
      if (json !== row.state) {
        const { now, nowNs } = this.jobTime();
        const activated = !before.active && state.active;
        Object.assign(row, { state: json, triggerPrice: state.threshold ?? 0n, updatedAt: now, version: row.version + 1 });
        ws.trigger(row);
        if (activated) this.triggerEvent(ws, row, 'THRESHOLD_UPDATED', nowNs);
      }
      if (fire) {
        ids.delete(id);
        this.fireTrigger(ws, id, price);
      }
    }
  }

  private bookOf(symbolId: number): TriggerBook {
    let book = this.triggerBooks.get(symbolId);
    if (!book) this.triggerBooks.set(symbolId, (book = new TriggerBook()));
    return book;
  }

  /** What a trigger holds: its child's reservation at the price the child is bounded by. */
  private triggerReservation(owner: Owner, market: Market, t: Pick<TriggerRow, 'side' | 'qty' | 'feeAsset' | 'childKind' | 'childLimitPrice' | 'triggerPrice' | 'maxSlippageBps' | 'maxSlippageTicks'>) {
    const limit = t.childKind === 'LIMIT' ? (t.childLimitPrice as bigint) : childProtection(t, market.tickSize);
    return this.reservationFor(market, owner, { price: limit, feeAsset: t.feeAsset, maxQuoteDebit: undefined } as ValidatedOrder, { side: t.side } as CreateOrderInput['order'], t.qty);
  }

  private releaseTriggerHold(ws: WriteSet, row: TriggerRow, owner: Owner): void {
    if (row.heldE18 === 0n) return;
    const market = this.deps.markets.marketById(row.symbolId) as Market;
    const asset = row.side === 'BUY' ? market.quote.unifiedAssetId : market.base.unifiedAssetId;
    this.balances.release(ws, this.tradingRef(owner.id, asset), row.heldE18);
    row.heldE18 = 0n;
  }

  private triggerEvent(ws: WriteSet, row: TriggerRow, eventType: TriggerEventRow['eventType'], tsNs: bigint, extra: Partial<TriggerEventRow> = {}): void {
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

  /** Ends a trigger: it leaves memory, its row and event record why. */
  private endTrigger(ws: WriteSet, row: TriggerRow, end: Pick<TriggerRow, 'status'> & Partial<Pick<TriggerRow, 'cancelReason' | 'failureReason'>>, now: Date, nowNs: bigint): void {
    Object.assign(row, end, { updatedAt: now, terminalAt: now, version: row.version + 1, ...(end.status === 'COMPLETED' ? { completedAt: now } : {}) });
    ws.trigger(row);
    const eventType = end.status === 'COMPLETED' ? 'COMPLETED' : end.status === 'CANCELED' ? 'CANCELED' : end.status === 'EXPIRED' ? 'EXPIRED' : 'FAILED';
    this.triggerEvent(ws, row, eventType, nowNs, { cancelReason: end.cancelReason ?? null, failureReason: end.failureReason ?? null });
    this.triggers.delete(row.id);
    if (row.clientTriggerId !== null) {
      const key = `${row.accountId}:${row.clientTriggerId}`;
      this.triggerByClientId.delete(key);
      // The open group is committed after the one in flight, if any: at most two entries on.
      this.endedByClientId.delete(key);
      this.endedByClientId.set(key, { row: { ...row }, seq: this.journal.lastSeq + 2n });
      this.pruneEndedTriggerIds();
    }
    if (row.parentOrderId !== null) {
      // A parent is followed while any of its legs is live.
      const left = (this.legsByParent.get(row.parentOrderId) ?? []).filter((id) => id !== row.id);
      if (left.length > 0) this.legsByParent.set(row.parentOrderId, left);
      else this.legsByParent.delete(row.parentOrderId);
    }
  }

  /**
   * After every job: the triggers the job's trades crossed fire, in the same journal entry
   * as those trades. A child's own trades may cross more; bounded, so a cascade ends.
   */
  private fireCrossedTriggers(ws: WriteSet): void {
    for (let round = 0; this.priceMoved.size > 0 && round < 16; round++) {
      const symbols = [...this.priceMoved];
      this.priceMoved.clear();
      for (const symbolId of symbols) {
        const price = this.lastPrice.get(symbolId) as bigint;
        this.followTrailing(ws, symbolId, price);
        const book = this.triggerBooks.get(symbolId);
        if (!book || book.size === 0) continue;
        for (const armed of book.takeCrossed(price)) this.fireTrigger(ws, armed.id, price);
      }
    }
    this.priceMoved.clear();
  }

  /** Fires one trigger: its hold gives way to its child's reservation, and the child is placed once. */
  private fireTrigger(ws: WriteSet, id: bigint, price: bigint): void {
    const live = this.triggers.get(id);
    if (!live) return;
    const { row, owner } = live;
    const market = this.deps.markets.marketById(row.symbolId) as Market;
    const { now, nowNs } = this.jobTime();
    // An OCO leg takes its siblings down first: their share of the pair's hold is its own.
    if (row.parentOrderId !== null) this.endSiblings(ws, row, now, nowNs);
    this.releaseTriggerHold(ws, row, owner);
    const childSeq = row.lastChildSeq + 1;
    Object.assign(row, { status: 'TRIGGERED', firePx: price, lastChildSeq: childSeq, updatedAt: now, version: row.version + 1 });
    const order = childOrderOf(row, market);
    try {
      const v = validateNewOrder({ order }, market, nowNs);
      const { row: child } = this.placeOrderRow(ws, { account: owner, market, v, input: { order }, now, nowNs, origin: { triggerId: row.id, triggerType: row.triggerType, childSeq } });
      this.triggerEvent(ws, row, 'FIRED', nowNs, { firePx: price, childOrderId: child.id, childOrderPublicId: child.publicId, childSeq });
      this.triggerEvent(ws, row, 'CHILD_PLACED', nowNs, { childOrderId: child.id, childOrderPublicId: child.publicId, childSeq });
      if (child.cumQty > 0n) this.triggerEvent(ws, row, 'CHILD_FILLED', nowNs, { childOrderId: child.id, childOrderPublicId: child.publicId, childSeq });
      row.cumFilledQty = child.cumQty;
      if (child.isOpen || child.status === 'FILLED') return this.endTrigger(ws, row, { status: 'COMPLETED' }, now, nowNs);
      // The child ended in this job short of its quantity (no bid, its slippage bound): the
      // log says how, and a child that filled nothing leaves the trigger FAILED, not COMPLETED.
      const unfilled = unfilledReason(child.closeReason);
      this.triggerEvent(ws, row, 'CHILD_CANCELED', nowNs, { childOrderId: child.id, childOrderPublicId: child.publicId, childSeq, failureReason: unfilled });
      this.endTrigger(ws, row, child.cumQty > 0n ? { status: 'COMPLETED' } : { status: 'FAILED', failureReason: unfilled }, now, nowNs);
    } catch (err) {
      // A refusal changed nothing: the trigger fails, and says why.
      if (!(err instanceof ApiError)) throw err;
      this.triggerEvent(ws, row, 'FIRED', nowNs, { firePx: price, childSeq });
      this.triggerEvent(ws, row, 'CHILD_REJECTED', nowNs, { childSeq });
      this.endTrigger(ws, row, { status: 'FAILED', failureReason: failureOf(err) }, now, nowNs);
    }
  }

  /** Live triggers, their owners' balances and tiers, and each symbol's last price, from the tables. */
  private async loadTriggers(): Promise<void> {
    this.triggerIds = await MonotonicIds.after(this.deps.db, 'Trigger');
    const rows = await this.deps.db.trigger.findMany({
      where: { status: { in: ['CREATED', 'ARMED', 'TRIGGERED', 'RUNNING', 'PAUSED'] } },
      orderBy: { id: 'asc' },
      include: { account: { select: { publicId: true } } },
    });
    const last = await this.deps.sql.query<{ symbolId: number; price: string }>(
      `SELECT DISTINCT ON ("symbolId") "symbolId", price::text AS price FROM "Trade" ORDER BY "symbolId", "matchId" DESC`,
    );
    const triggers = new Map<bigint, { row: TriggerRow; owner: Owner }>();
    const books = new Map<number, TriggerBook>();
    const trailing = new Map<number, Set<bigint>>();
    const twaps = new Set<bigint>();
    for (const r of rows) {
      const { account, triggerPriceSource: _source, nextFireAtTsNs: _next, ...rest } = r;
      const row = { ...rest, heldE18: BigInt(r.heldE18.toFixed(0)), triggerPrice: r.triggerPrice ?? 0n, params: JSON.stringify(r.params), state: JSON.stringify(r.state) } as TriggerRow;
      triggers.set(row.id, { row, owner: { id: row.accountId, publicId: account.publicId } });
      let book = books.get(row.symbolId);
      if (!book) books.set(row.symbolId, (book = new TriggerBook()));
      if (row.status !== 'ARMED') continue;
      if (row.triggerType === 'TWAP') {
        twaps.add(row.id);
      } else if (row.triggerType === 'TRAILING_STOP') {
        let ids = trailing.get(row.symbolId);
        if (!ids) trailing.set(row.symbolId, (ids = new Set()));
        ids.add(row.id);
      } else {
        book.add({ id: row.id, direction: row.triggerDirection, triggerPrice: row.triggerPrice });
      }
    }
    // A trigger may fire inside any job: its owner's balances and tier must be in memory.
    for (const { row, owner } of triggers.values()) await this.balances.load(this.refsFor([owner.id], this.deps.markets.marketById(row.symbolId) as Market));
    await this.loadTiers([...new Set([...triggers.values()].map((t) => t.owner.id))]);
    this.triggers = triggers;
    this.triggerByClientId = new Map([...triggers.values()].filter((t) => t.row.clientTriggerId !== null).map((t) => [`${t.row.accountId}:${t.row.clientTriggerId}`, t.row.id]));
    // The tables now hold every end that was durable; an end refused with its group never happened.
    this.endedByClientId.clear();
    this.endedIdsEpoch += 1;
    this.triggerBooks = books;
    this.trailing = trailing;
    const legs = new Map<bigint, bigint[]>();
    for (const { row } of triggers.values()) if (row.parentOrderId !== null) legs.set(row.parentOrderId, [...(legs.get(row.parentOrderId) ?? []), row.id]);
    this.legsByParent = legs;
    this.twaps = twaps;
    this.lastPrice = new Map(last.map((l) => [l.symbolId, BigInt(l.price)]));
    this.priceMoved.clear();
  }
}
