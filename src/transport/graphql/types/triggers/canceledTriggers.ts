import { toRfc3339 } from '../../../../presenters/scalars.ts';
// The operations' request schemas, the ones /v1 takes its route schemas from.
import * as schemas from '../../../../services/trading/index.ts';
import { builder } from '../../builder.ts';
import { callerOf, defined } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';

/** What POST /v1/triggers/cancel-all answers. */
const CanceledTriggers = builder.objectRef<{ canceledTriggerIds: string[]; canceledCount: number; ts: string; tsNs: string }>('CanceledTriggers').implement({
  fields: (t) => ({
    canceledTriggerIds: t.exposeStringList('canceledTriggerIds'),
    canceledCount: t.exposeInt('canceledCount'),
    ts: t.exposeString('ts', { description: 'When the cancels were accepted (RFC 3339)' }),
    tsNs: t.exposeString('tsNs'),
  }),
});

builder.mutationField('cancelAllTriggers', (t) =>
  t.field({
    type: CanceledTriggers,
    description: 'Cancels the live triggers of the account, of one symbol if given, in one job (as POST /v1/triggers/cancel-all)',
    args: { subaccountId: t.arg.string(), symbol: t.arg.string(), includeAttached: t.arg.boolean({ description: 'Also the legs protecting orders and filled positions (default true)' }) },
    resolve: async (_root, args, ctx) => {
      parseArgs(schemas.cancelAllTriggersBody, args);
      const r = await ctx.services.orders.cancelAllTriggers(callerOf(ctx), defined(args) ?? {});
      return { canceledTriggerIds: r.canceledTriggerIds, canceledCount: r.canceledTriggerIds.length, ts: toRfc3339(r.ts), tsNs: r.tsNs.toString() };
    },
  }),
);
