import type { spotMarketView } from '../../../../services/trading/index.ts';
import { builder } from '../../builder.ts';

export const SpotFeeTier = builder.objectRef<ReturnType<typeof spotMarketView>['fees'][number]>('SpotFeeTier').implement({
  description: 'Parts per million; negative is a rebate',
  fields: (t) => ({ vipTier: t.exposeInt('vipTier'), makerFeePpm: t.exposeInt('makerFeePpm'), takerFeePpm: t.exposeInt('takerFeePpm') }),
});
