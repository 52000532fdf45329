import type { TradingContext } from '../context.ts';
import { spotConfigView } from '../views.ts';

/** Spec 4.5 Get Spot Config: the listed assets and markets, as loaded at start-up (public). */
export function getSpotConfig(ctx: TradingContext) {
  return spotConfigView(ctx.markets);
}
