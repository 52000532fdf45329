import { builder } from '../../builder.ts';
import type { FlowShape } from './rows.ts';

export const FlowRequestFee = builder.objectRef<NonNullable<FlowShape['requestFee']>>('FlowRequestFee').implement({
  description: 'Spec 2.12 requestFee: LOCKED at submission, then SETTLED or REFUNDED',
  fields: (t) => ({
    amountE18Hi: t.string({ resolve: (f) => f.amountE18.hi }),
    amountE18Lo: t.string({ resolve: (f) => f.amountE18.lo }),
    unifiedAssetId: t.int({ resolve: (f) => f.assetIds.unifiedAssetId }),
    zippedAssetId: t.int({ resolve: (f) => f.assetIds.zippedAssetId }),
    recipientAddress: t.exposeString('recipientAddress'),
    status: t.exposeString('status'),
  }),
});
