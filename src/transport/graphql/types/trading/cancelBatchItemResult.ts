import { builder } from '../../builder.ts';
import { BatchItemError } from './cancelBatchItemError.ts';
import type { BatchItemErrorShape } from './shapes.ts';

type BatchItemShape = { orderId: string; clientOrderId?: string; status: string; code?: string; error?: BatchItemErrorShape };

export const BatchItemResult = builder.objectRef<BatchItemShape>('CancelBatchItemResult').implement({
  fields: (t) => ({
    orderId: t.exposeString('orderId', { description: 'Empty when the item named its order by clientOrderId only and was rejected' }),
    clientOrderId: t.string({ nullable: true, description: 'Echoed when the item gave one', resolve: (r) => r.clientOrderId ?? null }),
    status: t.exposeString('status', { description: '`ACCEPTED` or `REJECTED`' }),
    code: t.string({ nullable: true, resolve: (r) => r.code ?? null }),
    error: t.field({ type: BatchItemError, nullable: true, resolve: (r) => r.error ?? null }),
  }),
});
