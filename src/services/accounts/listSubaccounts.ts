import type { Caller } from '../../auth/caller.ts';
import { requirePermission } from '../access.ts';
import { afterNewestFirst, NEWEST_FIRST, newestFirstCursor, type NewestFirstCursor, pageLimit, toPage } from '../pageTokens.ts';
import { subaccountView, type AccountsContext } from './context.ts';
import { SUBACCOUNTS_LIST_MAX } from './listSubaccounts.schema.ts';

/** Newest first. A subaccount-scoped key sees only its own subaccount. */
export async function listSubaccounts(ctx: AccountsContext, caller: Caller, input: { limit?: number; pageToken?: string }) {
  requirePermission(caller, 'READ');
  const limit = pageLimit(input.limit, SUBACCOUNTS_LIST_MAX);
  const scoped = caller.kind === 'apiKey' ? caller.subaccountId : undefined;
  const binding = { operation: 'listSubaccounts', caller: caller.rootPublicId, filters: { scoped: scoped ?? null } };
  const cursor = ctx.pageTokens.decode<NewestFirstCursor>(input.pageToken, binding);
  const rows = await ctx.db.account.findMany({
    where: {
      rootAccountId: caller.rootAccountId,
      kind: 'SUBACCOUNT',
      ...(scoped !== undefined ? { id: scoped } : {}),
      ...afterNewestFirst(cursor),
    },
    orderBy: NEWEST_FIRST,
    take: limit + 1,
  });
  const page = toPage(rows, limit, ctx.pageTokens, binding, newestFirstCursor);
  return { subaccounts: page.items.map(subaccountView), nextPageToken: page.nextPageToken };
}
