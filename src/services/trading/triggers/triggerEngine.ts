import { ApiError, errors } from '../../../domain/errorCatalogue.ts';
import { newPublicId } from '../../../domain/ids.ts';
import { INITIAL_TRAILING, crosses, onTrailingPrice, slicePrice, worstThreshold } from '../../../domain/triggers/index.ts';
import type { Market } from '../../markets.ts';
import type { OrderEffects } from '../core/tradingCore.ts';
import { MAX_LIVE_TRIGGERS_PER_ACCOUNT, jobTime, type Accepted, type EndedIdsRead, type Owner, type UserCancel } from '../engineTypes.ts';
import { insufficientBalance, tooManyTriggers } from '../errors.ts';
import { validateNewOrder, type ValidatedOrder } from '../orderInput.ts';
import { rebuildingError, type Sequencer } from '../sequencer.ts';
import {
  checkSameTrigger,
  childOrderOf,
  failureOf,
  noReferencePrice,
  trailingStateJson,
  triggerNotPausable,
  unfilledReason,
  wouldFireAtOnce,
  type TriggerSpec,
} from '../triggerRules.ts';
import type { OrderRow, TriggerRow, WriteSet } from '../writeSet.ts';
import type { TriggerChange } from '../triggerInput.ts';
import { Amendments, type LegParent } from './amend.ts';
import { Ladders } from './ladders.ts';
import { AttachedLegs } from './legs.ts';
import { LiveTriggers, type LiveTrigger, type LoadedTriggers, type TriggerDeps } from './liveTriggers.ts';
import { Twaps } from './twaps.ts';

/**
 * The trigger engine (spec 2.8, 4.6): armed price triggers, trailing stops, attached-risk
 * legs, TWAPs and ladders. It learns of trades and order changes only from the effects the
 * core reports (`OrderEffects`), fires after each job (`afterJob`), and places and cancels
 * child orders only through the core's in-job methods.
 */
export class TriggerEngine implements OrderEffects {
  private readonly s: LiveTriggers;
  private readonly legs: AttachedLegs;
  private readonly ladders: Ladders;
  private readonly slices: Twaps;
  private readonly amendments: Amendments;
  private readonly balances: TriggerDeps['balances'];

  constructor(
    private readonly deps: TriggerDeps,
    private readonly sequencer: Sequencer,
  ) {
    this.s = new LiveTriggers(deps);
    this.legs = new AttachedLegs(deps, this.s);
    this.ladders = new Ladders(deps, this.s);
    this.slices = new Twaps(deps, this.s, sequencer);
    this.amendments = new Amendments(deps, this.s, this.legs);
    this.balances = deps.balances;
  }

  /** Takes the triggers loaded from the tables (recovery). */
  install(loaded: LoadedTriggers): void {
    this.s.install(loaded);
  }

  /** Copies of the triggers not yet terminal (memory()). */
  rows(): TriggerRow[] {
    return [...this.s.triggers.values()].map(({ row }) => ({ ...row }));
  }

  // ---- What the core reports -----------------------------------------------------------------

  accepted(ws: WriteSet, order: Parameters<OrderEffects['accepted']>[1]): Accepted['legTriggers'] {
    const { account, market, row, riskLegs, replacesOrderId, now, nowNs } = order;
    if (replacesOrderId !== undefined) this.legs.carry(ws, replacesOrderId, row, now);
    if (replacesOrderId !== undefined && row.originTriggerId !== null) this.ladders.childReplaced(ws, replacesOrderId, row, now);
    const legTriggers: Partial<Record<'stopLoss' | 'takeProfit' | 'trailingStop', string>> = {};
    for (const leg of riskLegs) {
      const trigger = this.legs.create(ws, account, market, row, leg, now, nowNs);
      ws.riskLegs.push({ ...leg, orderId: row.id, triggerId: trigger.id });
      legTriggers[leg.kind === 'STOP_LOSS' ? 'stopLoss' : leg.kind === 'TAKE_PROFIT' ? 'takeProfit' : 'trailingStop'] = trigger.publicId;
    }
    return legTriggers;
  }

  traded(symbolId: number, price: bigint): void {
    this.s.lastPrice.set(symbolId, price);
    this.s.priceMoved.add(symbolId);
  }

  orderChanged(ws: WriteSet, row: OrderRow, now: Date, nowNs: bigint): void {
    if (row.originTriggerId !== null) this.ladders.childChanged(ws, row, now, nowNs);
    if (this.s.legsByParent.has(row.id)) this.legs.parentChanged(ws, row, now, nowNs);
  }

  // ---- Commands ------------------------------------------------------------------------------

  /**
   * Taken before reading ended triggers' client ids from the tables, released once the
   * create that follows is answered: the ids of triggers ending after the read are kept in
   * memory until then.
   */
  holdEndedTriggerIds(): EndedIdsRead {
    return this.s.holdEndedTriggerIds();
  }

  /**
   * Accepts a stop-loss or take-profit: refused if a trade at the last price would fire it
   * at once, funded from acceptance (its child's reservation is held until it fires or
   * ends), armed at once. A repeated clientTriggerId with the same trigger answers the
   * existing one; with another, 409.
   */
  async createTrigger(owner: Owner, market: Market, submitted: TriggerSpec, read?: EndedIdsRead): Promise<{ row: TriggerRow; existing: boolean }> {
    const refs = this.deps.core.refsFor([owner.id], market);
    return this.sequencer.submitAfter(
      () => Promise.all([this.balances.load(refs), this.deps.core.loadTiers([owner.id])]),
      (ws) => {
        let spec = submitted;
        const { now, nowNs } = jobTime(this.deps.clock);
        if (spec.clientTriggerId !== null) {
          const key = `${owner.id}:${spec.clientTriggerId}`;
          const same = this.s.triggers.get(this.s.triggerByClientId.get(key) ?? -1n);
          if (same) return { row: { ...checkSameTrigger(same.row, spec) }, existing: true };
          if (read && read.epoch !== this.s.endedIdsEpoch) throw rebuildingError();
          this.s.pruneEndedTriggerIds();
          const ended = this.s.endedByClientId.get(key);
          if (ended) return { row: { ...checkSameTrigger(ended.row, spec) }, existing: true };
        }
        const cap = this.deps.maxLiveTriggersPerAccount ?? MAX_LIVE_TRIGGERS_PER_ACCOUNT;
        if ((this.s.standaloneLive.get(owner.id) ?? 0) >= cap) throw tooManyTriggers(cap);
        const last = this.s.lastPrice.get(market.symbolId);
        let fields: Pick<TriggerRow, 'triggerPrice' | 'state'> = { triggerPrice: spec.triggerPrice, state: '{}' };
        let holdAt = spec.row;
        if (spec.ladder) return this.ladders.create(ws, owner, market, spec, now, nowNs);
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
        const { ref, hold } = this.s.triggerReservation(owner, market, holdAt);
        this.balances.requireUnlocked(ref, hold, now.getTime(), 'trigger.qty');
        if (!this.balances.hold(ws, ref, hold)) throw insufficientBalance('trigger.qty');
        const row: TriggerRow = {
          ...spec.row,
          ...fields,
          id: this.deps.ids.triggers.take(),
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
        this.s.triggers.set(row.id, { row, owner });
        this.s.admitted(row);
        if (row.clientTriggerId !== null) this.s.triggerByClientId.set(`${owner.id}:${row.clientTriggerId}`, row.id);
        this.s.watch(row);
        ws.trigger(row);
        this.s.triggerEvent(ws, row, 'CREATED', nowNs);
        this.s.triggerEvent(ws, row, 'ARMED', nowNs);
        return { row: { ...row }, existing: false };
      },
    );
  }

  /** Cancels a live trigger of the account (its hold released); 404 when it is not live. */
  cancelTrigger(accountId: bigint, id: bigint): Promise<TriggerRow> {
    return this.sequencer.submit((ws) => {
      const live = this.s.liveTrigger(accountId, id);
      const { now, nowNs } = jobTime(this.deps.clock);
      this.cancelLive(ws, live, 'USER_REQUEST', 'USER_CANCELED', now, nowNs);
      return { ...live.row };
    });
  }

  /** Pauses an armed trigger: it stops watching prices and keeps its funds held. Pausing a paused one changes nothing. */
  pauseTrigger(accountId: bigint, id: bigint): Promise<TriggerRow> {
    return this.sequencer.submit((ws) => {
      const { row } = this.s.liveTrigger(accountId, id);
      if (row.status === 'PAUSED') return { ...row };
      if (row.status !== 'ARMED') throw triggerNotPausable(row.status);
      const { now, nowNs } = jobTime(this.deps.clock);
      this.s.unwatch(row);
      Object.assign(row, { status: 'PAUSED', updatedAt: now, version: row.version + 1 });
      ws.trigger(row);
      this.s.triggerEvent(ws, row, 'PAUSED', nowNs);
      return { ...row };
    });
  }

  /**
   * Arms a paused trigger again; refused, and left paused, when the last price is already
   * at or through it (as on creation). Resuming an armed one changes nothing.
   */
  resumeTrigger(accountId: bigint, id: bigint): Promise<TriggerRow> {
    return this.sequencer.submit((ws) => {
      const { row } = this.s.liveTrigger(accountId, id);
      if (row.status === 'ARMED') return { ...row };
      if (row.status !== 'PAUSED') throw triggerNotPausable(row.status);
      const last = this.s.lastPrice.get(row.symbolId);
      if ((row.triggerType === 'STOP_LOSS' || row.triggerType === 'TAKE_PROFIT') && last !== undefined && crosses(row.triggerDirection, row.triggerPrice, last)) throw wouldFireAtOnce(last, 'triggerId');
      const { now, nowNs } = jobTime(this.deps.clock);
      this.s.watch(row);
      Object.assign(row, { status: 'ARMED', armedAt: now, updatedAt: now, version: row.version + 1 });
      ws.trigger(row);
      this.s.triggerEvent(ws, row, 'RESUMED', nowNs);
      return { ...row };
    });
  }

  /** Amends a live trigger of the account (prices, quantity, trailing distance), its hold adjusted in the same job. */
  modifyTrigger(owner: Owner, market: Market, id: bigint, change: TriggerChange): Promise<TriggerRow> {
    return this.sequencer.submitAfter(
      () => Promise.all([this.balances.load(this.deps.core.refsFor([owner.id], market)), this.deps.core.loadTiers([owner.id])]),
      (ws) => {
        const { now, nowNs } = jobTime(this.deps.clock);
        return { ...this.amendments.modify(ws, this.s.liveTrigger(owner.id, id), change, now, nowNs) };
      },
    );
  }

  /**
   * Replaces an order's attached legs with `legs` in one job. `ended` is the order as the
   * tables hold it when it had ended before the call; an order open then is taken from memory.
   */
  setAttachedRisk(owner: Owner, market: Market, orderId: bigint, ended: LegParent | null, legs: ValidatedOrder['riskLegs']): Promise<Accepted['legTriggers']> {
    return this.sequencer.submitAfter(
      () => Promise.all([this.balances.load(this.deps.core.refsFor([owner.id], market)), this.deps.core.loadTiers([owner.id])]),
      (ws) => {
        const parent = this.deps.core.openOrder(orderId) ?? ended;
        if (!parent) throw errors.ORDER_STATE_CHANGED('the order ended while this change was on its way: send it again');
        const { now, nowNs } = jobTime(this.deps.clock);
        return this.amendments.setAttachedRisk(ws, owner, market, parent, legs, now, nowNs);
      },
    );
  }

  /**
   * Runs the slices whose time has come (on the sweep timer): one job for all of them, each
   * slice a limit IOC child bounded by the TWAP's slice price, placed once.
   */
  runDueTwaps(): Promise<number> {
    return this.slices.runDue();
  }

  /**
   * Cancels the account's live triggers (of `market` only, if given) in one job, holds
   * released; the legs protecting orders too unless `includeAttached` is false. Answers
   * the canceled triggers' public ids.
   */
  cancelAllTriggers(accountId: bigint, market: Market | undefined, includeAttached: boolean) {
    return this.sequencer.submit((ws) => {
      const { now, nowNs } = jobTime(this.deps.clock);
      const canceled: string[] = [];
      for (const live of this.liveOf(accountId, undefined)) {
        if ((market && live.row.symbolId !== market.symbolId) || (!includeAttached && live.row.parentOrderId !== null)) continue;
        // A leg canceled before may have taken its siblings' hold over: each is looked up again.
        if (!this.s.triggers.has(live.row.id)) continue;
        this.cancelLive(ws, live, 'CANCEL_ALL', 'CANCEL_ALL', now, nowNs);
        canceled.push(live.row.publicId);
      }
      return { canceledTriggerIds: canceled, ts: now, tsNs: nowNs };
    });
  }

  /** Ends EXPIRED the triggers whose `expireAt` has come (on the sweep timer): one job for all of them. */
  async expireDue(): Promise<number> {
    if (this.s.expiries.due(this.deps.clock.nowNs()).length === 0) return 0;
    return this.sequencer.submit((ws) => {
      const { now, nowNs } = jobTime(this.deps.clock);
      const due = this.s.expiries.due(nowNs).map((id) => this.s.triggers.get(id)).filter((t) => t !== undefined);
      for (const live of due) this.expireLive(ws, live, now, nowNs);
      return due.length;
    });
  }

  /** Inside a job: the account's live triggers (of `side`: their child's), as they are now. */
  liveOf(accountId: bigint, side: 'BUY' | 'SELL' | undefined): LiveTrigger[] {
    return [...this.s.triggers.values()].filter((t) => t.row.accountId === accountId && (!side || t.row.side === side));
  }

  /** Inside a job: cancels `live` if it is of `symbolId` and still live; answers how many of its child orders that canceled. */
  cancelIfLive(ws: WriteSet, live: LiveTrigger, symbolId: number, reason: NonNullable<TriggerRow['cancelReason']>, why: UserCancel, now: Date, nowNs: bigint): number {
    return live.row.symbolId === symbolId && this.s.triggers.has(live.row.id) ? this.cancelLive(ws, live, reason, why, now, nowNs) : 0;
  }

  // ---- Firing --------------------------------------------------------------------------------

  /**
   * After every job: the triggers the job's trades crossed fire, in the same journal entry
   * as those trades. A child's own trades may cross more; bounded, so a cascade ends.
   */
  afterJob(ws: WriteSet): void {
    for (let round = 0; this.s.priceMoved.size > 0 && round < 16; round++) {
      const symbols = [...this.s.priceMoved];
      this.s.priceMoved.clear();
      for (const symbolId of symbols) {
        const price = this.s.lastPrice.get(symbolId) as bigint;
        this.followTrailing(ws, symbolId, price);
        const book = this.s.triggerBooks.get(symbolId);
        if (!book || book.size === 0) continue;
        for (const armed of book.takeCrossed(price)) this.fireTrigger(ws, armed.id, price);
      }
    }
    this.s.priceMoved.clear();
  }

  /** Inside a job: cancels a live trigger, its hold released; answers how many of its child orders that canceled. */
  private cancelLive(ws: WriteSet, live: LiveTrigger, reason: NonNullable<TriggerRow['cancelReason']>, why: UserCancel, now: Date, nowNs: bigint): number {
    const { row, owner } = live;
    this.s.unwatch(row);
    this.s.releaseTriggerHold(ws, row, owner);
    this.s.endTrigger(ws, row, { status: 'CANCELED', cancelReason: reason }, now, nowNs);
    // A ladder's resting levels go with it (once it has ended, their cancels change it no more).
    if (row.triggerType === 'LADDER') return this.ladders.cancelChildren(ws, row, why, now, nowNs);
    if (row.parentOrderId !== null) {
      // The legs left of its bracket take over the hold it may have kept.
      const rest = this.legs.live(row.parentOrderId);
      if (rest[0]) this.legs.fund(ws, rest, rest[0].row.qty, now, nowNs);
    }
    return 0;
  }

  /** Inside a job: ends a standalone trigger at its expiry, its hold released. */
  private expireLive(ws: WriteSet, live: LiveTrigger, now: Date, nowNs: bigint): void {
    this.s.unwatch(live.row);
    this.s.releaseTriggerHold(ws, live.row, live.owner);
    this.s.endTrigger(ws, live.row, { status: 'EXPIRED' }, now, nowNs);
  }

  /** Moves a symbol's trailing stops with a trade at `price`; fires those it reaches. */
  private followTrailing(ws: WriteSet, symbolId: number, price: bigint): void {
    const ids = this.s.trailing.get(symbolId);
    if (!ids || ids.size === 0) return;
    const tickSize = (this.deps.markets.marketById(symbolId) as Market).tickSize;
    // Deleting from a Set while iterating it is safe: a firing (and the OCO siblings it ends) only deletes.
    for (const id of ids) {
      const live = this.s.triggers.get(id);
      if (!live) continue;
      const { row } = live;
      const memo = this.s.trailingOf(row, tickSize);
      const before = memo.state;
      const { state, fire } = onTrailingPrice(memo.params, before, price);
      // Only a changed state is serialized and written.
      if (state.active !== before.active || state.extreme !== before.extreme || state.threshold !== before.threshold) {
        const { now, nowNs } = jobTime(this.deps.clock);
        const activated = !before.active && state.active;
        Object.assign(row, { state: trailingStateJson(state), triggerPrice: state.threshold ?? 0n, updatedAt: now, version: row.version + 1 });
        Object.assign(memo, { state, version: row.version });
        ws.trigger(row);
        if (activated) this.s.triggerEvent(ws, row, 'THRESHOLD_UPDATED', nowNs);
      }
      if (fire) {
        ids.delete(id);
        this.fireTrigger(ws, id, price);
      }
    }
  }

  /** Fires one trigger: its hold gives way to its child's reservation, and the child is placed once. */
  private fireTrigger(ws: WriteSet, id: bigint, price: bigint): void {
    const live = this.s.triggers.get(id);
    if (!live) return;
    const { row, owner } = live;
    const market = this.deps.markets.marketById(row.symbolId) as Market;
    const { now, nowNs } = jobTime(this.deps.clock);
    // Past its expiry, not yet swept: it expires, as the sweep would have had it.
    const expireAt = this.s.expiries.at(id);
    if (expireAt !== undefined && expireAt <= nowNs) return this.expireLive(ws, live, now, nowNs);
    // An OCO leg takes its siblings down first: their share of the pair's hold is its own.
    if (row.parentOrderId !== null) this.legs.endSiblings(ws, row, now, nowNs);
    this.s.releaseTriggerHold(ws, row, owner);
    const childSeq = row.lastChildSeq + 1;
    Object.assign(row, { status: 'TRIGGERED', firePx: price, lastChildSeq: childSeq, updatedAt: now, version: row.version + 1 });
    const order = childOrderOf(row, market);
    try {
      const v = validateNewOrder({ order }, market, nowNs);
      const { row: child } = this.deps.core.placeOrderRow(ws, { account: owner, market, v, input: { order }, now, nowNs, origin: { triggerId: row.id, triggerType: row.triggerType, childSeq } });
      this.s.triggerEvent(ws, row, 'FIRED', nowNs, { firePx: price, childOrderId: child.id, childOrderPublicId: child.publicId, childSeq });
      this.s.triggerEvent(ws, row, 'CHILD_PLACED', nowNs, { childOrderId: child.id, childOrderPublicId: child.publicId, childSeq });
      if (child.cumQty > 0n) this.s.triggerEvent(ws, row, 'CHILD_FILLED', nowNs, { childOrderId: child.id, childOrderPublicId: child.publicId, childSeq });
      row.cumFilledQty = child.cumQty;
      if (child.isOpen || child.status === 'FILLED') return this.s.endTrigger(ws, row, { status: 'COMPLETED' }, now, nowNs);
      // The child ended in this job short of its quantity (no bid, its slippage bound): the
      // log says how, and a child that filled nothing leaves the trigger FAILED, not COMPLETED.
      const unfilled = unfilledReason(child.closeReason);
      this.s.triggerEvent(ws, row, 'CHILD_CANCELED', nowNs, { childOrderId: child.id, childOrderPublicId: child.publicId, childSeq, failureReason: unfilled });
      this.s.endTrigger(ws, row, child.cumQty > 0n ? { status: 'COMPLETED' } : { status: 'FAILED', failureReason: unfilled }, now, nowNs);
    } catch (err) {
      // A refusal changed nothing: the trigger fails, and says why.
      if (!(err instanceof ApiError)) throw err;
      this.s.triggerEvent(ws, row, 'FIRED', nowNs, { firePx: price, childSeq });
      this.s.triggerEvent(ws, row, 'CHILD_REJECTED', nowNs, { childSeq });
      this.s.endTrigger(ws, row, { status: 'FAILED', failureReason: failureOf(err) }, now, nowNs);
    }
  }
}
