import type { spotConfigView } from '../../../../services/trading/index.ts';
import { builder } from '../../builder.ts';

export const SpotAsset = builder.objectRef<ReturnType<typeof spotConfigView>['assets'][number]>('SpotAsset').implement({
  fields: (t) => ({ unifiedAssetId: t.exposeInt('unifiedAssetId'), symbol: t.exposeString('symbol'), decimals: t.exposeInt('decimals') }),
});
