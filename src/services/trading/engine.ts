import type { AccountRef } from '../access.ts';
import type { Market } from '../markets.ts';
import { BalanceBook, type BalanceRef } from './balances.ts';
import { Funds } from './core/funds.ts';
import { FlowBook, type FlowJob, type FlowMove } from './flowJobs.ts';
import { TradingCore } from './core/tradingCore.ts';
import { DeadManSwitches } from './deadManSwitches.ts';
import { DepositLocks } from './depositLocks.ts';
import { EngineIds, JOURNAL_RETENTION_MS, RESUME_PAGE_ENTRIES, jobTime, type Accepted, type EndedIdsRead, type EngineDeps, type EngineMemory, type LedgerJob, type Owner, type UserCancel } from './engineTypes.ts';
import { Journal } from './journal.ts';
import type { CreateOrderInput, ValidatedOrder } from './orderInput.ts';
import { Projector, type QuarantinedEntry, type ReapplyOutcome } from './projector.ts';
import { Recovery } from './recovery.ts';
import { Sequencer } from './sequencer.ts';
import { misfitError, writeSetMisfit } from './storable.ts';
import { entryEvents, entryMarketEvents, resumeAfter, type MarketStream, type PrivateStream, type TradingTopics } from './streams.ts';
import type { TriggerChange } from './triggerInput.ts';
import type { TriggerSpec } from './triggerRules.ts';
import type { LegParent } from './triggers/amend.ts';
import { TriggerEngine } from './triggers/triggerEngine.ts';
import { WithdrawalBook, type WithdrawHold, type WithdrawSubmission } from './withdrawals.ts';
import type { OrderVersion, SwitchRow, TriggerRow, WithdrawStatusRow, WriteSet } from './writeSet.ts';

export { CLIENT_ORDER_ID_RETENTION_MS, JOURNAL_RETENTION_MS, MAX_OPEN_ORDERS_PER_ACCOUNT, RESUME_PAGE_ENTRIES } from './engineTypes.ts';
export type { Accepted, EndedIdsRead, EngineDeps, EngineMemory, LedgerJob, UserCancel } from './engineTypes.ts';

const CLIENT_ID_PRUNE_MS = 60_000;
/** How long a read of the projected tables waits for the changes acknowledged before it. */
const READ_BARRIER_MS = 2_000;

/**
 * The trading engine: the order books, the balance authority, the sequencer and the
 * journal of one database, owned by this process alone (docs/scaling.md). Every change of
 * trading state goes through its public methods, each one sequenced job: validated against
 * memory, applied to memory, acknowledged once its group's journal entry is durable, then
 * streamed and projected into the read tables. Commands (commands/) check who may do what;
 * the engine checks what the state allows.
 *
 * This class wires its parts and keeps the interface: the core (books, orders, settlement),
 * the trigger engine (told of the core's effects on orders), dead-man switches, ledger
 * transfers and withdrawals, and recovery (loading all of them from the database).
 */
export class TradingEngine {
  private readonly balances: BalanceBook;
  private readonly locks: DepositLocks;
  private readonly withdrawals: WithdrawalBook;
  private readonly flows: FlowBook;
  private readonly journal: Journal;
  private readonly projector: Projector;
  private readonly sequencer: Sequencer;
  private readonly core: TradingCore;
  private readonly triggers: TriggerEngine;
  private readonly switches: DeadManSwitches;
  private readonly funds: Funds;
  private readonly recovery: Recovery;
  private clientIdsPrunedAt = 0;

  constructor(private readonly deps: EngineDeps) {
    this.locks = new DepositLocks(deps.sql, deps.chainBlockMs ?? 1_000);
    this.balances = new BalanceBook(deps.db, this.locks);
    this.withdrawals = new WithdrawalBook(deps.db, deps.sql);
    this.flows = new FlowBook(deps.db);
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
      (err) => this.recovery.recover(err),
      deps.commitDeadlineMs ?? Number.POSITIVE_INFINITY,
      // Triggers fire inside the job whose trade crossed them: the same journal entry.
      (ws) => this.triggers.afterJob(ws),
      (ws) => {
        const misfit = writeSetMisfit(ws);
        return misfit ? misfitError(misfit) : null;
      },
    );
    const shared = { ...deps, sequencer: this.sequencer, balances: this.balances, ids: new EngineIds() };
    this.core = new TradingCore(shared);
    this.triggers = new TriggerEngine({ ...shared, core: this.core, journal: this.journal, projector: this.projector }, this.sequencer);
    this.core.connect(this.triggers);
    this.switches = new DeadManSwitches({ ...shared, refsFor: (ids, market) => this.core.refsFor(ids, market), cancel: (...args) => this.cancelInJob(...args) });
    this.funds = new Funds({ ...shared, locks: this.locks, withdrawals: this.withdrawals, flows: this.flows });
    this.recovery = new Recovery({
      ...shared,
      locks: this.locks,
      withdrawals: this.withdrawals,
      flows: this.flows,
      journal: this.journal,
      projector: this.projector,
      core: this.core,
      triggers: this.triggers,
      switches: this.switches,
    });
  }

  // ---- Life cycle and reads ------------------------------------------------------------

  /** Brings the read tables up to the journal's end and loads the books from them (start-up). */
  start(): Promise<void> {
    return this.recovery.start();
  }

  /**
   * The engine lock was lost (its connection died): another process may take trading state
   * over. Trading is refused from now on; the engine takes the lock again, rebuilds from
   * the database and serves again, with no restart.
   */
  ownershipLost(err: unknown): void {
    this.recovery.disown();
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
    return this.core.openOrdersOf(accountId);
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
      openOrders: this.core.openCopies(),
      balances: this.balances.loaded(),
      triggers: this.triggers.rows(),
      armedSwitches: this.switches.rows(),
      withdrawalHolds: this.withdrawals.openHolds(),
      books: this.core.bookCopies(),
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
    if (this.recovery.reapplied(outcome.reapplied)) {
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
    return this.core.depth(market, levels);
  }

  /** Public market streams: order-book deltas and trades of one symbol. */
  subscribeMarket<S extends MarketStream>(market: Market, stream: S) {
    return this.deps.topics.subscribe(stream, market.symbol);
  }

  /**
   * An account's order versions, fills, trigger events or balances, as they are acknowledged. With `after` (an
   * event's sequence), every later event the journal holds comes first.
   */
  async subscribe<S extends PrivateStream>(stream: S, accountPublicId: string, after?: bigint) {
    const live = this.deps.topics.subscribe(stream, accountPublicId);
    if (after === undefined) return live;
    return resumeAfter(live, after, {
      lastEntry: () => this.journal.lastSeq,
      firstEntry: () => this.journal.firstSeq(),
      pages: (from, through) => this.journalPages(stream, accountPublicId, from, through),
    });
  }

  /** The account's events of one stream in entries after `from` through `through`: a page per read of its entries. */
  private async *journalPages<S extends PrivateStream>(stream: S, accountPublicId: string, from: bigint, through: bigint) {
    for (let cursor = from; cursor < through; ) {
      const entries = await this.journal.readOf(accountPublicId, cursor, through, RESUME_PAGE_ENTRIES);
      const page: TradingTopics[S]['payload'][] = [];
      for (const { seq, ws } of entries) {
        for (const e of entryEvents(seq, ws, this.symbolOf)[stream]) if (e.accountPublicId === accountPublicId) page.push(e);
      }
      yield page;
      if (entries.length < RESUME_PAGE_ENTRIES) return;
      cursor = (entries[entries.length - 1] as { seq: bigint }).seq;
    }
  }

  // ---- Commands --------------------------------------------------------------------------

  /** Reserves, matches and settles a new order (spec 4.5 Create Order). */
  place(account: AccountRef, market: Market, v: ValidatedOrder, order: CreateOrderInput['order']): Promise<Accepted> {
    return this.core.place(account, market, v, order);
  }

  /**
   * Replaces an open order with the next generation of its lineage: the old order ends
   * REPLACED, the new one inherits its filled quantity (`inheritedCumQty`) and keeps
   * `lineage.id`. Both happen in one job, so the pair is never half-done.
   */
  replace(account: AccountRef, market: Market, oldId: bigint, v: ValidatedOrder, order: CreateOrderInput['order']): Promise<Accepted> {
    return this.core.replace(account, market, oldId, v, order);
  }

  /**
   * Changes a resting order's total quantity and/or price. A decrease keeps time
   * priority; an increase or a new price re-queues it (and may match). The reservation
   * follows the new remaining quantity and price.
   */
  modify(account: AccountRef, market: Market, orderId: bigint, change: { newTotal?: bigint; newPrice?: bigint }) {
    return this.core.modify(account, market, orderId, change);
  }

  /** Cancels one open order of the account (spec 4.5 Cancel Order). */
  cancel(account: AccountRef, market: Market, order: { id: bigint; publicId: string }) {
    return this.core.cancel(account, market, order);
  }

  /** Posts ledger transfers (credits, internal transfers) through the same sequencer and balances as trades. */
  transfer<T>(refs: BalanceRef[], run: (job: LedgerJob) => T): Promise<T> {
    return this.funds.transfer(refs, run);
  }

  /**
   * A chain flow's step as one job (flowJobs.ts): it applies only over the flow version it
   * names, with the transfers and locks that go with it, in one journal entry.
   */
  flowJob<P, T>(refs: BalanceRef[], prepare: (flows: FlowBook) => Promise<P>, run: (job: FlowJob, prepared: P) => T): Promise<T> {
    return this.funds.flowJob(refs, prepare, run);
  }

  /**
   * Accepts a withdrawal from Trading (spec 4.7): holds its amount and fee in `hold`, or,
   * with `settle`, moves it at once; and records the intent and its flow, all in one
   * journal entry. Its idempotency key with the same payload answers the intent it
   * created; with another payload, or a nonce used before, it is refused.
   */
  submitWithdrawal(s: WithdrawSubmission, move: { hold: BalanceRef; refs: BalanceRef[]; settle?: (job: LedgerJob, flowId: bigint) => void }): Promise<{ intentId: string; replayed: boolean }> {
    return this.funds.submitWithdrawal(s, move);
  }

  /**
   * Ends an accepted withdrawal: `settle` debits its hold (completion), else the hold is
   * released; the intent takes `end`'s status in the same entry. False when it had ended
   * already, so a step repeated after a crash changes nothing; with `onlyUnsubmitted` (a
   * reject, a cancel, an expiry) also false once it is marked for broadcast.
   */
  endWithdrawal(end: Omit<WithdrawStatusRow, 'updatedAt'>, settle?: { refs: BalanceRef[]; run: (job: LedgerJob, hold: WithdrawHold) => void }, onlyUnsubmitted = false, flow?: FlowMove): Promise<boolean> {
    return this.funds.endWithdrawal(end, settle, onlyUnsubmitted, flow);
  }

  /**
   * Marks an open withdrawal for broadcast (SUBMITTED), durable in the journal before the
   * chain sees it: from then on a reject or cancel cannot release its hold. True when it is
   * marked (now or before), false when it had ended: then it must not be sent.
   */
  markWithdrawalSubmitted(intentId: bigint, flow?: FlowMove): Promise<boolean> {
    return this.funds.markWithdrawalSubmitted(intentId, flow);
  }

  /** Expires resting GTD orders, and triggers past their `expireAt`, whose time has come (run on a timer). */
  async expireDue(): Promise<void> {
    await this.core.expireDue();
    await this.triggers.expireDue();
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
    this.core.pruneClientIds(nowMs, projected);
    this.withdrawals.prune(nowMs, projected);
    await this.deps.db.clientOrderIdReservation.deleteMany({ where: { expiresAt: { lte: new Date(nowMs) } } });
    await this.journal.prune(new Date(nowMs - JOURNAL_RETENTION_MS), this.projector.prunableThrough);
  }

  /** Cancels every open order of `accountId` in scope, in every market at once: one job, so all of it commits or none. */
  async cancelWhere(accountId: bigint, only: Market | undefined, side: 'BUY' | 'SELL' | undefined, why: UserCancel) {
    const targets = only ? [only] : this.deps.markets.markets;
    return this.sequencer.submitAfter(() => this.balances.load(targets.flatMap((market) => this.core.refsFor([accountId], market))), (ws) => {
      const { now, nowNs } = jobTime(this.deps.clock);
      const count = this.cancelInJob(ws, accountId, targets, side, why, now, nowNs);
      return { canceledCount: count, ts: now, tsNs: nowNs };
    });
  }

  /**
   * Arms or refreshes (timeoutSec > 0) or disables (0) a dead-man switch (spec 3). A
   * journaled job like any other: a firing is sequenced wholly before or after it.
   */
  setDeadManSwitch(scope: { accountId: bigint; symbolId: number; side: SwitchRow['side'] }, timeoutSec: number, requestId: string) {
    return this.switches.setDeadManSwitch(scope, timeoutSec, requestId);
  }

  /**
   * Fires every armed switch whose time has passed, also one armed before a restart: its
   * cancels and its disarming are one job, so they commit together or not at all.
   */
  fireDueSwitches(): Promise<number> {
    return this.switches.fireDueSwitches();
  }

  // ---- Triggers (spec 2.8, 4.6) ------------------------------------------------------------

  /**
   * Taken before reading ended triggers' client ids from the tables, released once the
   * create that follows is answered: the ids of triggers ending after the read are kept in
   * memory until then (see `endedByClientId`).
   */
  holdEndedTriggerIds(): EndedIdsRead {
    return this.triggers.holdEndedTriggerIds();
  }

  /**
   * Accepts a stop-loss or take-profit: refused if a trade at the last price would fire it
   * at once, funded from acceptance (its child's reservation is held until it fires or
   * ends), armed at once. A repeated clientTriggerId with the same trigger answers the
   * existing one; with another, 409.
   */
  createTrigger(owner: Owner, market: Market, submitted: TriggerSpec, read?: EndedIdsRead): Promise<{ row: TriggerRow; existing: boolean }> {
    return this.triggers.createTrigger(owner, market, submitted, read);
  }

  /** Cancels a live trigger of the account (its hold released); 404 when it is not live. */
  cancelTrigger(accountId: bigint, id: bigint): Promise<TriggerRow> {
    return this.triggers.cancelTrigger(accountId, id);
  }

  /** Pauses an armed trigger: it stops watching prices and keeps its funds held. Pausing a paused one changes nothing. */
  pauseTrigger(accountId: bigint, id: bigint): Promise<TriggerRow> {
    return this.triggers.pauseTrigger(accountId, id);
  }

  /**
   * Arms a paused trigger again; refused, and left paused, when the last price is already
   * at or through it (as on creation). Resuming an armed one changes nothing.
   */
  resumeTrigger(accountId: bigint, id: bigint): Promise<TriggerRow> {
    return this.triggers.resumeTrigger(accountId, id);
  }

  /**
   * Amends a live trigger: its trigger price, limit-child price, quantity (not a leg's) or
   * trailing distance, its hold adjusted in the same job; refused whole, nothing changed.
   */
  modifyTrigger(owner: Owner, market: Market, id: bigint, change: TriggerChange): Promise<TriggerRow> {
    return this.triggers.modifyTrigger(owner, market, id, change);
  }

  /** Replaces an order's attached legs (open, or ended with a fill: its position) in one job. */
  setAttachedRisk(owner: Owner, market: Market, orderId: bigint, ended: LegParent | null, legs: ValidatedOrder['riskLegs']): Promise<Accepted['legTriggers']> {
    return this.triggers.setAttachedRisk(owner, market, orderId, ended, legs);
  }

  /**
   * Cancels the account's live triggers (of `market` only, if given) in one job, holds
   * released; the legs protecting orders too unless `includeAttached` is false.
   */
  cancelAllTriggers(accountId: bigint, market: Market | undefined, includeAttached: boolean) {
    return this.triggers.cancelAllTriggers(accountId, market, includeAttached);
  }

  /**
   * Runs the slices whose time has come (on the sweep timer): one job for all of them, each
   * slice a limit IOC child bounded by the TWAP's slice price, placed once.
   */
  runDueTwaps(): Promise<number> {
    return this.triggers.runDueTwaps();
  }

  // ---- Wiring ------------------------------------------------------------------------------

  private readonly symbolOf = (symbolId: number) => (this.deps.markets.marketById(symbolId) as Market).symbol;

  /**
   * A group is acknowledged by its journal append alone; then its events go out, derived
   * from the entry (the private ones numbered from it), and the projector brings the read
   * tables up to it.
   */
  private async commit(ws: WriteSet, deadline: number): Promise<void> {
    if (ws.isEmpty) return;
    const seq = await this.journal.append(ws, deadline);
    this.projector.enqueue({ seq, ws });
    const { topics } = this.deps;
    const { orders, fills, triggers, balances } = entryEvents(seq, ws, this.symbolOf);
    for (const e of orders) topics.publish('orders', e.accountPublicId, e);
    for (const e of fills) topics.publish('fills', e.accountPublicId, e);
    for (const e of triggers) topics.publish('triggers', e.accountPublicId, e);
    for (const e of balances) topics.publish('balances', e.accountPublicId, e);
    const { book, trades } = entryMarketEvents(ws, this.symbolOf);
    for (const e of book) topics.publish('book', e.symbol, e);
    for (const e of trades) topics.publish('trades', e.symbol, e);
  }

  /** Inside a job: cancels the account's open orders in `markets` (and `side`); how many. */
  private cancelInJob(ws: WriteSet, accountId: bigint, markets: readonly Market[], side: 'BUY' | 'SELL' | undefined, why: UserCancel, now: Date, nowNs: bigint): number {
    let count = 0;
    // A kill switch stops all the account's working orders, conditional ones too (a TWAP
    // would go on opening exposure): its live triggers in scope (side: their child's) first,
    // so a ladder ends canceled, not completed by its levels' cancels.
    const reason = why === 'DEAD_MAN_SWITCH' ? 'DEAD_MAN_SWITCH' : 'CANCEL_ALL';
    const triggers = this.triggers.liveOf(accountId, side);
    for (const market of markets) {
      // Orders already past their expiry end EXPIRED, as the sweep would have them.
      this.core.expireDueIn(ws, market, now, nowNs);
      for (const live of triggers) count += this.triggers.cancelIfLive(ws, live, market.symbolId, reason, why, now, nowNs);
      count += this.core.cancelAccountOrders(ws, accountId, market, side, why, now, nowNs);
    }
    return count;
  }
}
