import { z } from 'zod';
import { decimalToBigInt, formatScaled } from '../domain/money.ts';
import { formatRfc3339Ns } from '../domain/time.ts';
import type { Distribution } from '../domain/triggers/index.ts';
import { FeeAsset, Side, StpMode, TriggerCancelReason, TriggerDirection, TriggerFailureReason, TriggerPriceSource, TriggerStatus, TriggerType } from '../generated/prisma/enums.ts';
import type { Market } from '../services/markets.ts';
import type { TriggerLike } from '../services/trading/index.ts';
import { decimal18, int64String, nextPageToken, orEmpty, rfc3339 } from './scalars.ts';

/** A trigger as the trading service answers it: the engine's or the stored row, its pair and its account's public id. */
export interface TriggerView {
  trigger: TriggerLike & { parentOrder?: { publicId: string } | null };
  market: Market;
  account: string;
}

const price = z.string().describe('Decimal price (Q9); empty when none');
const baseQty = z.string().describe('Decimal quantity in the pair\'s base scale');
const ticks = z.string().describe('Whole number of Q9 ticks');
const rfc3339OrEmpty = z.string().describe('RFC 3339 timestamp; empty when not yet');
const side = z.enum(Side);

const childSchema = z.union([
  z.strictObject({ limit: z.strictObject({ price, postOnly: z.boolean() }) }),
  z.strictObject({ marketIoc: z.strictObject({ maxSlippageTicks: z.number().int().optional(), maxSlippageBps: z.number().int().optional() }) }),
]);
/** stopLoss and takeProfit. */
const stopBlockSchema = z.strictObject({ side, triggerPrice: price, child: childSchema });

const trailingStopSchema = z.strictObject({
  side,
  activationPrice: price,
  trailingDistanceTicks: ticks.optional(),
  trailingDistanceBps: z.number().int().optional(),
  maxSlippageTicks: z.number().int().optional(),
  maxSlippageBps: z.number().int().optional(),
});

const twapSchema = z.strictObject({
  side,
  durationMs: z.number().int(),
  intervalMs: z.number().int(),
  limitPrice: price,
  maxAdverseBps: z.number().int().optional(),
  maxAdverseTicks: ticks.optional(),
});

const ladderSchema = z.strictObject({
  side,
  levels: z.number().int(),
  minPrice: price,
  maxPrice: price,
  distribution: z.enum(['FLAT', 'ASCENDING', 'DESCENDING'] satisfies Distribution[]),
  postOnly: z.boolean(),
});

const stateSchema = z.strictObject({
  firePx: price,
  cumFilledQty: baseQty,
  childOrders: z.number().int().describe('Child orders placed so far'),
  held: decimal18.describe('Funds the trigger holds, 18 decimals'),
  ladder: z
    .strictObject({
      levelsWithFills: z.number().int(),
      levelsFilled: z.number().int(),
      levels: z.array(z.strictObject({ orderId: z.string(), price, qty: baseQty, filledQty: baseQty, done: z.boolean() })),
    })
    .optional(),
  twap: z
    .strictObject({
      sliceIndex: z.number().int().describe('Zero-based'),
      plannedSlices: z.number().int(),
      skippedSlices: z.number().int(),
      startPrice: price,
      slicePrice: price,
      nextSliceAtTsNs: z.string().describe('Epoch nanoseconds; empty once the TWAP ended'),
    })
    .optional(),
  trailing: z
    .strictObject({
      active: z.boolean(),
      peakPrice: price.optional().describe('SELL trailing stops'),
      troughPrice: price.optional().describe('BUY trailing stops'),
      currentThreshold: price,
    })
    .optional(),
});

/** Spec 2.8: the trigger, its `stop` condition, its one strategy block and its runtime state. */
export const triggerSchema = z.strictObject({
  triggerId: z.string(),
  clientTriggerId: z.string(),
  subaccountId: z.string(),
  symbol: z.string(),
  triggerType: z.enum(TriggerType),
  status: z.enum(TriggerStatus),
  qty: baseQty,
  feeAsset: z.enum(FeeAsset),
  stpMode: z.enum(StpMode),
  parentOrderId: z.string().describe('The order an attached-risk trigger protects; empty for a standalone trigger'),
  cancelReason: orEmpty(TriggerCancelReason),
  failureReason: orEmpty(TriggerFailureReason),
  createdAt: rfc3339,
  updatedAt: rfc3339,
  armedAt: rfc3339OrEmpty,
  completedAt: rfc3339OrEmpty,
  acceptedAtTsNs: int64String.describe('Epoch nanoseconds'),
  expireAt: rfc3339.optional(),
  stop: z.strictObject({ triggerDirection: orEmpty(TriggerDirection), triggerPrice: price, triggerPriceSource: z.enum(TriggerPriceSource) }),
  stopLoss: stopBlockSchema.optional(),
  takeProfit: stopBlockSchema.optional(),
  trailingStop: trailingStopSchema.optional(),
  twap: twapSchema.optional(),
  ladder: ladderSchema.optional(),
  state: stateSchema,
  version: z.number().int(),
});

type PresentedTrigger = z.infer<typeof triggerSchema>;

export const triggerEnvelopeSchema = z.strictObject({ trigger: triggerSchema });
export const triggersSchema = z.strictObject({ triggers: z.array(triggerSchema), nextPageToken });

const jsonOf = (v: unknown): Record<string, unknown> => (typeof v === 'string' ? (JSON.parse(v) as Record<string, unknown>) : ((v ?? {}) as Record<string, unknown>));

export function presentTrigger({ trigger: t, market, account }: TriggerView): PresentedTrigger {
  const px = (p: bigint | null) => (p === null ? '' : formatScaled(p, 9));
  const child: z.infer<typeof childSchema> =
    t.childKind === 'LIMIT'
      ? { limit: { price: px(t.childLimitPrice), postOnly: t.childPostOnly } }
      : { marketIoc: { ...(t.maxSlippageTicks !== null ? { maxSlippageTicks: t.maxSlippageTicks } : {}), ...(t.maxSlippageBps !== null ? { maxSlippageBps: t.maxSlippageBps } : {}) } };
  const block = { side: t.side, triggerPrice: px(t.triggerPrice), child };
  const params = jsonOf(t.params);
  const state = jsonOf(t.state);
  const trailing = t.triggerType === 'TRAILING_STOP';
  const twap = t.triggerType === 'TWAP';
  const ladder = t.triggerType === 'LADDER';
  const q9 = (v: unknown) => (typeof v === 'string' ? formatScaled(BigInt(v), 9) : '');
  const base = (v: bigint) => formatScaled(v, market.baseQuantityScale);
  const strategy = (): Pick<PresentedTrigger, 'stopLoss' | 'takeProfit' | 'trailingStop' | 'twap' | 'ladder'> => {
    if (ladder) {
      return {
        ladder: {
          side: t.side,
          levels: params.levels as number,
          minPrice: q9(params.minPrice),
          maxPrice: q9(params.maxPrice),
          distribution: params.distribution as Distribution,
          postOnly: params.postOnly === true,
        },
      };
    }
    if (twap) {
      return {
        twap: {
          side: t.side,
          durationMs: params.durationMs as number,
          intervalMs: params.intervalMs as number,
          limitPrice: q9(params.limitPrice),
          ...(params.maxAdverseBps !== null ? { maxAdverseBps: params.maxAdverseBps as number } : { maxAdverseTicks: String(params.maxAdverseTicks) }),
        },
      };
    }
    if (trailing) {
      return {
        trailingStop: {
          side: t.side,
          activationPrice: q9(params.activationPrice),
          ...(params.trailingDistanceTicks ? { trailingDistanceTicks: String(params.trailingDistanceTicks) } : { trailingDistanceBps: params.trailingDistanceBps as number }),
          ...(t.maxSlippageTicks !== null ? { maxSlippageTicks: t.maxSlippageTicks } : {}),
          ...(t.maxSlippageBps !== null ? { maxSlippageBps: t.maxSlippageBps } : {}),
        },
      };
    }
    return t.triggerType === 'STOP_LOSS' ? { stopLoss: block } : { takeProfit: block };
  };
  const ladderState = () => {
    const children = (state.children ?? []) as { orderId: string; price: string; qty: string; filledQty: string; done: boolean }[];
    return {
      levelsWithFills: children.filter((c) => c.filledQty !== '0').length,
      levelsFilled: children.filter((c) => c.qty === c.filledQty).length,
      levels: children.map((c) => ({ orderId: c.orderId, price: q9(c.price), qty: base(BigInt(c.qty)), filledQty: base(BigInt(c.filledQty)), done: c.done })),
    };
  };
  return {
    triggerId: t.publicId,
    clientTriggerId: t.clientTriggerId ?? '',
    subaccountId: account,
    symbol: market.symbol,
    triggerType: t.triggerType,
    status: t.status,
    qty: base(t.qty),
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
    // TWAPs and ladders have no price condition; a trailing stop's trigger price is its current threshold, absent until it is active.
    stop:
      twap || ladder
        ? { triggerDirection: '', triggerPrice: '', triggerPriceSource: 'LAST_PRICE' }
        : { triggerDirection: t.triggerDirection ?? '', triggerPrice: trailing && state.active !== true ? '' : px(t.triggerPrice), triggerPriceSource: 'LAST_PRICE' },
    ...strategy(),
    state: {
      firePx: px(t.firePx),
      cumFilledQty: base(t.cumFilledQty),
      childOrders: t.lastChildSeq,
      held: formatScaled(decimalToBigInt(t.heldE18), 18),
      ...(ladder ? { ladder: ladderState() } : {}),
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

/** POST /v1/triggers (spec 4.6). */
export const triggerAcceptedSchema = z.strictObject({
  triggerId: z.string(),
  clientTriggerId: z.string().describe('Echoed; empty when none was given'),
  acceptedAt: rfc3339,
  acceptedAtTsNs: int64String.describe('Epoch nanoseconds'),
});

export function presentTriggerAccepted({ trigger: t }: Pick<TriggerView, 'trigger'>): z.infer<typeof triggerAcceptedSchema> {
  return { triggerId: t.publicId, clientTriggerId: t.clientTriggerId ?? '', acceptedAt: t.createdAt.toISOString(), acceptedAtTsNs: t.acceptedAtTsNs.toString() };
}

/** POST /v1/triggers/cancel-all. */
export const triggersCanceledSchema = z.strictObject({
  canceledTriggerIds: z.array(z.string()),
  canceledCount: z.number().int(),
  ts: rfc3339,
  tsNs: int64String.describe('Epoch nanoseconds'),
});

export function presentTriggersCanceled(r: { canceledTriggerIds: string[]; ts: Date; tsNs: bigint }): z.infer<typeof triggersCanceledSchema> {
  return { canceledTriggerIds: r.canceledTriggerIds, canceledCount: r.canceledTriggerIds.length, ts: r.ts.toISOString(), tsNs: r.tsNs.toString() };
}
