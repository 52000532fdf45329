import { z } from 'zod';
import { formatScaled } from '../domain/money.ts';
import { Side } from '../generated/prisma/enums.ts';
import type { Market } from '../services/markets.ts';
import { int64String, rfc3339 } from './scalars.ts';

/** A public trade: the recent-trades list and the publicTrades stream alike. */
export const publicTradeSchema = z.strictObject({
  matchId: int64String,
  price: z.string().describe('Decimal price (Q9)'),
  qty: z.string().describe('Decimal, the pair’s base_quantity_scale'),
  takerSide: z.enum(Side),
  executedAt: rfc3339,
});

export type PublicTradeView = { matchId: bigint; price: bigint; qty: bigint; takerSide: z.infer<typeof publicTradeSchema>['takerSide']; executedAt: Date };

export function presentPublicTrade(p: PublicTradeView, market: Market): z.infer<typeof publicTradeSchema> {
  return { matchId: p.matchId.toString(), price: formatScaled(p.price, 9), qty: formatScaled(p.qty, market.baseQuantityScale), takerSide: p.takerSide, executedAt: p.executedAt.toISOString() };
}

/** GET /v1/spot/public-trades: newest first. */
export const publicTradesSchema = z.strictObject({ symbol: z.string(), trades: z.array(publicTradeSchema) });

export function presentPublicTrades(r: { market: Market; trades: PublicTradeView[] }): z.infer<typeof publicTradesSchema> {
  return { symbol: r.market.symbol, trades: r.trades.map((t) => presentPublicTrade(t, r.market)) };
}
