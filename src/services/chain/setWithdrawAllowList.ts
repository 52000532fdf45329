import type { Caller } from '../../auth/caller.ts';
import { errors } from '../../domain/errorCatalogue.ts';
import { requirePermission } from '../access.ts';
import type { ChainContext } from './context.ts';

/**
 * The root's withdrawal allow-list mode: on, withdrawals go only to address-book entries
 * (and the account's own Funding). An API key with WITHDRAW may switch it on but never
 * off: a leaked key must not be able to open the way it guards. Its state is read back
 * with the same operation's GET.
 */
export async function setWithdrawAllowList(ctx: ChainContext, caller: Caller, input: { enabled: boolean }): Promise<{ allowListOnly: boolean }> {
  requirePermission(caller, 'WITHDRAW');
  if (!input.enabled && caller.kind === 'apiKey') {
    throw errors.ALLOW_LIST_SESSION_REQUIRED('an API key cannot switch the withdrawal allow-list off; a wallet session can');
  }
  await ctx.limiter.admit('address_book.mutate', { caller, account: { id: caller.rootAccountId, publicId: caller.rootPublicId, kind: 'ROOT', rootAccountId: caller.rootAccountId } });
  const row = await ctx.db.account.update({ where: { id: caller.rootAccountId }, data: { withdrawAllowListOnly: input.enabled }, select: { withdrawAllowListOnly: true } });
  return { allowListOnly: row.withdrawAllowListOnly };
}

/** The root's allow-list mode, for any caller with READ. */
export async function getWithdrawAllowList(ctx: ChainContext, caller: Caller): Promise<{ allowListOnly: boolean }> {
  requirePermission(caller, 'READ');
  const row = await ctx.db.account.findUniqueOrThrow({ where: { id: caller.rootAccountId }, select: { withdrawAllowListOnly: true } });
  return { allowListOnly: row.withdrawAllowListOnly };
}
