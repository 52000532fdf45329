import type { SubaccountView } from '../../../../services/accounts/index.ts';
import { createSubaccountBody } from '../../../../services/accounts/createSubaccount.schema.ts';
import { builder } from '../../builder.ts';
import { callerOf, connectionFromPage } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { ViewerRef } from '../viewer.ts';

const Subaccount = builder.objectRef<SubaccountView>('Subaccount').implement({
  fields: (t) => ({
    subaccountId: t.exposeString('subaccountId'),
    label: t.exposeString('label'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.objectField(ViewerRef, 'subaccounts', (t) =>
  t.connection({
    type: Subaccount,
    resolve: (caller, args, ctx) =>
      connectionFromPage(args, 100, async (page) => {
        const r = await ctx.services.subaccounts.listSubaccounts(caller, page);
        return { items: r.subaccounts, nextPageToken: r.nextPageToken };
      }),
  }),
);

builder.mutationField('createSubaccount', (t) =>
  t.field({
    type: Subaccount,
    args: { label: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => (await ctx.services.subaccounts.createSubaccount(callerOf(ctx), parseArgs(createSubaccountBody, args))).subaccount,
  }),
);
