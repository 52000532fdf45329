import { directionOf } from '../../domain/triggers/index.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { parseScaled } from '../../domain/money.ts';
import type { Market } from '../markets.ts';
import type { TriggerSpec } from './engine.ts';

type Child = { marketIoc?: { maxSlippageTicks?: number; maxSlippageBps?: number }; limit?: { price: string; postOnly?: boolean } };
type StopBlock = { side: 'BUY' | 'SELL'; triggerPrice: string; child: Child };

/** Spec 4.6 Create Trigger's body (the stop-loss and take-profit strategies). */
export interface CreateTriggerInput {
  subaccountId?: string;
  trigger: {
    symbol: string;
    qty: string;
    feeAsset?: 'QUOTE' | 'BASE';
    selfTradePreventionMode?: 'EXPIRE_MAKER' | 'EXPIRE_TAKER' | 'EXPIRE_BOTH' | 'DECREMENT';
    clientTriggerId?: string;
    stopLoss?: StopBlock;
    takeProfit?: StopBlock;
    trailingStop?: unknown;
    twap?: unknown;
    ladder?: unknown;
  };
}

const BLOCKS = ['stopLoss', 'takeProfit', 'trailingStop', 'twap', 'ladder'] as const;

/** Checks a trigger's body against its market: exactly one strategy block, prices on the tick, quantity in lots. */
export function validateTrigger(input: CreateTriggerInput, market: Market): TriggerSpec {
  const t = input.trigger;
  const given = BLOCKS.filter((b) => t[b] !== undefined);
  if (given.length !== 1) throw invalidArgument('trigger', `exactly one of ${BLOCKS.join(', ')} is required`, 'one-of');
  const block = given[0] as (typeof BLOCKS)[number];
  if (block !== 'stopLoss' && block !== 'takeProfit') {
    throw invalidArgument(`trigger.${block}`, 'is not available yet: stopLoss and takeProfit are', 'unsupported-strategy', 'TRIGGER_TYPE_UNSUPPORTED');
  }
  const stop = t[block] as StopBlock;
  const feeAsset = t.feeAsset ?? 'QUOTE';
  if (stop.side === 'SELL' && feeAsset !== 'QUOTE') throw invalidArgument('trigger.feeAsset', 'SELL children pay fees in QUOTE', 'sell-fee-asset');
  const qty = parseScaled(t.qty, market.baseQuantityScale, 'trigger.qty');
  if (qty < market.minQty) throw invalidArgument('trigger.qty', 'is below the market minimum quantity', 'min-qty');
  const price = (text: string, field: string) => {
    const p = parseScaled(text, 9, field);
    if (p % market.tickSize !== 0n) throw invalidArgument(field, 'is not a multiple of the tick size', 'tick-size');
    return p;
  };
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
  return {
    block,
    clientTriggerId,
    triggerDirection,
    triggerPrice,
    row: {
      clientTriggerId,
      symbolId: market.symbolId,
      triggerType,
      side: stop.side,
      qty,
      feeAsset,
      stpMode: t.selfTradePreventionMode ?? 'EXPIRE_MAKER',
      triggerDirection,
      triggerPrice,
      childKind: child.limit ? 'LIMIT' : 'MARKET_IOC',
      childLimitPrice: child.limit ? price(child.limit.price, `trigger.${block}.child.limit.price`) : null,
      childPostOnly: child.limit?.postOnly === true,
      maxSlippageTicks: m?.maxSlippageTicks ?? null,
      maxSlippageBps: m ? (m.maxSlippageTicks === undefined ? (m.maxSlippageBps ?? null) : null) : null,
    },
  };
}
