import { decimalToBigInt, formatScaled } from '../../domain/money.ts';
import { formatRfc3339Ns } from '../../domain/time.ts';
import { presentTrigger } from '../../presenters/trigger.ts';
import { presentTriggerEvent } from '../../presenters/triggerEvent.ts';
import type { Order } from '../../generated/prisma/client.ts';
import type { Asset, Market } from '../markets.ts';
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

/**
 * The spec's resource shapes (2.7 order, 2.10 trade) as JSON-ready values: decimal
 * strings in the pair's scales, RFC 3339 times. REST answers them as they are; GraphQL
 * and subscriptions expose the same fields.
 */
/** Spec 2.7, rendered from the stored row. */
export function orderView(o: OrderLike, market: Market) {
  // Across the lineage, as cumQty (spec 2.7).
  const lineageQty = o.inheritedCumQty + o.cumQty;
  const avg = lineageQty > 0n ? (decimalToBigInt(o.inheritedNotionalQ9) + decimalToBigInt(o.cumNotionalQ9)) / lineageQty : 0n;
  const bs = market.baseQuantityScale;
  return {
    orderId: o.publicId,
    clientOrderId: o.clientOrderId ?? '',
    symbol: market.symbol,
    side: o.side,
    orderType: o.orderType,
    status: o.status,
    tif: o.tif,
    price: formatScaled(o.price, 9),
    origQty: formatScaled(o.origQty, bs),
    cumQty: formatScaled(o.inheritedCumQty + o.cumQty, bs),
    leavesQty: formatScaled(o.leavesQty, bs),
    inheritedCumQty: formatScaled(o.inheritedCumQty, bs),
    avgPx: formatScaled(avg, 9),
    feeAsset: o.feeAsset,
    postOnly: o.postOnly,
    stpMode: o.stpMode,
    ...(o.expireAtTsNs !== null ? { expireAt: formatRfc3339Ns(o.expireAtTsNs) } : {}),
    createdAt: o.createdAt.toISOString(),
    batchRequestId: o.batchRequestId ?? '0',
    lineage: { generation: o.generation, id: o.lineageId },
    origin: {
      scope: o.originScope ?? 'DIRECT',
      parentOrderId: o.originParentOrderPublicId ?? '',
      triggerId: o.originTriggerPublicId ?? '',
      triggerType: o.originTriggerType ?? 'TRIGGER_TYPE_UNSPECIFIED',
      childSeq: o.childSeq ?? 0,
    },
    ...(o.marketClientRefPrice !== null ? { marketClientRefPrice: formatScaled(o.marketClientRefPrice, 9) } : {}),
    ...(o.marketMaxSlippageBps !== null ? { marketMaxSlippageBps: o.marketMaxSlippageBps } : {}),
    ...(o.orderType === 'MARKET' ? { marketMaxSlippageTicks: o.marketMaxSlippageTicks ?? 0 } : {}),
    ...(o.submittedMaxQuoteDebit !== null ? { submittedMaxQuoteDebit: formatScaled(o.submittedMaxQuoteDebit, market.quoteQuantityScale) } : {}),
    version: o.version,
  };
}

export function tradeView(t: TradeLike, market: Market, orderPublicId: string) {
  return {
    matchId: t.matchId.toString(),
    orderId: orderPublicId,
    lineage: { generation: t.generation, id: t.lineageId },
    symbol: market.symbol,
    side: t.side,
    price: formatScaled(t.price, 9),
    qty: formatScaled(t.qty, market.baseQuantityScale),
    isMaker: t.isMaker,
    fee: formatScaled(decimalToBigInt(t.fee), 18),
    feeAsset: t.feeAsset,
    feeIsRebate: t.feeIsRebate,
    referralShare: formatScaled(decimalToBigInt(t.referralShare ?? 0n), 18),
    executedAt: t.executedAt.toISOString(),
  };
}


/** A stored leg: the submitted policy plus the state the trigger engine maintains. */
type LegLike = Omit<RiskLegRow, 'orderId' | 'status' | 'triggerId'> & { status: string; armedAt: Date | null; terminalAt: Date | null; triggerPublicId?: string; childOrderPublicId?: string };

/** Spec 2.7 `attachedRisk`: each leg's `policy` and/or `state`, as requested. */
export function attachedRiskView(oco: boolean, legs: LegLike[], include: { policy: boolean; state: boolean }) {
  const price = (p: bigint | null) => (p === null ? undefined : formatScaled(p, 9));
  const child = (l: LegLike) => (l.childKind === 'LIMIT' ? { limit: { price: price(l.childLimitPrice), postOnly: l.childPostOnly } } : { marketIoc: {} });
  const policy = (l: LegLike) =>
    l.kind === 'TRAILING_STOP'
      ? {
          ...(l.activationPrice !== null ? { activationPrice: price(l.activationPrice) } : {}),
          ...(l.maxSlippageTicks !== null ? { maxSlippageTicks: l.maxSlippageTicks } : {}),
          ...(l.maxSlippageBps !== null ? { maxSlippageBps: l.maxSlippageBps } : {}),
          ...(l.trailingDistanceTicks !== null ? { trailingDistanceTicks: l.trailingDistanceTicks.toString() } : {}),
          ...(l.trailingDistanceBps !== null ? { trailingDistanceBps: l.trailingDistanceBps } : {}),
        }
      : { triggerPrice: price(l.triggerPrice), child: child(l) };
  const state = (l: LegLike) => ({
    armedAt: l.armedAt?.toISOString() ?? '0',
    childOrderId: l.childOrderPublicId ?? '',
    status: l.status,
    terminalAt: l.terminalAt?.toISOString() ?? '0',
    triggerId: l.triggerPublicId ?? '',
  });
  const leg = (kind: LegLike['kind']) => {
    // The newest of its kind: a leg replaced (POST /v1/orders/attached-risk) gives way to its successor.
    const l = legs.findLast((x) => x.kind === kind);
    return l ? { ...(include.policy ? { policy: policy(l) } : {}), ...(include.state ? { state: state(l) } : {}) } : undefined;
  };
  const stopLoss = leg('STOP_LOSS');
  const takeProfit = leg('TAKE_PROFIT');
  const trailingStop = leg('TRAILING_STOP');
  return { oco, ...(stopLoss ? { stopLoss } : {}), ...(takeProfit ? { takeProfit } : {}), ...(trailingStop ? { trailingStop } : {}) };
}

/** One order-book price level as decimal strings (snapshots and deltas alike). */
export function levelView<L extends { price: bigint; qty: bigint }>(level: L, market: Market): Omit<L, 'price' | 'qty'> & { price: string; qty: string } {
  return { ...level, price: formatScaled(level.price, 9), qty: formatScaled(level.qty, market.baseQuantityScale) };
}

/** GET /v1/spot/config's market (our shape, docs/api-decisions.md). */
export function spotMarketView(m: Market) {
  return {
    symbol: m.symbol,
    symbolId: m.symbolId,
    baseAsset: m.base.symbol,
    baseAssetId: m.base.unifiedAssetId,
    quoteAsset: m.quote.symbol,
    quoteAssetId: m.quote.unifiedAssetId,
    base_quantity_scale: m.baseQuantityScale,
    quote_quantity_scale: m.quoteQuantityScale,
    tickSize: formatScaled(m.tickSize, 9),
    tickSizeQ9: m.tickSize.toString(),
    minQty: formatScaled(m.minQty, m.baseQuantityScale),
    minNotional: formatScaled(m.minNotional, m.quoteQuantityScale),
    fees: m.makerFeePpm.map((maker, vipTier) => ({ vipTier, makerFeePpm: maker, takerFeePpm: m.takerFeePpm[vipTier] as number })),
  };
}

export function spotConfigView(catalog: { assets: readonly Asset[]; markets: readonly Market[] }) {
  return {
    assets: catalog.assets.map((a) => ({ unifiedAssetId: a.unifiedAssetId, symbol: a.symbol, decimals: a.decimals })),
    markets: catalog.markets.map(spotMarketView),
  };
}

/** A public trade: the recent-trades list and the public stream alike. */
export function publicTradeView(p: { matchId: bigint; price: bigint; qty: bigint; takerSide: string; executedAt: Date }, market: Market) {
  return { matchId: p.matchId.toString(), price: formatScaled(p.price, 9), qty: formatScaled(p.qty, market.baseQuantityScale), takerSide: p.takerSide, executedAt: p.executedAt.toISOString() };
}

/** A trigger as the engine keeps it or as stored: both render the same way. */
export type TriggerLike = Omit<TriggerRow, 'heldE18' | 'triggerDirection' | 'triggerPrice' | 'params' | 'state'> & {
  heldE18: Decimalish;
  triggerDirection: TriggerRow['triggerDirection'] | null;
  triggerPrice: bigint | null;
  /** JSON text (the engine) or parsed JSON (the table). */
  params: unknown;
  state: unknown;
};

/**
 * The trigger shapes live in presenters/trigger.ts and presenters/triggerEvent.ts; GraphQL
 * still renders through these names until its types call the presenters (issue 28).
 */
export function triggerView(t: TriggerLike & { parentOrder?: { publicId: string } | null }, market: Market, subaccountId: string) {
  return presentTrigger({ trigger: t, market, account: subaccountId });
}

export function triggerEventView(
  e: Pick<TriggerEventRow, 'eventType' | 'triggerType' | 'childSeq' | 'firePx' | 'cancelReason' | 'failureReason' | 'tsNs'>,
  trigger: { publicId: string },
  market: Market,
  subaccountId: string,
  childOrderId: string | null,
) {
  return presentTriggerEvent({ event: e, triggerId: trigger.publicId, market, account: subaccountId, childOrderId });
}
