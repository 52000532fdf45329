import type { presentSpotMarket } from '../../../../presenters/spotConfig.ts';
import { builder } from '../../builder.ts';

export const SpotFeeTier = builder.objectRef<ReturnType<typeof presentSpotMarket>['fees'][number]>('SpotFeeTier').implement({
  description: 'Parts per million; negative is a rebate',
  fields: (t) => ({ vipTier: t.exposeInt('vipTier'), makerFeePpm: t.exposeInt('makerFeePpm'), takerFeePpm: t.exposeInt('takerFeePpm') }),
});
