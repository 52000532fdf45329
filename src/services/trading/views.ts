import { decimalToBigInt, formatScaled } from '../../domain/money.ts';
import { formatRfc3339Ns } from '../../domain/time.ts';
import type { Order } from '../../generated/prisma/client.ts';
import type { AttachedRiskLegStatus } from '../../generated/prisma/enums.ts';
import type { Market } from '../markets.ts';
import type { OrderRow, RiskLegRow, TradeRow, TriggerEventRow, TriggerRow } from './writeSet.ts';

type Decimalish = bigint | { toFixed(digits?: number): string };

/** A stored order or the engine's in-memory row: both render the same way. */
export type OrderLike = Omit<OrderRow, 'cumNotionalQ9' | 'inheritedNotionalQ9' | 'heldE18'> & {
  cumNotionalQ9: Decimalish;
  inheritedNotionalQ9: Decimalish;
  batchRequestId?: string | null;
  originScope?: Order['originScope'];
  originTriggerType?: Order['originTriggerType'];
  childSeq?: number;
  /** Resolved by queries/originRefs.ts; absent (rendered "") for direct orders. */
  originTriggerPublicId?: string;
  originParentOrderPublicId?: string;
};

export type TradeLike = Omit<TradeRow, 'fee' | 'transferId'> & { fee: Decimalish; referralShare?: Decimalish };

/** An attached-risk leg as stored: the submitted policy plus the state of the trigger executing it (queries/getOpenOrders.ts legsOf). */
export type RiskLegView = Omit<RiskLegRow, 'orderId' | 'status' | 'triggerId'> & {
  status: AttachedRiskLegStatus;
  armedAt: Date | null;
  terminalAt: Date | null;
  triggerPublicId?: string;
  childOrderPublicId?: string;
};

/** A trigger as the engine keeps it or as stored: both render the same way. */
export type TriggerLike = Omit<TriggerRow, 'heldE18' | 'triggerDirection' | 'triggerPrice' | 'params' | 'state'> & {
  heldE18: Decimalish;
  triggerDirection: TriggerRow['triggerDirection'] | null;
  triggerPrice: bigint | null;
  /** JSON text (the engine) or parsed JSON (the table). */
  params: unknown;
  state: unknown;
};

const jsonOf = (v: unknown): Record<string, unknown> => (typeof v === 'string' ? (JSON.parse(v) as Record<string, unknown>) : ((v ?? {}) as Record<string, unknown>));

/** Spec 2.8: the trigger, its `stop` condition, its strategy block and its runtime state. */
export function triggerView(t: TriggerLike & { parentOrder?: { publicId: string } | null }, market: Market, subaccountId: string) {
  const price = (p: bigint | null) => (p === null ? '' : formatScaled(p, 9));
  const child =
    t.childKind === 'LIMIT'
      ? { limit: { price: price(t.childLimitPrice), postOnly: t.childPostOnly } }
      : { marketIoc: { ...(t.maxSlippageTicks !== null ? { maxSlippageTicks: t.maxSlippageTicks } : {}), ...(t.maxSlippageBps !== null ? { maxSlippageBps: t.maxSlippageBps } : {}) } };
  const block = { side: t.side, triggerPrice: price(t.triggerPrice), child };
  const params = jsonOf(t.params);
  const state = jsonOf(t.state);
  const trailing = t.triggerType === 'TRAILING_STOP';
  const twap = t.triggerType === 'TWAP';
  const ladder = t.triggerType === 'LADDER';
  const q9 = (v: unknown) => (typeof v === 'string' ? formatScaled(BigInt(v), 9) : '');
  const trailingBlock = {
    side: t.side,
    activationPrice: q9(params.activationPrice),
    ...(params.trailingDistanceTicks ? { trailingDistanceTicks: String(params.trailingDistanceTicks) } : { trailingDistanceBps: params.trailingDistanceBps as number }),
    ...(t.maxSlippageTicks !== null ? { maxSlippageTicks: t.maxSlippageTicks } : {}),
    ...(t.maxSlippageBps !== null ? { maxSlippageBps: t.maxSlippageBps } : {}),
  };
  return {
    triggerId: t.publicId,
    clientTriggerId: t.clientTriggerId ?? '',
    subaccountId,
    symbol: market.symbol,
    triggerType: t.triggerType,
    status: t.status,
    qty: formatScaled(t.qty, market.baseQuantityScale),
    feeAsset: t.feeAsset,
    stpMode: t.stpMode,
    parentOrderId: t.parentOrder?.publicId ?? '',
    cancelReason: t.cancelReason ?? '',
    failureReason: t.failureReason ?? '',
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
    armedAt: t.armedAt?.toISOString() ?? '',
    completedAt: t.completedAt?.toISOString() ?? '',
    acceptedAtTsNs: t.acceptedAtTsNs.toString(),
    ...(typeof params.expireAtTsNs === 'string' ? { expireAt: formatRfc3339Ns(BigInt(params.expireAtTsNs)) } : {}),
    // A trailing stop's trigger price is its current threshold: absent until it is active.
    // A TWAP has no price condition; a trailing stop's trigger price is its current threshold, absent until active.
    stop: twap || ladder
      ? { triggerDirection: '', triggerPrice: '', triggerPriceSource: 'LAST_PRICE' as const }
      : { triggerDirection: t.triggerDirection ?? '', triggerPrice: trailing && state.active !== true ? '' : price(t.triggerPrice), triggerPriceSource: 'LAST_PRICE' as const },
    ...(ladder
      ? {
          ladder: {
            side: t.side,
            levels: params.levels as number,
            minPrice: q9(params.minPrice),
            maxPrice: q9(params.maxPrice),
            distribution: params.distribution as string,
            postOnly: params.postOnly === true,
          },
        }
      : twap
      ? {
          twap: {
            side: t.side,
            durationMs: params.durationMs as number,
            intervalMs: params.intervalMs as number,
            limitPrice: q9(params.limitPrice),
            ...(params.maxAdverseBps !== null ? { maxAdverseBps: params.maxAdverseBps as number } : { maxAdverseTicks: String(params.maxAdverseTicks) }),
          },
        }
      : trailing
        ? { trailingStop: trailingBlock }
        : t.triggerType === 'STOP_LOSS'
          ? { stopLoss: block }
          : { takeProfit: block }),
    state: {
      firePx: t.firePx !== null ? price(t.firePx) : '',
      cumFilledQty: formatScaled(t.cumFilledQty, market.baseQuantityScale),
      childOrders: t.lastChildSeq,
      held: formatScaled(decimalToBigInt(t.heldE18), 18),
      ...(ladder
        ? {
            ladder: (() => {
              const children = (state.children ?? []) as { orderId: string; price: string; qty: string; filledQty: string; done: boolean }[];
              return {
                levelsWithFills: children.filter((c) => c.filledQty !== '0').length,
                levelsFilled: children.filter((c) => c.qty === c.filledQty).length,
                levels: children.map((c) => ({ orderId: c.orderId, price: q9(c.price), qty: formatScaled(BigInt(c.qty), market.baseQuantityScale), filledQty: formatScaled(BigInt(c.filledQty), market.baseQuantityScale), done: c.done })),
              };
            })(),
          }
        : {}),
      ...(twap
        ? {
            twap: {
              sliceIndex: state.sliceIndex as number,
              plannedSlices: params.plannedSlices as number,
              skippedSlices: state.skippedSlices as number,
              startPrice: q9(params.startPrice),
              // The bound of the last slice run (each measured from the price as it started), or of the first before it runs.
              slicePrice: q9(state.slicePrice ?? params.slicePrice),
              nextSliceAtTsNs: t.terminalAt ? '' : String(state.nextSliceAtTsNs),
            },
          }
        : {}),
      ...(trailing
        ? {
            trailing: {
              active: state.active === true,
              ...(t.side === 'SELL' ? { peakPrice: q9(state.extreme) } : { troughPrice: q9(state.extreme) }),
              currentThreshold: q9(state.threshold),
            },
          }
        : {}),
    },
    version: t.version,
  };
}

/** Spec 2.9: one trigger event. */
export function triggerEventView(
  e: Pick<TriggerEventRow, 'eventType' | 'triggerType' | 'childSeq' | 'firePx' | 'cancelReason' | 'failureReason' | 'tsNs'>,
  trigger: { publicId: string },
  market: Market,
  subaccountId: string,
  childOrderId: string | null,
) {
  return {
    eventType: e.eventType,
    triggerId: trigger.publicId,
    triggerType: e.triggerType,
    subaccountId,
    symbol: market.symbol,
    childOrderId: childOrderId ?? '',
    childSeq: e.childSeq,
    ...(e.firePx !== null ? { firePx: formatScaled(e.firePx, 9) } : {}),
    cancelReason: e.cancelReason ?? '',
    failureReason: e.failureReason ?? '',
    tsNs: e.tsNs.toString(),
  };
}
