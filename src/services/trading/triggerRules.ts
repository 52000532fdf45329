import { ApiError, codes, errors } from '../../domain/errorCatalogue.ts';
import { formatScaled } from '../../domain/money.ts';
import type { OrderCloseReason } from '../../generated/prisma/client.ts';
import type { TrailingParams, TrailingState } from '../../domain/triggers/index.ts';
import type { Market } from '../markets.ts';
import type { CreateOrderInput } from './orderInput.ts';
import type { TriggerRow } from './writeSet.ts';
import { TriggerFailureReason } from '../../generated/prisma/enums.ts';

/**
 * The rules the engine applies to triggers that need none of its state: the shape of a
 * validated trigger, the child order a firing places, how a refusal reads as a failure
 * reason, the JSON a trailing stop's state is kept in, and the refusals triggers share.
 */

/** A standalone trigger (or one kind's block) as the command validated it. */
export interface TriggerSpec {
  block: 'stopLoss' | 'takeProfit' | 'trailingStop' | 'twap' | 'ladder';
  /** Set for a ladder: its levels, placed on acceptance. */
  ladder?: { levels: { price: bigint; qty: bigint }[]; postOnly: boolean };
  /** Set for a trailing stop. */
  trailing?: TrailingParams;
  /** Set for a TWAP: its slice price bounds (the start price is the last price at acceptance). */
  twap?: { limitPrice: bigint | null; adverse: { bps: number } | { ticks: bigint } };
  clientTriggerId: string | null;
  triggerDirection: TriggerRow['triggerDirection'];
  triggerPrice: bigint;
  row: Pick<
    TriggerRow,
    'clientTriggerId' | 'symbolId' | 'triggerType' | 'side' | 'qty' | 'feeAsset' | 'stpMode' | 'triggerDirection' | 'triggerPrice' | 'childKind' | 'childLimitPrice' | 'childPostOnly' | 'maxSlippageTicks' | 'maxSlippageBps' | 'params'
  >;
}

/** The default protection of a market child given none (recorded in docs/api-decisions.md). */
export const DEFAULT_CHILD_SLIPPAGE_BPS = 500;

/** The price a market child may trade to: the trigger price moved by its slippage allowance, against the child. */
export function childProtection(t: Pick<TriggerRow, 'side' | 'triggerPrice' | 'maxSlippageBps' | 'maxSlippageTicks'>, tickSize: bigint): bigint {
  const delta = t.maxSlippageTicks !== null ? BigInt(t.maxSlippageTicks) * tickSize : (t.triggerPrice * BigInt(t.maxSlippageBps ?? DEFAULT_CHILD_SLIPPAGE_BPS)) / 10_000n;
  const p = t.side === 'BUY' ? t.triggerPrice + delta : t.triggerPrice - delta;
  return p > 0n ? p : 1n;
}

/** The child order a fired trigger places: a market IOC referenced to the trigger price, or a limit GTC. */
export function childOrderOf(t: TriggerRow, market: Market): CreateOrderInput['order'] {
  const base = { symbol: market.symbol, side: t.side, baseQty: formatScaled(t.qty, market.baseQuantityScale), feeAsset: t.feeAsset, selfTradePreventionMode: t.stpMode } as const;
  if (t.childKind === 'LIMIT') return { ...base, limitGtc: { price: formatScaled(t.childLimitPrice as bigint, 9), postOnly: t.childPostOnly } };
  const slippage = t.maxSlippageTicks !== null ? { maxSlippageTicks: t.maxSlippageTicks } : { maxSlippageBps: t.maxSlippageBps ?? DEFAULT_CHILD_SLIPPAGE_BPS };
  return { ...base, marketIoc: { clientRefPrice: formatScaled(t.triggerPrice, 9), ...slippage } };
}

/** Why a child was refused, as a trigger failure reason. */
export function failureOf(err: ApiError): TriggerRow['failureReason'] {
  if (err.code === codes.INSUFFICIENT_BALANCE) return TriggerFailureReason.INSUFFICIENT_BALANCE;
  if (/NOTIONAL/.test(err.code ?? '')) return 'MIN_NOTIONAL';
  return 'CHILD_REJECTED';
}

/** Why a trigger's child ended short of its quantity, in the trigger's terms: the child's close reason. */
export function unfilledReason(closeReason: OrderCloseReason | null): NonNullable<TriggerRow['failureReason']> {
  if (closeReason === 'SLIPPAGE_LIMIT') return 'SLIPPAGE_EXCEEDED';
  if (closeReason === 'NO_LIQUIDITY' || closeReason === 'IOC_REMAINDER' || closeReason === 'GTD_EXPIRED') return 'NO_LIQUIDITY';
  return 'CHILD_REJECTED';
}

/** One level of a ladder as its state keeps it (JSON: ids and amounts as decimal strings). */
export interface LadderChild {
  id: string;
  orderId: string;
  price: string;
  qty: string;
  filledQty: string;
  done: boolean;
}

/** A trailing stop's runtime state as stored (JSON: prices as decimal strings of Q9). */
export interface TrailingStateJson {
  active: boolean;
  extreme: string | null;
  threshold: string | null;
}

export function trailingStateJson(s: TrailingState): string {
  return JSON.stringify({ active: s.active, extreme: s.extreme?.toString() ?? null, threshold: s.threshold?.toString() ?? null } satisfies TrailingStateJson);
}

export function trailingStateOf(j: Partial<TrailingStateJson>): TrailingState {
  return { active: j.active === true, extreme: j.extreme ? BigInt(j.extreme) : null, threshold: j.threshold ? BigInt(j.threshold) : null };
}

/** A trailing stop's parameters from its row (`params`: activation price and distance). */
export function trailingParamsOf(row: Pick<TriggerRow, 'side' | 'params'>, tickSize: bigint): TrailingParams {
  const p = JSON.parse(row.params) as { activationPrice: string | null; trailingDistanceTicks: string | null; trailingDistanceBps: number | null };
  return {
    side: row.side,
    activationPrice: p.activationPrice ? BigInt(p.activationPrice) : null,
    distance: p.trailingDistanceTicks ? { ticks: BigInt(p.trailingDistanceTicks), tickSize } : { bps: p.trailingDistanceBps as number },
  };
}

export function noReferencePrice(fieldPath: string): ApiError {
  return errors.NO_REFERENCE_PRICE('no trade has printed in this pair yet: there is no price to start from', {
    violations: [{ fieldPath, message: 'needs a last price, and the pair has not traded yet', ruleId: 'reference-price' }],
  });
}

/** Refused rather than fired silently (Binance's "order would immediately trigger"). */
export function wouldFireAtOnce(last: bigint, fieldPath: string): ApiError {
  return errors.TRIGGER_WOULD_FIRE_IMMEDIATELY(`the last price (${formatScaled(last, 9)}) is already at or through triggerPrice: it would fire at once`, {
    violations: [{ fieldPath, message: 'the last price is already at or through the trigger price', ruleId: 'would-fire-immediately' }],
  });
}

export function triggerNotPausable(status: string): ApiError {
  return errors.TRIGGER_NOT_PAUSABLE(`a ${status} trigger cannot be paused or resumed`);
}

/** A repeated clientTriggerId must name the same trigger (409 otherwise). */
export function checkSameTrigger<T extends TriggerSpec['row']>(existing: T, spec: TriggerSpec): T {
  const keys = Object.keys(spec.row) as (keyof TriggerSpec['row'])[];
  // params is JSON: text here, an object when read from the table; the engine adds to it
  // what it worked out on acceptance (a TWAP's start price), so the submitted keys decide.
  const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v) as Record<string, unknown>;
  const sameParams = () => Object.entries(json(spec.row.params)).every(([k, v]) => JSON.stringify(json(existing.params)[k]) === JSON.stringify(v));
  if (keys.some((k) => (k === 'params' ? !sameParams() : existing[k] !== spec.row[k]))) {
    throw errors.CONFLICT_CLIENT_TRIGGER_ID_REUSED('clientTriggerId is already used by a different trigger');
  }
  return existing;
}
