import { newPublicId } from '../../../domain/ids.ts';
import { INITIAL_TRAILING, directionOf, onTrailingPrice, worstThreshold } from '../../../domain/triggers/index.ts';
import type { Market } from '../../markets.ts';
import type { Owner } from '../engineTypes.ts';
import type { ValidatedOrder } from '../orderInput.ts';
import { trailingParamsOf, trailingStateJson } from '../triggerRules.ts';
import type { OrderRow, TriggerRow, WriteSet } from '../writeSet.ts';
import type { LiveTrigger, LiveTriggers, TriggerDeps } from './liveTriggers.ts';
import { TriggerFailureReason } from '../../../generated/prisma/enums.ts';

/**
 * Attached-risk legs (spec 2.7): the triggers an order carries, sized and funded by its
 * lineage's fills, one-cancels-other among themselves, handed on when it is replaced.
 */
export class AttachedLegs {
  private readonly balances: TriggerDeps['balances'];

  constructor(
    private readonly deps: TriggerDeps,
    private readonly s: LiveTriggers,
  ) {
    this.balances = deps.balances;
  }

  /**
   * An attached-risk leg becomes a trigger when its parent is accepted: CREATED, with no
   * quantity, waiting for the parent to fill (spec 2.7).
   */
  create(ws: WriteSet, owner: Owner, market: Market, parent: Pick<OrderRow, 'id' | 'side' | 'stpMode'>, leg: ValidatedOrder['riskLegs'][number], now: Date, nowNs: bigint): TriggerRow {
    const row = this.legRow(this.deps.ids.triggers.take(), owner, market, parent, leg, now, nowNs);
    this.s.triggers.set(row.id, { row, owner });
    this.s.legsByParent.set(parent.id, [...(this.s.legsByParent.get(parent.id) ?? []), row.id]);
    ws.trigger(row);
    this.s.triggerEvent(ws, row, 'CREATED', nowNs);
    return row;
  }

  /** The trigger row a leg becomes (`create`); with any id, what a leg would hold before it exists. */
  legRow(id: bigint, owner: Owner, market: Market, parent: Pick<OrderRow, 'id' | 'side' | 'stpMode'>, leg: ValidatedOrder['riskLegs'][number], now: Date, nowNs: bigint): TriggerRow {
    const side = parent.side === 'BUY' ? 'SELL' : 'BUY';
    const trailing = leg.kind === 'TRAILING_STOP';
    return {
      id,
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
  }

  /** The legs of `parentId` that have not ended, in the order they were created. */
  live(parentId: bigint): LiveTrigger[] {
    return (this.s.legsByParent.get(parentId) ?? [])
      .map((id) => this.s.triggers.get(id))
      .filter((l): l is LiveTrigger => l !== undefined && (l.row.status === 'CREATED' || l.row.status === 'ARMED' || l.row.status === 'PAUSED'));
  }

  /**
   * A parent's fill or end reaches its legs: each leg's quantity is what the parent's
   * lineage has filled (one leg, resized, not one per fill), armed at the first fill and
   * funded as it grows; a parent that ends with nothing filled takes its legs with it.
   * A replaced parent hands its legs to its next generation (see `replace`).
   */
  parentChanged(ws: WriteSet, parent: OrderRow, now: Date, nowNs: bigint): void {
    const legs = this.live(parent.id);
    const filled = parent.inheritedCumQty + parent.cumQty;
    if (!parent.isOpen && parent.closeReason === 'REPLACED') return;
    if (filled === 0n) {
      if (parent.isOpen) return;
      const reason = parent.status === 'EXPIRED' ? 'PARENT_EXPIRED' : 'PARENT_CANCELED';
      for (const { row } of legs) this.s.endTrigger(ws, row, { status: 'CANCELED', cancelReason: reason }, now, nowNs);
      return;
    }
    // Re-reckoned only when the position grew: a BUY trailing leg's need follows the last price.
    if (legs.some(({ row }) => row.qty !== filled)) this.fund(ws, legs, filled, now, nowNs);
  }

  /**
   * The live legs of one parent protect one position, as a bracket does: each is sized to
   * `qty`, and they share one hold, the largest any of them needs (a SELL parent's BUY legs
   * need quote at different bounds), kept by the first. Unfundable, they all fail: a leg
   * never fails alone and leaves its sibling thinking it is covered.
   */
  fund(ws: WriteSet, legs: LiveTrigger[], qty: bigint, now: Date, nowNs: bigint): void {
    const first = legs[0];
    // Legs of a parent that filled nothing wait, unfunded: a BUY leg's reservation is not zero
    // even for no quantity (the fee slack), and would arm them (a sibling's cancel came here).
    if (!first || qty === 0n) return;
    const market = this.deps.markets.marketById(first.row.symbolId) as Market;
    const { ref } = this.s.triggerReservation(first.owner, market, this.holdBasis(first.row, market, qty));
    const need = legs.reduce((max, { row, owner }) => {
      const { hold } = this.s.triggerReservation(owner, market, this.holdBasis(row, market, qty));
      return hold > max ? hold : max;
    }, 0n);
    const held = legs.reduce((sum, { row }) => sum + row.heldE18, 0n);
    // A deposit not yet final cannot fund a protective leg (docs/chain.md, "The finality lock").
    if (need > held && (need - held > this.balances.spendable(ref, now.getTime()) || !this.balances.hold(ws, ref, need - held))) {
      for (const { row, owner } of legs) {
        this.s.unwatch(row);
        this.s.releaseTriggerHold(ws, row, owner);
        this.s.endTrigger(ws, row, { status: 'FAILED', failureReason: TriggerFailureReason.INSUFFICIENT_BALANCE }, now, nowNs);
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
          const state = params.activationPrice === null ? onTrailingPrice(params, INITIAL_TRAILING, this.s.lastPrice.get(market.symbolId) as bigint).state : INITIAL_TRAILING;
          Object.assign(row, { state: trailingStateJson(state), triggerPrice: state.threshold ?? 0n });
        }
        this.s.watch(row);
        this.s.triggerEvent(ws, row, 'ARMED', nowNs);
        // Its price may already be through: it fires after this job's trades, like any other.
        this.s.priceMoved.add(market.symbolId);
      }
      ws.trigger(row);
    }
  }

  /**
   * A replaced parent's legs move to its next generation in the replacing job, before it
   * matches, so a filled position is never without its stop; the new order's own fills
   * then resize them.
   */
  carry(ws: WriteSet, oldId: bigint, next: OrderRow, now: Date): void {
    const ids = this.s.legsByParent.get(oldId);
    if (!ids) return;
    this.s.legsByParent.delete(oldId);
    this.s.legsByParent.set(next.id, [...(this.s.legsByParent.get(next.id) ?? []), ...ids]);
    for (const id of ids) {
      const live = this.s.triggers.get(id);
      if (!live) continue;
      Object.assign(live.row, { parentOrderId: next.id, updatedAt: now, version: live.row.version + 1 });
      ws.trigger(live.row);
    }
  }

  /** What a leg's funds are reckoned on: its child at its bound, for `qty`. */
  holdBasis(row: TriggerRow, market: Market, qty: bigint): TriggerRow {
    if (row.triggerType !== 'TRAILING_STOP' || row.side === 'SELL') return { ...row, qty };
    // A BUY trailing leg: its threshold never rises above where it starts (the last price).
    const start = worstThreshold(trailingParamsOf(row, market.tickSize), this.s.lastPrice.get(market.symbolId) ?? 0n);
    return { ...row, qty, triggerPrice: start };
  }

  /**
   * One leg fired: the others protected the same position, so they are canceled in the
   * same job (one-cancels-other, with or without `oco`), their share of the hold released.
   */
  endSiblings(ws: WriteSet, fired: TriggerRow, now: Date, nowNs: bigint): void {
    const siblings = this.live(fired.parentOrderId as bigint).filter((t) => t.row.id !== fired.id);
    for (const { row, owner } of siblings) {
      this.s.unwatch(row);
      this.s.releaseTriggerHold(ws, row, owner);
      this.s.endTrigger(ws, row, { status: 'CANCELED', cancelReason: 'OCO_SIBLING_FIRED' }, now, nowNs);
    }
  }
}
