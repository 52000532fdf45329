import { z } from 'zod';
import { decimalToBigInt, formatScaled } from '../domain/money.ts';
import { formatRfc3339Ns } from '../domain/time.ts';
import { FeeAsset, OrderOriginScope, OrderStatus, OrderType, Side, StpMode, TimeInForce, TriggerType } from '../generated/prisma/enums.ts';
import type { Market } from '../services/markets.ts';
import type { OrderLike } from '../services/trading/index.ts';
import { attachedRiskSchema, type AttachedRisk } from './attachedRisk.ts';
import { nextPageToken, rfc3339 } from './scalars.ts';

const price = z.string().describe('Decimal price (Q9)');
const baseQty = z.string().describe('Decimal, the pair’s base_quantity_scale');

/** Spec 2.7: `generation` is one-based; `id` is the first generation's order id. */
export const lineageSchema = z.strictObject({ generation: z.number().int(), id: z.string() });

const originSchema = z.strictObject({
  scope: z.enum(OrderOriginScope),
  parentOrderId: z.string().describe('For an attached-risk leg’s child: the order the leg protects; empty otherwise'),
  triggerId: z.string().describe('The trigger that placed the order; empty for a direct order'),
  triggerType: z.enum({ TRIGGER_TYPE_UNSPECIFIED: 'TRIGGER_TYPE_UNSPECIFIED', ...TriggerType }),
  childSeq: z.number().int().describe('One-based within the trigger; 0 for a direct order'),
});

/** Spec 2.7. */
export const orderSchema = z.strictObject({
  orderId: z.string(),
  clientOrderId: z.string().describe('Empty when none'),
  symbol: z.string(),
  side: z.enum(Side),
  orderType: z.enum(OrderType),
  status: z.enum(OrderStatus),
  tif: z.enum(TimeInForce),
  price: price.describe('Limit price (Q9); 0 for a MARKET order'),
  origQty: baseQty.describe('Current accepted total quantity, across the lineage'),
  cumQty: baseQty.describe('Filled across the lineage through this generation'),
  leavesQty: baseQty,
  inheritedCumQty: baseQty,
  avgPx: price.describe('Average execution price across the lineage; 0 without fills'),
  feeAsset: z.enum(FeeAsset),
  postOnly: z.boolean(),
  stpMode: z.enum(StpMode),
  expireAt: z.string().optional().describe('GTD orders only: RFC 3339, exact to the nanosecond'),
  createdAt: rfc3339,
  batchRequestId: z.string().describe('The batch replace that admitted it; "0" for other origins'),
  lineage: lineageSchema,
  origin: originSchema,
  marketClientRefPrice: price.optional(),
  marketMaxSlippageBps: z.number().int().optional(),
  marketMaxSlippageTicks: z.number().int().describe('0: no absolute cap'),
  submittedMaxQuoteDebit: z.string().optional().describe('Present only when that sizing was submitted; the pair’s quote_quantity_scale'),
  version: z.number().int().describe('Starts at 1; increases with every published state change'),
  attachedRisk: attachedRiskSchema.optional().describe('Only when includeAttachedRisk or includeAttachedRiskState is set'),
});

export type OrderJson = z.infer<typeof orderSchema>;

/** The order row (stored, or as the engine holds it) in the pair's scales. */
export function presentOrder(o: OrderLike, market: Market, attachedRisk?: AttachedRisk): OrderJson {
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
    cumQty: formatScaled(lineageQty, bs),
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
    marketMaxSlippageTicks: o.marketMaxSlippageTicks ?? 0,
    ...(o.submittedMaxQuoteDebit !== null ? { submittedMaxQuoteDebit: formatScaled(o.submittedMaxQuoteDebit, market.quoteQuantityScale) } : {}),
    version: o.version,
    ...(attachedRisk ? { attachedRisk } : {}),
  };
}

/** GET /v1/orders/{orderId}, GET /v1/orders/by-client-order-id/{id}, POST /v1/orders/modify. */
export const orderEnvelopeSchema = z.strictObject({ order: orderSchema });

/** GET /v1/orders/open. */
export const openOrdersSchema = z.strictObject({ orders: z.array(orderSchema), nextPageToken });
