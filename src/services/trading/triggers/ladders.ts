import { newPublicId } from '../../../domain/ids.ts';
import { formatScaled } from '../../../domain/money.ts';
import type { Market } from '../../markets.ts';
import type { Owner, UserCancel } from '../engineTypes.ts';
import { insufficientBalance } from '../errors.ts';
import { validateNewOrder } from '../orderInput.ts';
import type { LadderChild, TriggerSpec } from '../triggerRules.ts';
import type { OrderRow, TriggerRow, WriteSet } from '../writeSet.ts';
import type { LiveTriggers, TriggerDeps } from './liveTriggers.ts';

/** Ladders: limit orders placed at once at several levels, followed until every level has ended. */
export class Ladders {
  private readonly balances: TriggerDeps['balances'];

  constructor(
    private readonly deps: TriggerDeps,
    private readonly s: LiveTriggers,
  ) {
    this.balances = deps.balances;
  }

  /**
   * Places every level of a ladder in the creating job: all are checked (post-only, sizes,
   * funds for the whole ladder) before the first is placed, so it is accepted whole or not.
   */
  create(ws: WriteSet, owner: Owner, market: Market, spec: TriggerSpec, now: Date, nowNs: bigint): { row: TriggerRow; existing: boolean } {
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
      return { order, v, checked: this.deps.core.checkPlace({ account: owner, market, v, input: { order }, now, nowNs }) };
    });
    const need = checked.reduce((a, c) => a + c.checked.hold, 0n);
    if (this.balances.get((checked[0] as (typeof checked)[number]).checked.holdRef).available < need) throw insufficientBalance('trigger.qty');
    this.balances.requireUnlocked((checked[0] as (typeof checked)[number]).checked.holdRef, need, now.getTime(), 'trigger.qty');
    const row: TriggerRow = {
      ...spec.row,
      triggerPrice: 0n,
      state: '{}',
      id: this.deps.ids.triggers.take(),
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
    this.s.triggers.set(row.id, { row, owner });
    this.s.admitted(row);
    if (row.clientTriggerId !== null) this.s.triggerByClientId.set(`${owner.id}:${row.clientTriggerId}`, row.id);
    this.s.triggerEvent(ws, row, 'CREATED', nowNs);
    const children: LadderChild[] = [];
    for (const [i, c] of checked.entries()) {
      const { row: child } = this.deps.core.placeOrderRow(ws, { account: owner, market, v: c.v, input: { order: c.order }, now, nowNs, origin: { triggerId: row.id, triggerType: 'LADDER', childSeq: i + 1 } }, c.checked);
      // A level that is not post-only may fill as it is placed: its progress counts from there.
      children.push({ id: child.id.toString(), orderId: child.publicId, price: (levels[i] as { price: bigint }).price.toString(), qty: (levels[i] as { qty: bigint }).qty.toString(), filledQty: child.cumQty.toString(), done: !child.isOpen });
      this.s.triggerEvent(ws, row, 'CHILD_PLACED', nowNs, { childOrderId: child.id, childOrderPublicId: child.publicId, childSeq: i + 1 });
      if (child.cumQty > 0n) this.s.triggerEvent(ws, row, 'CHILD_FILLED', nowNs, { childOrderId: child.id, childOrderPublicId: child.publicId, childSeq: i + 1 });
    }
    Object.assign(row, { state: JSON.stringify({ children }), lastChildSeq: children.length, cumFilledQty: children.reduce((a, c) => a + BigInt(c.filledQty), 0n) });
    if (children.every((c) => c.done)) this.s.endTrigger(ws, row, { status: 'COMPLETED' }, now, nowNs);
    else ws.trigger(row);
    return { row: { ...row }, existing: false };
  }

  /** A ladder's child changed (a fill, or its end): the ladder's progress follows; it completes when every child has ended. */
  childChanged(ws: WriteSet, child: OrderRow, now: Date, nowNs: bigint): void {
    const live = this.s.triggers.get(child.originTriggerId as bigint);
    if (!live || live.row.triggerType !== 'LADDER' || live.row.status !== 'RUNNING') return;
    const { row } = live;
    const state = JSON.parse(row.state) as { children?: LadderChild[] };
    const mine = state.children?.find((c) => c.id === child.id.toString());
    // A replaced level is followed through its replacement (`childReplaced`), not ended.
    if (!mine || child.closeReason === 'REPLACED') return;
    // A replacement's fill counts its predecessors'; a modify may have changed the level's size.
    mine.filledQty = (child.inheritedCumQty + child.cumQty).toString();
    mine.qty = child.origQty.toString();
    mine.done = !child.isOpen;
    const children = state.children as LadderChild[];
    Object.assign(row, { state: JSON.stringify(state), cumFilledQty: children.reduce((a, c) => a + BigInt(c.filledQty), 0n), updatedAt: now, version: row.version + 1 });
    if (!mine.done && child.cumQty > 0n) this.s.triggerEvent(ws, row, 'CHILD_FILLED', nowNs, { childOrderId: child.id, childOrderPublicId: child.publicId, childSeq: child.childSeq });
    if (children.every((c) => c.done)) return this.s.endTrigger(ws, row, { status: 'COMPLETED' }, now, nowNs);
    ws.trigger(row);
  }

  /**
   * A level was replaced (a new order of its lineage, which carries the ladder as its
   * origin): the ladder follows the replacement in its place, with what the lineage filled.
   */
  childReplaced(ws: WriteSet, oldId: bigint, replacement: OrderRow, now: Date): void {
    const live = this.s.triggers.get(replacement.originTriggerId as bigint);
    if (!live || live.row.triggerType !== 'LADDER') return;
    const { row } = live;
    const state = JSON.parse(row.state) as { children?: LadderChild[] };
    const mine = state.children?.find((c) => c.id === oldId.toString());
    if (!mine) return;
    Object.assign(mine, { id: replacement.id.toString(), orderId: replacement.publicId, price: replacement.price.toString(), qty: replacement.origQty.toString(), filledQty: replacement.inheritedCumQty.toString(), done: false });
    Object.assign(row, { state: JSON.stringify(state), updatedAt: now, version: row.version + 1 });
    ws.trigger(row);
  }

  cancelChildren(ws: WriteSet, row: TriggerRow, why: UserCancel, now: Date, nowNs: bigint): number {
    const market = this.deps.markets.marketById(row.symbolId) as Market;
    const children = (JSON.parse(row.state) as { children?: LadderChild[] }).children ?? [];
    return this.deps.core.cancelOpen(ws, market, children.map((c) => BigInt(c.id)), why, now, nowNs);
  }
}
