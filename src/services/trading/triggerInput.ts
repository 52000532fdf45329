import { directionOf, ladderLevels, trailingDistanceOf, type Distribution } from '../../domain/triggers/index.ts';
import { ApiError, errors } from '../../domain/errorCatalogue.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { quoteNotional } from '../../domain/matching/index.ts';
import { parseScaled } from '../../domain/money.ts';
import { parseRfc3339Ns } from '../../domain/time.ts';
import type { Market } from '../markets.ts';
import { MAX_EXPIRY_NS, MIN_EXPIRY_NS } from './orderInput.ts';
import type { TriggerSpec } from './triggerRules.ts';

type Child = { marketIoc?: { maxSlippageTicks?: number; maxSlippageBps?: number }; limit?: { price: string; postOnly?: boolean } };
type StopBlock = { side: 'BUY' | 'SELL'; triggerPrice: string; child: Child };
type LadderBlock = { side: 'BUY' | 'SELL'; levels: number; minPrice: string; maxPrice: string; distribution?: Distribution; postOnly?: boolean };
type TwapBlock = { side: 'BUY' | 'SELL'; durationMs: number; intervalMs: number; limitPrice?: string; maxAdverseBps?: number; maxAdverseTicks?: string };
type TrailingBlock = { side: 'BUY' | 'SELL'; activationPrice?: string; trailingDistanceTicks?: string; trailingDistanceBps?: number; maxSlippageTicks?: number; maxSlippageBps?: number };

/** Spec 4.6 Create Trigger's body (the stop-loss and take-profit strategies). */
export interface CreateTriggerInput {
  subaccountId?: string;
  trigger: {
    symbol: string;
    qty: string;
    feeAsset?: 'QUOTE' | 'BASE';
    selfTradePreventionMode?: 'EXPIRE_MAKER' | 'EXPIRE_TAKER' | 'EXPIRE_BOTH' | 'DECREMENT';
    clientTriggerId?: string;
    /** RFC 3339 with an offset: a price trigger not fired by then ends EXPIRED (as a GTD order's `expireAt`). */
    expireAt?: string;
    stopLoss?: StopBlock;
    takeProfit?: StopBlock;
    trailingStop?: TrailingBlock;
    twap?: TwapBlock;
    ladder?: LadderBlock;
  };
}

/** The one rule for a clientTriggerId, whatever the transport (REST's schema states it from here too). */
export const CLIENT_TRIGGER_ID = { maxLength: 64, pattern: /^[\x21-\x7e]+$/ } as const;

const BLOCKS = ['stopLoss', 'takeProfit', 'trailingStop', 'twap', 'ladder'] as const;

/** Checks a trigger's body against its market: exactly one strategy block, prices on the tick, quantity in lots. */
export function validateTrigger(input: CreateTriggerInput, market: Market, nowNs: bigint): TriggerSpec {
  const spec = validateBlocks(input, market);
  const at = input.trigger.expireAt;
  if (at === undefined) return spec;
  // A TWAP ends with its duration and a ladder rests GTC levels: only a price trigger waits open-ended.
  if (spec.block === 'twap' || spec.block === 'ladder') throw invalidArgument('trigger.expireAt', 'applies to stop-loss, take-profit and trailing-stop triggers only', 'expiry-kind');
  const expireAtNs = typeof at === 'string' ? parseRfc3339Ns(at) : null;
  if (expireAtNs === null) throw invalidArgument('trigger.expireAt', 'must be an RFC 3339 date-time with an offset', 'rfc3339');
  if (expireAtNs < nowNs + MIN_EXPIRY_NS || expireAtNs > nowNs + MAX_EXPIRY_NS) throw invalidArgument('trigger.expireAt', 'must be 1 second to 30 days after now', 'expiry-range');
  // Kept with the submitted parameters: a repeated clientTriggerId with another expiry is another trigger.
  return { ...spec, row: { ...spec.row, params: JSON.stringify({ ...JSON.parse(spec.row.params), expireAtTsNs: expireAtNs.toString() }) } };
}

function validateBlocks(input: CreateTriggerInput, market: Market): TriggerSpec {
  const t = input.trigger;
  const given = BLOCKS.filter((b) => t[b] !== undefined);
  if (given.length !== 1) throw invalidArgument('trigger', `exactly one of ${BLOCKS.join(', ')} is required`, 'one-of');
  const block = given[0] as (typeof BLOCKS)[number];
  const id = t.clientTriggerId;
  if (id !== undefined && (typeof id !== 'string' || id.length < 1 || id.length > CLIENT_TRIGGER_ID.maxLength || !CLIENT_TRIGGER_ID.pattern.test(id))) {
    throw invalidArgument('trigger.clientTriggerId', `must be 1 to ${CLIENT_TRIGGER_ID.maxLength} printable ASCII characters`, 'client-trigger-id');
  }
  const side = (t[block] as { side: 'BUY' | 'SELL' }).side;
  const feeAsset = t.feeAsset ?? 'QUOTE';
  if (side === 'SELL' && feeAsset !== 'QUOTE') throw invalidArgument('trigger.feeAsset', 'SELL children pay fees in QUOTE', 'sell-fee-asset');
  const qty = parseScaled(t.qty, market.baseQuantityScale, 'trigger.qty');
  if (qty < market.minQty) throw invalidArgument('trigger.qty', 'is below the market minimum quantity', 'min-qty');
  const price = (text: string, field: string) => {
    const p = parseScaled(text, 9, field);
    if (p % market.tickSize !== 0n) throw invalidArgument(field, 'is not a multiple of the tick size', 'tick-size');
    return p;
  };
  const common = { clientTriggerId: t.clientTriggerId ?? null, symbolId: market.symbolId, side, qty, feeAsset, stpMode: t.selfTradePreventionMode ?? 'EXPIRE_MAKER' } as const;
  if (block === 'trailingStop') return trailingSpec(t.trailingStop as TrailingBlock, market, common, price);
  if (block === 'twap') return twapSpec(t.twap as TwapBlock, common, price);
  if (block === 'ladder') return ladderSpec(t.ladder as LadderBlock, market, common, price);
  const stop = t[block] as StopBlock;
  const triggerPrice = price(stop.triggerPrice, `trigger.${block}.triggerPrice`);
  const child = stop.child;
  if ((child.marketIoc === undefined) === (child.limit === undefined)) {
    throw invalidArgument(`trigger.${block}.child`, 'exactly one of marketIoc and limit is required', 'one-of');
  }
  const m = child.marketIoc;
  if (m && m.maxSlippageTicks !== undefined && m.maxSlippageBps !== undefined) {
    throw invalidArgument(`trigger.${block}.child.marketIoc`, 'give at most one of maxSlippageTicks and maxSlippageBps', 'one-of');
  }
  if (m?.maxSlippageTicks !== undefined && (!Number.isInteger(m.maxSlippageTicks) || m.maxSlippageTicks <= 0)) {
    throw invalidArgument(`trigger.${block}.child.marketIoc.maxSlippageTicks`, 'must be a positive integer', 'positive');
  }
  if (m?.maxSlippageBps !== undefined && (!Number.isInteger(m.maxSlippageBps) || m.maxSlippageBps <= 0 || m.maxSlippageBps > 10_000)) {
    throw invalidArgument(`trigger.${block}.child.marketIoc.maxSlippageBps`, 'must be 1 to 10000', 'range');
  }
  const triggerType = block === 'stopLoss' ? 'STOP_LOSS' : 'TAKE_PROFIT';
  const triggerDirection = directionOf(triggerType, stop.side);
  const clientTriggerId = t.clientTriggerId ?? null;
  const childLimitPrice = child.limit ? price(child.limit.price, `trigger.${block}.child.limit.price`) : null;
  // The child would be refused for its size when it fires: refuse the trigger now instead.
  if (quoteNotional(childLimitPrice ?? triggerPrice, qty, market.notional) < market.minNotional) {
    throw invalidArgument('trigger.qty', 'its child order would be below the market minimum notional', 'min-notional');
  }
  return {
    block,
    clientTriggerId,
    triggerDirection,
    triggerPrice,
    row: {
      ...common,
      triggerType,
      params: '{}',
      triggerDirection,
      triggerPrice,
      childKind: child.limit ? 'LIMIT' : 'MARKET_IOC',
      childLimitPrice,
      childPostOnly: child.limit?.postOnly === true,
      maxSlippageTicks: m?.maxSlippageTicks ?? null,
      maxSlippageBps: m ? (m.maxSlippageTicks === undefined ? (m.maxSlippageBps ?? null) : null) : null,
    },
  };
}

/** Slippage allowance of a market child: at most one of ticks and bps, each in range. */
function slippage(field: string, m: { maxSlippageTicks?: number | undefined; maxSlippageBps?: number | undefined }) {
  if (m.maxSlippageTicks !== undefined && m.maxSlippageBps !== undefined) throw invalidArgument(field, 'give at most one of maxSlippageTicks and maxSlippageBps', 'one-of');
  if (m.maxSlippageTicks !== undefined && (!Number.isInteger(m.maxSlippageTicks) || m.maxSlippageTicks <= 0)) throw invalidArgument(`${field}.maxSlippageTicks`, 'must be a positive integer', 'positive');
  if (m.maxSlippageBps !== undefined && (!Number.isInteger(m.maxSlippageBps) || m.maxSlippageBps <= 0 || m.maxSlippageBps > 10_000)) throw invalidArgument(`${field}.maxSlippageBps`, 'must be 1 to 10000', 'range');
  return { maxSlippageTicks: m.maxSlippageTicks ?? null, maxSlippageBps: m.maxSlippageTicks === undefined ? (m.maxSlippageBps ?? null) : null };
}

/**
 * A trailing stop: it follows the peak (SELL) or trough (BUY) once the price reaches its
 * activation price (or at once without one) and fires a market child on the retrace.
 */
function trailingSpec(
  b: TrailingBlock,
  market: Market,
  common: Pick<TriggerSpec['row'], 'clientTriggerId' | 'symbolId' | 'side' | 'qty' | 'feeAsset' | 'stpMode'>,
  price: (text: string, field: string) => bigint,
): TriggerSpec {
  const field = 'trigger.trailingStop';
  const { ticks, bps } = trailingDistanceOf(field, b);
  const activationPrice = b.activationPrice !== undefined ? price(b.activationPrice, `${field}.activationPrice`) : null;
  const params = { activationPrice: activationPrice?.toString() ?? null, trailingDistanceTicks: ticks?.toString() ?? null, trailingDistanceBps: bps };
  const triggerDirection = b.side === 'SELL' ? 'BELOW' : 'ABOVE';
  return {
    block: 'trailingStop',
    clientTriggerId: common.clientTriggerId,
    triggerDirection,
    triggerPrice: 0n,
    trailing: { side: b.side, activationPrice, distance: ticks !== null ? { ticks, tickSize: market.tickSize } : { bps: bps as number } },
    row: {
      ...common,
      triggerType: 'TRAILING_STOP',
      triggerDirection,
      triggerPrice: 0n,
      childKind: 'MARKET_IOC',
      childLimitPrice: null,
      childPostOnly: false,
      ...slippage(field, b),
      params: JSON.stringify(params),
    },
  };
}

/** Bounds of a TWAP's schedule (recorded in docs/api-decisions.md). */
export const TWAP_LIMITS = { minDurationMs: 1_000, maxDurationMs: 24 * 3600 * 1000, minIntervalMs: 250, maxSlices: 10_000 } as const;

/**
 * A TWAP: `qty` worked in slices every `intervalMs` over `durationMs`, each a limit IOC at
 * a price bounded by `limitPrice` and by the maximum adverse move from the last price when
 * it was accepted.
 */
function twapSpec(b: TwapBlock, common: Pick<TriggerSpec['row'], 'clientTriggerId' | 'symbolId' | 'side' | 'qty' | 'feeAsset' | 'stpMode'>, price: (text: string, field: string) => bigint): TriggerSpec {
  const field = 'trigger.twap';
  const int = (v: number, name: string, min: number, max: number) => {
    if (!Number.isInteger(v) || v < min || v > max) throw invalidArgument(`${field}.${name}`, `must be a whole number from ${min} to ${max}`, 'range');
  };
  int(b.durationMs, 'durationMs', TWAP_LIMITS.minDurationMs, TWAP_LIMITS.maxDurationMs);
  int(b.intervalMs, 'intervalMs', TWAP_LIMITS.minIntervalMs, b.durationMs);
  const planned = Math.max(1, Math.floor(b.durationMs / b.intervalMs));
  if (planned > TWAP_LIMITS.maxSlices) throw invalidArgument(`${field}.intervalMs`, `makes more than ${TWAP_LIMITS.maxSlices} slices`, 'range');
  if ((b.maxAdverseBps === undefined) === (b.maxAdverseTicks === undefined)) throw invalidArgument(field, 'exactly one of maxAdverseBps and maxAdverseTicks is required', 'one-of');
  if (b.maxAdverseBps !== undefined) int(b.maxAdverseBps, 'maxAdverseBps', 1, 9_999);
  if (b.maxAdverseTicks !== undefined && !/^[1-9][0-9]{0,8}$/.test(b.maxAdverseTicks)) throw invalidArgument(`${field}.maxAdverseTicks`, 'must be a whole number of ticks, 1 to 999999999', 'range');
  const limitPrice = b.limitPrice !== undefined ? price(b.limitPrice, `${field}.limitPrice`) : null;
  const adverse = b.maxAdverseBps !== undefined ? { bps: b.maxAdverseBps } : { ticks: BigInt(b.maxAdverseTicks as string) };
  const params = { durationMs: b.durationMs, intervalMs: b.intervalMs, plannedSlices: planned, limitPrice: limitPrice?.toString() ?? null, maxAdverseBps: b.maxAdverseBps ?? null, maxAdverseTicks: b.maxAdverseTicks ?? null };
  return {
    block: 'twap',
    clientTriggerId: common.clientTriggerId,
    triggerDirection: b.side === 'BUY' ? 'ABOVE' : 'BELOW',
    triggerPrice: 0n,
    twap: { limitPrice, adverse },
    row: {
      ...common,
      triggerType: 'TWAP',
      triggerDirection: b.side === 'BUY' ? 'ABOVE' : 'BELOW',
      triggerPrice: 0n,
      childKind: 'LIMIT',
      childLimitPrice: null,
      childPostOnly: false,
      maxSlippageTicks: null,
      maxSlippageBps: null,
      params: JSON.stringify(params),
    },
  };
}

/** At most this many levels in one ladder (recorded in docs/api-decisions.md). */
export const MAX_LADDER_LEVELS = 50;

/**
 * A ladder: `qty` spread over `levels` post-only limit GTC orders from `minPrice` to
 * `maxPrice`, sized by `distribution`, all placed on acceptance.
 */
function ladderSpec(b: LadderBlock, market: Market, common: Pick<TriggerSpec['row'], 'clientTriggerId' | 'symbolId' | 'side' | 'qty' | 'feeAsset' | 'stpMode'>, price: (text: string, field: string) => bigint): TriggerSpec {
  const field = 'trigger.ladder';
  if (!Number.isInteger(b.levels) || b.levels < 1 || b.levels > MAX_LADDER_LEVELS) throw invalidArgument(`${field}.levels`, `must be 1 to ${MAX_LADDER_LEVELS}`, 'range');
  const min = price(b.minPrice, `${field}.minPrice`);
  const max = price(b.maxPrice, `${field}.maxPrice`);
  if (max < min) throw invalidArgument(`${field}.maxPrice`, 'must not be below minPrice', 'range');
  if ((max - min) / market.tickSize < BigInt(b.levels - 1)) throw invalidArgument(`${field}.levels`, 'the price range holds fewer ticks than levels', 'range');
  const distribution = b.distribution ?? 'FLAT';
  const levels = ladderLevels(b.levels, min, max, market.tickSize, common.qty, distribution);
  if (levels.some((l) => l.qty < market.minQty)) throw invalidArgument('trigger.qty', `is too small for ${b.levels} levels of at least the minimum quantity`, 'min-qty');
  const postOnly = b.postOnly ?? true;
  const params = { levels: b.levels, minPrice: min.toString(), maxPrice: max.toString(), distribution, postOnly };
  return {
    block: 'ladder',
    clientTriggerId: common.clientTriggerId,
    triggerDirection: common.side === 'BUY' ? 'BELOW' : 'ABOVE',
    triggerPrice: 0n,
    ladder: { levels, postOnly },
    row: {
      ...common,
      triggerType: 'LADDER',
      triggerDirection: common.side === 'BUY' ? 'BELOW' : 'ABOVE',
      triggerPrice: 0n,
      childKind: 'LIMIT',
      childLimitPrice: null,
      childPostOnly: postOnly,
      maxSlippageTicks: null,
      maxSlippageBps: null,
      params: JSON.stringify(params),
    },
  };
}

/** POST /v1/triggers/modify's changed fields, as submitted (each optional; at least one). */
export interface ModifyTriggerInput {
  triggerPrice?: string;
  childLimitPrice?: string;
  qty?: string;
  trailingDistanceTicks?: string;
  trailingDistanceBps?: number;
}

/** A trigger's amendment as validated: what changes, the rest as it is. */
export interface TriggerChange {
  triggerPrice?: bigint;
  childLimitPrice?: bigint;
  qty?: bigint;
  trailingDistance?: { ticks: bigint | null; bps: number | null };
}

const CHANGE_FIELDS = ['triggerPrice', 'childLimitPrice', 'qty', 'trailingDistanceTicks', 'trailingDistanceBps'] as const;

/**
 * Checks an amendment against the trigger it names (its kind, child and parent never
 * change) with the bounds of creation: prices on the tick and above zero, quantity in lots
 * and at least the minimum, a trailing distance within TRAILING_DISTANCE_LIMITS. A field the
 * trigger's kind does not have is refused by name (recorded in docs/api-decisions.md).
 */
export function validateTriggerChange(input: ModifyTriggerInput, market: Market, t: Pick<TriggerSpec['row'], 'triggerType' | 'childKind'> & { parentOrderId: bigint | null }): TriggerChange {
  const given = CHANGE_FIELDS.filter((f) => input[f] !== undefined);
  const first = given[0];
  if (first === undefined) throw invalidArgument('trigger', `give at least one of ${CHANGE_FIELDS.join(', ')}`, 'one-of');
  if (t.triggerType === 'TWAP' || t.triggerType === 'LADDER') {
    throw invalidArgument(first, `a ${t.triggerType} cannot be amended (its schedule or levels are already worked out): cancel it and create another`, 'not-amendable');
  }
  const trailing = t.triggerType === 'TRAILING_STOP';
  if (trailing && input.triggerPrice !== undefined) throw invalidArgument('triggerPrice', 'a trailing stop\'s trigger price follows the market: change trailingDistanceTicks or trailingDistanceBps', 'not-amendable');
  if (!trailing && (input.trailingDistanceTicks !== undefined || input.trailingDistanceBps !== undefined)) {
    throw invalidArgument(input.trailingDistanceTicks !== undefined ? 'trailingDistanceTicks' : 'trailingDistanceBps', 'only a trailing stop has a trailing distance', 'not-amendable');
  }
  if (input.childLimitPrice !== undefined && t.childKind !== 'LIMIT') throw invalidArgument('childLimitPrice', 'this trigger\'s child is a market order: it has no limit price', 'not-amendable');
  if (input.qty !== undefined && t.parentOrderId !== null) throw invalidArgument('qty', 'an attached leg\'s quantity follows its parent\'s filled quantity', 'not-amendable');
  const price = (text: string, field: string) => {
    const p = parseScaled(text, 9, field);
    if (p % market.tickSize !== 0n) throw invalidArgument(field, 'is not a multiple of the tick size', 'tick-size');
    return p;
  };
  const change: TriggerChange = {};
  if (input.triggerPrice !== undefined) change.triggerPrice = price(input.triggerPrice, 'triggerPrice');
  if (input.childLimitPrice !== undefined) change.childLimitPrice = price(input.childLimitPrice, 'childLimitPrice');
  if (input.qty !== undefined) {
    change.qty = parseScaled(input.qty, market.baseQuantityScale, 'qty');
    if (change.qty < market.minQty) throw invalidArgument('qty', 'is below the market minimum quantity', 'min-qty');
  }
  if (input.trailingDistanceTicks !== undefined || input.trailingDistanceBps !== undefined) {
    // The creation rule, its field paths at the top of this body.
    try {
      change.trailingDistance = trailingDistanceOf('trailingDistance', input);
    } catch (err) {
      throw err instanceof ApiError ? renamed(err) : err;
    }
  }
  return change;
}

/** `trailingDistance.trailingDistanceBps` → `trailingDistanceBps`: the modify body is flat. trailingDistanceOf refuses with BAD_REQUEST only. */
function renamed(err: ApiError): ApiError {
  return errors.BAD_REQUEST(err.message, { violations: err.violations.map((v) => ({ ...v, fieldPath: v.fieldPath.replace(/^trailingDistance\./, '') })) });
}
