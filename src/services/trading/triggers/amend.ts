import { errors } from '../../../domain/errorCatalogue.ts';
import { invalidArgument } from '../../../domain/errors.ts';
import { quoteNotional } from '../../../domain/matching/index.ts';
import { INITIAL_TRAILING, crosses, directionOf, onTrailingPrice } from '../../../domain/triggers/index.ts';
import type { Market } from '../../markets.ts';
import { tradingRef, type Accepted, type Owner } from '../engineTypes.ts';
import { insufficientBalance } from '../errors.ts';
import type { ValidatedOrder } from '../orderInput.ts';
import type { TriggerChange } from '../triggerInput.ts';
import { trailingParamsOf, trailingStateJson, trailingStateOf, wouldFireAtOnce } from '../triggerRules.ts';
import type { OrderRow, TriggerRow, WriteSet } from '../writeSet.ts';
import type { AttachedLegs } from './legs.ts';
import type { LiveTrigger, LiveTriggers, TriggerDeps } from './liveTriggers.ts';

/** What replacing an order's legs reads of it. */
export type LegParent = Pick<OrderRow, 'id' | 'side' | 'stpMode' | 'inheritedCumQty' | 'cumQty'>;

/**
 * Changes to live conditional orders (issue 25, "management traders expect"): amending a
 * trigger's prices, quantity or trailing distance, and replacing an order's attached legs.
 * Each runs inside one engine job and checks everything, funds included, before it changes
 * anything: a refusal leaves the trigger, its legs and the balances as they were.
 */
export class Amendments {
  constructor(
    private readonly deps: TriggerDeps,
    private readonly s: LiveTriggers,
    private readonly legs: AttachedLegs,
  ) {}

  /**
   * Amends a live trigger; its hold follows in the same job. A leg's hold is its bracket's
   * (one hold for the largest need of its legs), so it is reckoned over all of them.
   */
  modify(ws: WriteSet, live: LiveTrigger, change: TriggerChange, now: Date, nowNs: bigint): TriggerRow {
    const { row, owner } = live;
    if (row.status !== 'CREATED' && row.status !== 'ARMED' && row.status !== 'PAUSED') {
      throw errors.TRIGGER_NOT_AMENDABLE(`a ${row.status} trigger cannot be amended`);
    }
    const market = this.deps.markets.marketById(row.symbolId) as Market;
    const last = this.s.lastPrice.get(row.symbolId);
    const next: TriggerRow = { ...row };
    if (change.triggerPrice !== undefined) next.triggerPrice = change.triggerPrice;
    if (change.childLimitPrice !== undefined) next.childLimitPrice = change.childLimitPrice;
    if (change.qty !== undefined) next.qty = change.qty;
    if (change.trailingDistance) {
      const { ticks, bps } = change.trailingDistance;
      next.params = JSON.stringify({ ...(JSON.parse(row.params) as object), trailingDistanceTicks: ticks?.toString() ?? null, trailingDistanceBps: bps });
      const state = trailingStateOf(JSON.parse(row.state));
      if (state.active) {
        // It keeps the peak (trough) it has followed; the threshold is that at the new distance.
        const params = { ...trailingParamsOf(next, market.tickSize), activationPrice: null };
        const moved = onTrailingPrice(params, INITIAL_TRAILING, state.extreme as bigint).state;
        Object.assign(next, { state: trailingStateJson(moved), triggerPrice: moved.threshold ?? 0n });
        if (last !== undefined && crosses(row.triggerDirection, next.triggerPrice, last)) throw wouldFireAtOnce(last, ticks !== null ? 'trailingDistanceTicks' : 'trailingDistanceBps');
      }
    }
    // As on creation: a price the last trade is already through would fire at once. A leg
    // still waiting for its parent's first fill is not checked, as on the order's creation.
    if (change.triggerPrice !== undefined && row.status !== 'CREATED' && last !== undefined && crosses(row.triggerDirection, next.triggerPrice, last)) {
      throw wouldFireAtOnce(last, 'triggerPrice');
    }
    const standalone = row.parentOrderId === null;
    if (standalone && row.triggerType !== 'TRAILING_STOP' && quoteNotional(next.childLimitPrice ?? next.triggerPrice, next.qty, market.notional) < market.minNotional) {
      throw invalidArgument(change.qty !== undefined ? 'qty' : change.childLimitPrice !== undefined ? 'childLimitPrice' : 'triggerPrice', 'its child order would be below the market minimum notional', 'min-notional');
    }
    const group = standalone ? [live] : this.legs.live(row.parentOrderId as bigint);
    const basisOf = (t: TriggerRow) => (t.triggerType === 'TRAILING_STOP' ? this.legs.holdBasis(t, market, t.qty) : t);
    // A leg of a parent that filled nothing holds nothing yet (legs.fund).
    const need = next.qty === 0n ? 0n : group.reduce((max, g) => {
      const { hold } = this.s.triggerReservation(g.owner, market, basisOf(g.row.id === row.id ? next : g.row));
      return hold > max ? hold : max;
    }, 0n);
    const held = group.reduce((sum, g) => sum + g.row.heldE18, 0n);
    const ref = tradingRef(owner.id, row.side === 'BUY' ? market.quote.unifiedAssetId : market.base.unifiedAssetId);
    const field = change.qty !== undefined ? 'qty' : change.triggerPrice !== undefined ? 'triggerPrice' : change.childLimitPrice !== undefined ? 'childLimitPrice' : change.trailingDistance?.ticks != null ? 'trailingDistanceTicks' : 'trailingDistanceBps';
    if (need > held) {
      this.deps.balances.requireUnlocked(ref, need - held, now.getTime(), field);
      // The last check: a hold refused changes nothing.
      if (!this.deps.balances.hold(ws, ref, need - held)) throw insufficientBalance(field);
    } else if (need < held) this.deps.balances.release(ws, ref, held - need);
    const watched = row.status === 'ARMED';
    if (watched) this.s.unwatch(row);
    Object.assign(row, { triggerPrice: next.triggerPrice, childLimitPrice: next.childLimitPrice, qty: next.qty, params: next.params, state: next.state, updatedAt: now, version: row.version + 1 });
    if (watched) this.s.watch(row);
    for (const [i, g] of group.entries()) {
      const heldE18 = i === 0 ? need : 0n;
      if (g.row.heldE18 === heldE18) continue;
      g.row.heldE18 = heldE18;
      if (g.row !== row) Object.assign(g.row, { updatedAt: now, version: g.row.version + 1 });
      ws.trigger(g.row);
    }
    ws.trigger(row);
    this.s.triggerEvent(ws, row, 'AMENDED', nowNs);
    return row;
  }

  /**
   * Replaces the live legs of `parent` (an open order, or an ended one that filled) with
   * `legs`: the old ones end CANCELED (`ATTACHED_RISK_REPLACED`), the new ones are created as
   * on the order's acceptance and armed at once for what the lineage has filled, under one
   * hold (legs.fund); while the parent is open they grow with its fills.
   */
  setAttachedRisk(ws: WriteSet, owner: Owner, market: Market, parent: LegParent, legs: ValidatedOrder['riskLegs'], now: Date, nowNs: bigint): Accepted['legTriggers'] {
    const filled = parent.inheritedCumQty + parent.cumQty;
    const last = this.s.lastPrice.get(market.symbolId);
    const old = this.legs.live(parent.id);
    if (filled > 0n) {
      const side = parent.side === 'BUY' ? 'SELL' : 'BUY';
      for (const leg of legs) {
        if (leg.kind === 'TRAILING_STOP' || last === undefined) continue;
        const block = leg.kind === 'STOP_LOSS' ? 'stopLoss' : 'takeProfit';
        if (crosses(directionOf(leg.kind, side), leg.triggerPrice as bigint, last)) throw wouldFireAtOnce(last, `attachedRisk.${block}.triggerPrice`);
      }
      const need = legs.reduce((max, leg) => {
        const row = this.legs.legRow(0n, owner, market, parent, leg, now, nowNs);
        const { hold } = this.s.triggerReservation(owner, market, this.legs.holdBasis(row, market, filled));
        return hold > max ? hold : max;
      }, 0n);
      const held = old.reduce((sum, g) => sum + g.row.heldE18, 0n);
      const ref = tradingRef(owner.id, parent.side === 'BUY' ? market.base.unifiedAssetId : market.quote.unifiedAssetId);
      // The old legs' hold is released in this job: the new ones may use it.
      if (need > held) {
        this.deps.balances.requireUnlocked(ref, need - held, now.getTime(), 'attachedRisk');
        if (need - held > this.deps.balances.spendable(ref, now.getTime())) throw insufficientBalance('attachedRisk');
      }
    }
    for (const { row, owner: o } of old) {
      this.s.unwatch(row);
      this.s.releaseTriggerHold(ws, row, o);
      this.s.endTrigger(ws, row, { status: 'CANCELED', cancelReason: 'ATTACHED_RISK_REPLACED' }, now, nowNs);
    }
    const legTriggers: Accepted['legTriggers'] = {};
    for (const leg of legs) {
      const trigger = this.legs.create(ws, owner, market, parent, leg, now, nowNs);
      ws.riskLegs.push({ ...leg, orderId: parent.id, triggerId: trigger.id });
      legTriggers[leg.kind === 'STOP_LOSS' ? 'stopLoss' : leg.kind === 'TAKE_PROFIT' ? 'takeProfit' : 'trailingStop'] = trigger.publicId;
    }
    this.legs.fund(ws, this.legs.live(parent.id), filled, now, nowNs);
    return legTriggers;
  }
}
