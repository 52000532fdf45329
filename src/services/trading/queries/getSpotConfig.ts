import type { TradingContext } from '../context.ts';

/** Spec 4.5 Get Spot Config: the listed assets and markets, as loaded at start-up (public). */
export function getSpotConfig(ctx: TradingContext) {
  return { assets: ctx.markets.assets, markets: ctx.markets.markets };
}
