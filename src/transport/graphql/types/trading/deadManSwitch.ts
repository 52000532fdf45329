import { presentDeadManSwitch } from '../../../../presenters/deadManSwitch.ts';
// The operations' request schemas, the ones /v1 takes its route schemas from.
import * as schemas from '../../../../services/trading/index.ts';
import { builder } from '../../builder.ts';
import { callerOf, defined } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { Side } from './enums.ts';

const DeadManSwitch = builder
  .objectRef<ReturnType<typeof presentDeadManSwitch>>('DeadManSwitch')
  .implement({
    description: 'Spec 2.14',
    fields: (t) => ({
      status: t.exposeString('status'),
      effectiveTimeoutSec: t.exposeInt('effectiveTimeoutSec'),
      expiresAtTsNs: t.exposeString('expiresAtTsNs'),
      ts: t.exposeString('ts'),
      tsNs: t.exposeString('tsNs'),
    }),
  });

builder.mutationField('cancelAllAfter', (t) =>
  t.field({
    type: DeadManSwitch,
    description: 'Dead-man switch: 0 disables, 10..120 seconds arms or refreshes',
    args: { requestId: t.arg.string({ required: true }), timeoutSec: t.arg.int({ required: true }), symbol: t.arg.string(), side: t.arg({ type: Side }), subaccountId: t.arg.string() },
    resolve: async (_root, args, ctx) => {
      parseArgs(schemas.cancelAllAfterBody, args);
      return presentDeadManSwitch(await ctx.services.orders.cancelAllAfter(callerOf(ctx), defined(args) as { requestId: string; timeoutSec: number }));
    },
  }),
);
