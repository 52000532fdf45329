import { PERMISSIONS } from '../../../../auth/caller.ts';
import { createApiPolicyBody } from '../../../../services/apiKeys/createApiPolicy.schema.ts';
import type { ApiPolicyView } from '../../../../services/apiKeys/index.ts';
import { builder } from '../../builder.ts';
import { callerOf, connectionFromPage } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { ViewerRef } from '../viewer.ts';

const Permission = builder.enumType('ApiPermission', { values: PERMISSIONS });

const ApiPolicy = builder.objectRef<ApiPolicyView>('ApiPolicy').implement({
  fields: (t) => ({
    policyId: t.exposeString('policyId'),
    name: t.exposeString('name'),
    permissions: t.field({ type: [Permission], resolve: (p) => p.permissions }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.objectField(ViewerRef, 'apiPolicies', (t) =>
  t.connection({
    type: ApiPolicy,
    resolve: (caller, args, ctx) =>
      connectionFromPage(args, 100, async (page) => {
        const r = await ctx.services.apiKeys.listApiPolicies(caller, page);
        return { items: r.policies, nextPageToken: r.nextPageToken };
      }),
  }),
);

builder.mutationField('createApiPolicy', (t) =>
  t.field({
    type: ApiPolicy,
    args: { name: t.arg.string({ required: true }), permissions: t.arg({ type: [Permission], required: true }) },
    resolve: async (_root, args, ctx) => (await ctx.services.apiKeys.createApiPolicy(callerOf(ctx), parseArgs(createApiPolicyBody, args))).policy,
  }),
);
