import { marketOf, type TradingContext } from '../context.ts';
import { pageLimit } from '../../pageTokens.ts';

/** The most recent public trades of a symbol, newest first. */
export async function getPublicTrades(ctx: TradingContext, symbol: string, limit: number | undefined) {
  const market = marketOf(ctx, symbol, 'symbol');
  const take = pageLimit(limit, 500);
  await ctx.engine.readable();
  const rows = await ctx.db.trade.findMany({
    where: { symbolId: market.symbolId, isMaker: false },
    orderBy: { matchId: 'desc' },
    take,
    select: { matchId: true, price: true, qty: true, side: true, executedAt: true },
  });
  return { market, trades: rows.map((t) => ({ matchId: t.matchId, price: t.price, qty: t.qty, takerSide: t.side, executedAt: t.executedAt })) };
}
