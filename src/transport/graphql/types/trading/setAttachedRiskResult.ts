import { presentAttachedRiskSet } from '../../../../presenters/attachedRisk.ts';
// The operations' request schemas, the ones /v1 takes its route schemas from.
import * as schemas from '../../../../services/trading/index.ts';
import { builder } from '../../builder.ts';
import { callerOf, defined } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { AttachedRisk, riskFromInput } from './attachedRiskInput.ts';

const SetAttachedRiskResult = builder
  .objectRef<ReturnType<typeof presentAttachedRiskSet>>('SetAttachedRiskResult')
  .implement({
    description: 'The order and the triggers of its new legs (empty for a leg not given)',
    fields: (t) => ({
      orderId: t.exposeString('orderId'),
      stopLossTriggerId: t.exposeString('stopLossTriggerId'),
      takeProfitTriggerId: t.exposeString('takeProfitTriggerId'),
      trailingStopTriggerId: t.exposeString('trailingStopTriggerId'),
    }),
  });

builder.mutationField('setAttachedRisk', (t) =>
  t.field({
    type: SetAttachedRiskResult,
    description: 'Replaces the attached risk of an open order, or protects the position of an ended order that filled (as POST /v1/orders/attached-risk)',
    args: { orderId: t.arg.string(), clientOrderId: t.arg.string(), subaccountId: t.arg.string(), attachedRisk: t.arg({ type: AttachedRisk, required: true }) },
    resolve: async (_root, { attachedRisk, ...names }, ctx) => {
      const body = { ...(defined(names) ?? {}), attachedRisk: riskFromInput(attachedRisk) };
      parseArgs(schemas.setAttachedRiskBody, body);
      return presentAttachedRiskSet(await ctx.services.orders.setAttachedRisk(callerOf(ctx), body));
    },
  }),
);
