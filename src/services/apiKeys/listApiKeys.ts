import type { Caller } from '../../auth/caller.ts';
import { requirePermission } from '../access.ts';
import { afterNewestFirst, NEWEST_FIRST, newestFirstCursor, type NewestFirstCursor, pageLimit, toPage } from '../pageTokens.ts';
import { visibleKeysWhere } from './checks.ts';
import type { ApiKeysContext } from './context.ts';
import { API_KEYS_LIST_MAX } from './listApiKeys.schema.ts';
import { KEY_INCLUDE, render } from './views.ts';

/** Newest first; a subaccount-scoped key sees its subaccount's keys only. */
export async function listApiKeys(ctx: ApiKeysContext, caller: Caller, input: { limit?: number; pageToken?: string }) {
  requirePermission(caller, 'READ');
  const limit = pageLimit(input.limit, API_KEYS_LIST_MAX);
  const where = visibleKeysWhere(caller);
  const binding = { operation: 'listApiKeys', caller: caller.rootPublicId, filters: { scope: String(where.subaccountId ?? '') } };
  const cursor = ctx.pageTokens.decode<NewestFirstCursor>(input.pageToken, binding);
  const rows = await ctx.db.apiKey.findMany({
    where: { ...where, ...afterNewestFirst(cursor) },
    orderBy: NEWEST_FIRST,
    take: limit + 1,
    include: KEY_INCLUDE,
  });
  const page = toPage(rows, limit, ctx.pageTokens, binding, newestFirstCursor);
  return { apiKeys: await render(ctx, page.items), nextPageToken: page.nextPageToken };
}
