import { presentBatchCancel } from '../../../../presenters/batchCancel.ts';
// The operations' request schemas, the ones /v1 takes its route schemas from.
import * as schemas from '../../../../services/trading/index.ts';
import { builder } from '../../builder.ts';
import { callerOf, defined } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { BatchItemResult } from './cancelBatchItemResult.ts';
import type { CancelBatchShape } from './shapes.ts';

const CancelBatchResult = builder.objectRef<CancelBatchShape>('CancelBatchResult').implement({
  fields: (t) => ({
    acceptedCount: t.exposeInt('acceptedCount'),
    rejectedCount: t.exposeInt('rejectedCount'),
    results: t.field({ type: [BatchItemResult], description: 'One per item, in the order given', resolve: (r) => r.results }),
    ts: t.exposeString('ts'),
    tsNs: t.exposeString('tsNs'),
  }),
});

const CancelBatchItem = builder.inputType('CancelBatchItemInput', {
  description: 'An order named by orderId, clientOrderId or both',
  fields: (t) => ({ orderId: t.string(), clientOrderId: t.string() }),
});

builder.mutationField('cancelOrdersBatch', (t) =>
  t.field({
    type: CancelBatchResult,
    description: 'Cancels up to 50 orders, rejecting items one by one; a repeated requestId answers the first result',
    args: { requestId: t.arg.string({ required: true }), subaccountId: t.arg.string(), items: t.arg({ type: [CancelBatchItem], required: true }) },
    resolve: async (_root, { requestId, subaccountId, items }, ctx) => {
      const body = { ...defined({ subaccountId }), requestId, items: items.map((i) => defined(i) ?? {}) };
      parseArgs(schemas.batchCancelOrdersBody, body);
      return presentBatchCancel(await ctx.services.orders.batchCancelOrders(callerOf(ctx), body));
    },
  }),
);
