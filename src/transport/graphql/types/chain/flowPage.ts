import { queryFromInfo } from '@pothos/plugin-prisma';
import { listFlowsQuery } from '../../../../services/chain/listFlows.schema.ts';
import { builder } from '../../builder.ts';
import { callerOf, defined } from '../../connections.ts';
import { relationsOf } from '../../relations.ts';
import { parseArgs } from '../../validate.ts';
import { Flow } from './flow.ts';
import type { FlowRow } from './rows.ts';

const FlowPage = builder.objectRef<{ flows: FlowRow[]; nextPageToken: string }>('FlowPage').implement({
  fields: (t) => ({ flows: t.field({ type: [Flow], resolve: (p) => p.flows }), nextPageToken: t.exposeString('nextPageToken') }),
});

// Enums, so a value List Flows does not know is a GraphQL validation error, as on /v1.
const FlowKindArg = builder.enumType('FlowKindFilter', { values: ['DEPOSIT', 'WITHDRAW_TO_EXTERNAL_CHAIN', 'WITHDRAW_TO_FUNDING'] as const });
const FlowStateArg = builder.enumType('FlowStateFilter', {
  values: ['PENDING_SOURCE', 'SOURCE_CONFIRMING', 'PENDING_VALIDATION', 'PENDING_DESTINATION', 'DESTINATION_CONFIRMING', 'COMPLETED', 'FAILED', 'REJECTED', 'EXPIRED', 'DROPPED'] as const,
});
const FlowScopeArg = builder.enumType('FlowScope', { values: ['OPEN', 'TERMINAL', 'ALL'] as const });
const FlowOrderArg = builder.enumType('FlowOrderBy', { values: ['LAST_ACTIVITY', 'STARTED', 'UPDATED'] as const });
const FlowSortArg = builder.enumType('FlowSort', { values: ['NEWEST', 'OLDEST'] as const });

builder.queryField('chainFlows', (t) =>
  t.field({
    type: FlowPage,
    description: 'Flows the caller may see (as GET /v1/chain/flows)',
    args: {
      flowKind: t.arg({ type: FlowKindArg }),
      flowState: t.arg({ type: FlowStateArg }),
      scope: t.arg({ type: FlowScopeArg }),
      orderBy: t.arg({ type: FlowOrderArg }),
      sort: t.arg({ type: FlowSortArg }),
      ownerAccountId: t.arg.string(),
      serviceChainIds: t.arg.intList(),
      unifiedAssetIds: t.arg.intList(),
      zippedAssetIds: t.arg.intList(),
      txRef: t.arg.string(),
      smartAccountAddress: t.arg.string(),
      flowId: t.arg.string(),
      limit: t.arg.int(),
      pageToken: t.arg.string(),
    },
    resolve: async (_root, args, ctx, info) => {
      // /v1 reads `limit` and the id lists from the query string, as text.
      const text = (ids: readonly (number | null)[] | null | undefined) => ids?.map(String);
      parseArgs(listFlowsQuery, {
        ...args,
        limit: args.limit == null ? undefined : String(args.limit),
        serviceChainIds: text(args.serviceChainIds),
        unifiedAssetIds: text(args.unifiedAssetIds),
        zippedAssetIds: text(args.zippedAssetIds),
      });
      const include = relationsOf(queryFromInfo({ context: ctx, info, typeName: 'Flow', path: ['flows'] }));
      const r = await ctx.services.chain.listFlows(callerOf(ctx), (defined(args) ?? {}) as never, include);
      return { flows: r.rows, nextPageToken: r.nextPageToken };
    },
  }),
);
