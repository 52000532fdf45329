import { errors } from '../../../domain/errorCatalogue.ts';
import { invalidArgument } from '../../../domain/errors.ts';
import { quoteNotional, type OrderBook, type PlaceOrder } from '../../../domain/matching/index.ts';
import { OrderCloseReason } from '../../../generated/prisma/enums.ts';
import type { Market } from '../../markets.ts';
import type { BalanceRef } from '../balances.ts';
import type { Owner } from '../engineTypes.ts';
import type { CreateOrderInput, ValidatedOrder } from '../orderInput.ts';
import type { OrderRow, TriggerRow } from '../writeSet.ts';

/** Per symbol: level totals mirrored from engine events, and the delta sequence. */
export type BookLevels = { bids: Map<bigint, bigint>; asks: Map<bigint, bigint>; sequence: bigint };
type CloseInfo = { status: 'FILLED' | 'CANCELED' | 'EXPIRED'; reason: OrderCloseReason | null };

export const CANCEL_REASONS: Record<string, CloseInfo> = {
  IOC_REMAINDER: { status: 'CANCELED', reason: 'IOC_REMAINDER' },
  STP: { status: 'CANCELED', reason: 'SELF_TRADE_PREVENTION' },
  EXPIRED: { status: 'EXPIRED', reason: 'GTD_EXPIRED' },
  POST_ONLY: { status: 'CANCELED', reason: OrderCloseReason.POST_ONLY_WOULD_TAKE },
  NOTIONAL_CAP: { status: 'CANCELED', reason: 'QUOTE_DEBIT_LIMIT' },
  MARKET_NO_LIQUIDITY: { status: 'CANCELED', reason: 'NO_LIQUIDITY' },
  PRICE_PROTECTION: { status: 'CANCELED', reason: 'SLIPPAGE_LIMIT' },
};

export type { CloseInfo };

export interface PlaceContext {
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
export interface CheckedPlacement {
  place: PlaceOrder;
  holdRef: BalanceRef;
  hold: bigint;
  working: bigint;
}

/** A market order's reference price (the client's, else the best opposite price) and the worst price its slippage allows. */
export function protectionPrice(engine: OrderBook, market: Market, side: 'BUY' | 'SELL', ref: bigint | undefined, ticks?: number, bps?: number): { reference: bigint; limit: bigint } {
  const reference = ref ?? (side === 'BUY' ? engine.bestAsk() : engine.bestBid());
  if (reference === null || reference === undefined) {
    throw errors.NO_REFERENCE_PRICE('no reference price: the book is empty on the opposite side', {
      violations: [{ fieldPath: 'order.marketIoc.clientRefPrice', message: 'is required when the book is empty', ruleId: 'reference-price' }],
    });
  }
  const delta = ticks !== undefined ? BigInt(ticks) * market.tickSize : (reference * BigInt(bps as number)) / 10_000n;
  const p = side === 'BUY' ? reference + delta : reference - delta;
  return { reference, limit: p > 0n ? p : 1n };
}


/** A post-only order that would take is refused whole (nothing reserved, its clientOrderId not taken). */
export function refusePostOnlyTaker(engine: OrderBook, v: ValidatedOrder, side: 'BUY' | 'SELL', nowNs: bigint): void {
  if (!v.postOnly || !engine.wouldTake(side, v.price, nowNs)) return;
  throw errors.POST_ONLY_WOULD_TAKE('a post-only order may not take liquidity: it would trade on arrival', {
    violations: [{ fieldPath: `order.${v.variant}.postOnly`, message: 'the order would trade on arrival', ruleId: 'post-only' }],
  });
}

/**
 * A modify or a replacement works a new quantity: like a new order, it must be at least
 * the market's minimum quantity and value, or book spam would cost a 1-unit order.
 */
export function checkMinimumSize(market: Market, price: bigint, working: bigint, field: string): void {
  if (working < market.minQty) throw invalidArgument(field, 'the quantity left to work is below the market minimum quantity', 'min-qty');
  if (quoteNotional(price, working, market.notional) < market.minNotional) {
    throw invalidArgument(field, 'the value left to work is below the market minimum notional', 'min-notional');
  }
}

/** A new order's first version, before it reserves or matches. */
export function newOrderRow(ctx: PlaceContext, checked: CheckedPlacement, id: bigint, publicId: string): OrderRow & { accountPublicId: string } {
  const { account, market, v, input, now, nowNs } = ctx;
  const clientOrderId = input.order.clientOrderId;
  const { place, hold, working } = checked;
  return {
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
}
