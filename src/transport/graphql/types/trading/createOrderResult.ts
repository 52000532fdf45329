import { formatScaled } from '../../../../domain/money.ts';
import { toRfc3339 } from '../../../../presenters/scalars.ts';
import type { Market } from '../../../../services/markets.ts';
// The operations' request schemas, the ones /v1 takes its route schemas from.
import * as schemas from '../../../../services/trading/index.ts';
import { builder } from '../../builder.ts';
import { callerOf } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { CreateOrderInput, orderFromInput } from './createOrderInput.ts';

const CreateOrderResult = builder
  .objectRef<{ orderId: string; clientOrderId: string; acceptedAt: string; acceptedAtTsNs: string; resolvedBaseQty: string; submittedMaxQuoteDebit: string | null; stopLossTriggerId: string; takeProfitTriggerId: string; trailingStopTriggerId: string }>('CreateOrderResult')
  .implement({
    fields: (t) => ({
      orderId: t.exposeString('orderId'),
      clientOrderId: t.exposeString('clientOrderId'),
      acceptedAt: t.exposeString('acceptedAt'),
      acceptedAtTsNs: t.exposeString('acceptedAtTsNs'),
      resolvedBaseQty: t.exposeString('resolvedBaseQty'),
      submittedMaxQuoteDebit: t.exposeString('submittedMaxQuoteDebit', { nullable: true, description: 'The all-in quote debit limit submitted, at the quote scale; null when none was' }),
      stopLossTriggerId: t.exposeString('stopLossTriggerId', { description: 'The trigger executing the attachedRisk stop-loss leg; empty without one' }),
      takeProfitTriggerId: t.exposeString('takeProfitTriggerId'),
      trailingStopTriggerId: t.exposeString('trailingStopTriggerId'),
    }),
  });

function acceptedResult(r: { orderId: string; clientOrderId: string; acceptedAt: Date; acceptedAtTsNs: bigint; resolvedBaseQty: bigint; submittedMaxQuoteDebit?: bigint | undefined; market: Market; legTriggers?: Partial<Record<'stopLoss' | 'takeProfit' | 'trailingStop', string>> }) {
  return {
    orderId: r.orderId,
    clientOrderId: r.clientOrderId,
    acceptedAt: toRfc3339(r.acceptedAt),
    acceptedAtTsNs: r.acceptedAtTsNs.toString(),
    resolvedBaseQty: formatScaled(r.resolvedBaseQty, r.market.baseQuantityScale),
    submittedMaxQuoteDebit: r.submittedMaxQuoteDebit !== undefined ? formatScaled(r.submittedMaxQuoteDebit, r.market.quoteQuantityScale) : null,
    stopLossTriggerId: r.legTriggers?.stopLoss ?? '',
    takeProfitTriggerId: r.legTriggers?.takeProfit ?? '',
    trailingStopTriggerId: r.legTriggers?.trailingStop ?? '',
  };
}

builder.mutationFields((t) => ({
  createOrder: t.field({
    type: CreateOrderResult,
    args: { input: t.arg({ type: CreateOrderInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const order = orderFromInput(input);
      parseArgs(schemas.createOrderBody, order);
      return acceptedResult(await ctx.services.orders.createOrder(callerOf(ctx), order));
    },
  }),
  replaceOrder: t.field({
    type: CreateOrderResult,
    description: 'Replaces an open order with the next generation of its lineage; baseQty is the lineage’s total, filled included (FIX cancel/replace)',
    args: { orderId: t.arg.string(), clientOrderId: t.arg.string(), input: t.arg({ type: CreateOrderInput, required: true }) },
    resolve: async (_root, { orderId, clientOrderId, input }, ctx) => {
      const body = { ...(orderId ? { orderId } : {}), ...(clientOrderId ? { clientOrderId } : {}), ...orderFromInput(input) };
      parseArgs(schemas.replaceOrderBody, body);
      return acceptedResult(await ctx.services.orders.replaceOrder(callerOf(ctx), body));
    },
  }),
}));
