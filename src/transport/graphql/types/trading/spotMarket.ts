import type { presentSpotMarket } from '../../../../presenters/spotConfig.ts';
import { builder } from '../../builder.ts';
import { SpotFeeTier } from './spotFeeTier.ts';

/** GET /v1/spot/config's market, with camelCase names for its two snake_case fields. */
export const SpotMarket = builder.objectRef<ReturnType<typeof presentSpotMarket>>('SpotMarket').implement({
  fields: (t) => ({
    symbol: t.exposeString('symbol'),
    symbolId: t.exposeInt('symbolId'),
    baseAsset: t.exposeString('baseAsset'),
    baseAssetId: t.exposeInt('baseAssetId'),
    quoteAsset: t.exposeString('quoteAsset'),
    quoteAssetId: t.exposeInt('quoteAssetId'),
    baseQuantityScale: t.int({ resolve: (m) => m.base_quantity_scale }),
    quoteQuantityScale: t.int({ resolve: (m) => m.quote_quantity_scale }),
    tickSize: t.exposeString('tickSize'),
    tickSizeQ9: t.field({ type: 'Int64', resolve: (m) => m.tickSizeQ9 }),
    minQty: t.exposeString('minQty'),
    minNotional: t.exposeString('minNotional'),
    fees: t.field({ type: [SpotFeeTier], description: 'One entry per VIP tier', resolve: (m) => m.fees }),
  }),
});
