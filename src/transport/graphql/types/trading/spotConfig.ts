import { presentSpotConfig } from '../../../../presenters/spotConfig.ts';
import { builder } from '../../builder.ts';
import { SpotAsset } from './spotAsset.ts';
import { SpotMarket } from './spotMarket.ts';

const SpotConfig = builder.objectRef<ReturnType<typeof presentSpotConfig>>('SpotConfig').implement({
  description: 'Markets and assets: scales, tick size, minimums, fee rates per VIP tier',
  fields: (t) => ({
    assets: t.field({ type: [SpotAsset], resolve: (c) => c.assets }),
    markets: t.field({ type: [SpotMarket], resolve: (c) => c.markets }),
  }),
});

builder.queryField('spotConfig', (t) =>
  t.field({
    type: SpotConfig,
    description: 'Public: what GET /v1/spot/config answers',
    resolve: (_root, _args, ctx) => presentSpotConfig(ctx.services.orders.getSpotConfig()),
  }),
);
