import { ApiError, errors } from '../../../domain/errorCatalogue.ts';
import { formatScaled } from '../../../domain/money.ts';
import { slicePrice, sliceQty, twapOutcome } from '../../../domain/triggers/index.ts';
import type { Market } from '../../markets.ts';
import { jobTime } from '../engineTypes.ts';
import { validateNewOrder, type CreateOrderInput } from '../orderInput.ts';
import type { Sequencer } from '../sequencer.ts';
import type { WriteSet } from '../writeSet.ts';
import type { LiveTrigger, LiveTriggers, TriggerDeps } from './liveTriggers.ts';

/** What a TWAP keeps of its request and acceptance (`params`). */
type TwapParams = { intervalMs: number; plannedSlices: number; startPrice: string; limitPrice: string | null; maxAdverseBps: number | null; maxAdverseTicks: string | null };

/** TWAPs: each runs a limit IOC slice when its time comes, until it is filled or out of slices. */
export class Twaps {
  private readonly balances: TriggerDeps['balances'];

  constructor(
    private readonly deps: TriggerDeps,
    private readonly s: LiveTriggers,
    private readonly sequencer: Sequencer,
  ) {
    this.balances = deps.balances;
  }

  /**
   * Runs the slices whose time has come (on the sweep timer): one job for all of them, each
   * slice a limit IOC child bounded by the TWAP's slice price, placed once.
   */
  async runDue(): Promise<number> {
    const nowNs = this.deps.clock.nowNs();
    const due = [...this.s.twaps].filter((id) => {
      const live = this.s.triggers.get(id);
      return live && BigInt((JSON.parse(live.row.state) as { nextSliceAtTsNs: string }).nextSliceAtTsNs) <= nowNs;
    });
    if (due.length === 0) return 0;
    return this.sequencer.submit((ws) => {
      const { now, nowNs } = jobTime(this.deps.clock);
      let ran = 0;
      for (const id of due) {
        const live = this.s.triggers.get(id);
        if (!live || !this.s.twaps.has(id)) continue;
        this.runSlice(ws, live, now, nowNs);
        ran += 1;
      }
      return ran;
    });
  }

  private runSlice(ws: WriteSet, live: LiveTrigger, now: Date, nowNs: bigint): void {
    const { row, owner } = live;
    const market = this.deps.markets.marketById(row.symbolId) as Market;
    const params = JSON.parse(row.params) as TwapParams;
    const state = JSON.parse(row.state) as { sliceIndex: number; nextSliceAtTsNs: string; skippedSlices: number; referencePrice?: string; slicePrice?: string };
    // The adverse move is bounded per slice: from the last price as this slice starts.
    const reference = this.s.lastPrice.get(row.symbolId) ?? BigInt(params.startPrice);
    const adverse = params.maxAdverseBps !== null ? { bps: params.maxAdverseBps } : { ticks: BigInt(params.maxAdverseTicks as string) };
    const price = slicePrice(row.side, reference, params.limitPrice === null ? null : BigInt(params.limitPrice), adverse, market.tickSize);
    Object.assign(state, { referencePrice: reference.toString(), slicePrice: price.toString() });
    const remaining = row.qty - row.cumFilledQty;
    const qty = sliceQty(row.qty, params.plannedSlices, remaining, params.plannedSlices - state.sliceIndex);
    this.s.releaseTriggerHold(ws, row, owner);
    const childSeq = row.lastChildSeq + 1;
    let filled = 0n;
    const order: CreateOrderInput['order'] = { symbol: market.symbol, side: row.side, baseQty: formatScaled(qty, market.baseQuantityScale), feeAsset: row.feeAsset, selfTradePreventionMode: row.stpMode, limitIoc: { price: formatScaled(price, 9) } };
    try {
      if (qty < market.minQty) throw errors.SLICE_TOO_SMALL('the slice is below the minimum quantity');
      const v = validateNewOrder({ order }, market, nowNs);
      const { row: child } = this.deps.core.placeOrderRow(ws, { account: owner, market, v, input: { order }, now, nowNs, origin: { triggerId: row.id, triggerType: row.triggerType, childSeq } });
      filled = child.cumQty;
      row.lastChildSeq = childSeq;
      this.s.triggerEvent(ws, row, 'CHILD_PLACED', nowNs, { childOrderId: child.id, childOrderPublicId: child.publicId, childSeq });
      if (filled > 0n) this.s.triggerEvent(ws, row, 'CHILD_FILLED', nowNs, { childOrderId: child.id, childOrderPublicId: child.publicId, childSeq });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      // Refused (too small, below the minimum notional, unfunded): its quantity is carried.
      state.skippedSlices += 1;
      this.s.triggerEvent(ws, row, 'SLICE_SKIPPED', nowNs, { childSeq });
    }
    state.sliceIndex += 1;
    state.nextSliceAtTsNs = (BigInt(state.nextSliceAtTsNs) + BigInt(params.intervalMs) * 1_000_000n).toString();
    Object.assign(row, { cumFilledQty: row.cumFilledQty + filled, state: JSON.stringify(state), updatedAt: now, version: row.version + 1 });
    const outcome = twapOutcome(row.qty, row.cumFilledQty);
    if (outcome === 'FILLED') return this.s.endTrigger(ws, row, { status: 'COMPLETED' }, now, nowNs), void this.s.twaps.delete(row.id);
    if (state.sliceIndex >= params.plannedSlices) {
      this.s.twaps.delete(row.id);
      // Partly filled: expired with what it did; nothing filled: failed, for want of liquidity at its price.
      return this.s.endTrigger(ws, row, outcome === 'PARTIAL' ? { status: 'EXPIRED' } : { status: 'FAILED', failureReason: 'NO_LIQUIDITY' }, now, nowNs);
    }
    // What is left stays held; never more than is there (reservations round up).
    const { ref, hold } = this.s.triggerReservation(owner, market, { ...row, qty: row.qty - row.cumFilledQty, childLimitPrice: price });
    const spendable = this.balances.spendable(ref, now.getTime());
    const amount = hold < spendable ? hold : spendable;
    if (amount > 0n) this.balances.hold(ws, ref, amount);
    row.heldE18 = amount;
    ws.trigger(row);
  }
}
