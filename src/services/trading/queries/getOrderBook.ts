import { invalidArgument } from '../../../domain/errors.ts';
import { marketOf, type TradingContext } from '../context.ts';

/** A book snapshot of one symbol, with the sequence its deltas continue from. */
export function getOrderBook(ctx: TradingContext, symbol: string, levels: number) {
  const market = marketOf(ctx, symbol, 'symbol');
  if (!Number.isInteger(levels) || levels < 1 || levels > 500) throw invalidArgument('depth', 'must be 1 to 500', 'range');
  return { market, ...ctx.engine.depth(market, levels) };
}
