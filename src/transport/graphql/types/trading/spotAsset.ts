import type { presentSpotConfig } from '../../../../presenters/spotConfig.ts';
import { builder } from '../../builder.ts';

export const SpotAsset = builder.objectRef<ReturnType<typeof presentSpotConfig>['assets'][number]>('SpotAsset').implement({
  fields: (t) => ({ unifiedAssetId: t.exposeInt('unifiedAssetId'), symbol: t.exposeString('symbol'), decimals: t.exposeInt('decimals') }),
});
