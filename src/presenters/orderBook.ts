import { z } from 'zod';
import { formatScaled } from '../domain/money.ts';
import type { Market } from '../services/markets.ts';
import { int64String } from './scalars.ts';

/** One price level as decimal strings: snapshots and the deltas of orderBookUpdates alike. */
export function presentLevel<L extends { price: bigint; qty: bigint }>(level: L, market: Market): Omit<L, 'price' | 'qty'> & { price: string; qty: string } {
  return { ...level, price: formatScaled(level.price, 9), qty: formatScaled(level.qty, market.baseQuantityScale) };
}

const levelSchema = z.strictObject({
  price: z.string().describe('Decimal price (Q9)'),
  qty: z.string().describe('Total at the price, the pair’s base_quantity_scale'),
  orders: z.number().int(),
});

/** GET /v1/spot/orderbook (docs/api-decisions.md, "Public market data"). */
export const orderBookSchema = z.strictObject({
  symbol: z.string(),
  sequence: int64String.describe('Apply the deltas with a higher sequence on top of this snapshot'),
  bids: z.array(levelSchema).describe('Best (highest) first'),
  asks: z.array(levelSchema).describe('Best (lowest) first'),
});

type Level = { price: bigint; qty: bigint; orders: number };

export function presentOrderBook(b: { market: Market; sequence: bigint; depth: { bids: Level[]; asks: Level[] } }): z.infer<typeof orderBookSchema> {
  const level = (l: Level) => presentLevel(l, b.market);
  return { symbol: b.market.symbol, sequence: b.sequence.toString(), bids: b.depth.bids.map(level), asks: b.depth.asks.map(level) };
}
