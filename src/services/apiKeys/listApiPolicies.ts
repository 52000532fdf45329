import type { Caller } from '../../auth/caller.ts';
import { requirePermission } from '../access.ts';
import { afterNewestFirst, NEWEST_FIRST, newestFirstCursor, type NewestFirstCursor, pageLimit, toPage } from '../pageTokens.ts';
import type { ApiKeysContext } from './context.ts';
import { API_POLICIES_LIST_MAX } from './listApiPolicies.schema.ts';
import { policyView } from './views.ts';

/** Newest first. */
export async function listApiPolicies(ctx: ApiKeysContext, caller: Caller, input: { limit?: number; pageToken?: string }) {
  requirePermission(caller, 'READ');
  const limit = pageLimit(input.limit, API_POLICIES_LIST_MAX);
  // A subaccount-scoped key sees the policies of the keys it can see, not the root's others.
  const scoped = caller.kind === 'apiKey' ? caller.subaccountId : undefined;
  const binding = { operation: 'listApiPolicies', caller: caller.rootPublicId, filters: { scope: String(scoped ?? '') } };
  const cursor = ctx.pageTokens.decode<NewestFirstCursor>(input.pageToken, binding);
  const rows = await ctx.db.apiPolicy.findMany({
    where: {
      ownerAccountId: caller.rootAccountId,
      ...(scoped !== undefined ? { apiKeys: { some: { subaccountId: scoped } } } : {}),
      ...afterNewestFirst(cursor),
    },
    orderBy: NEWEST_FIRST,
    take: limit + 1,
  });
  const page = toPage(rows, limit, ctx.pageTokens, binding, newestFirstCursor);
  return { policies: page.items.map(policyView), nextPageToken: page.nextPageToken };
}
