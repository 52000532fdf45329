import { presentOrderAccepted } from '../../../../presenters/orderAccepted.ts';
// The operations' request schemas, the ones /v1 takes its route schemas from.
import * as schemas from '../../../../services/trading/index.ts';
import { builder } from '../../builder.ts';
import { callerOf } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { CreateOrderInput, orderFromInput } from './createOrderInput.ts';

const CreateOrderResult = builder.objectRef<ReturnType<typeof presentOrderAccepted>>('CreateOrderResult').implement({
  fields: (t) => ({
    orderId: t.exposeString('orderId'),
    clientOrderId: t.string({ resolve: (r) => r.clientOrderId ?? '' }),
    acceptedAt: t.exposeString('acceptedAt'),
    acceptedAtTsNs: t.exposeString('acceptedAtTsNs'),
    resolvedBaseQty: t.exposeString('resolvedBaseQty'),
    submittedMaxQuoteDebit: t.string({ nullable: true, description: 'The all-in quote debit limit submitted, at the quote scale; null when none was', resolve: (r) => r.submittedMaxQuoteDebit ?? null }),
    stopLossTriggerId: t.exposeString('stopLossTriggerId', { description: 'The trigger executing the attachedRisk stop-loss leg; empty without one' }),
    takeProfitTriggerId: t.exposeString('takeProfitTriggerId'),
    trailingStopTriggerId: t.exposeString('trailingStopTriggerId'),
  }),
});

builder.mutationFields((t) => ({
  createOrder: t.field({
    type: CreateOrderResult,
    args: { input: t.arg({ type: CreateOrderInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const order = orderFromInput(input);
      parseArgs(schemas.createOrderBody, order);
      return presentOrderAccepted(await ctx.services.orders.createOrder(callerOf(ctx), order));
    },
  }),
  replaceOrder: t.field({
    type: CreateOrderResult,
    description: 'Replaces an open order with the next generation of its lineage; baseQty is the lineage’s total, filled included (FIX cancel/replace)',
    args: { orderId: t.arg.string(), clientOrderId: t.arg.string(), input: t.arg({ type: CreateOrderInput, required: true }) },
    resolve: async (_root, { orderId, clientOrderId, input }, ctx) => {
      const body = { ...(orderId ? { orderId } : {}), ...(clientOrderId ? { clientOrderId } : {}), ...orderFromInput(input) };
      parseArgs(schemas.replaceOrderBody, body);
      return presentOrderAccepted(await ctx.services.orders.replaceOrder(callerOf(ctx), body));
    },
  }),
}));
