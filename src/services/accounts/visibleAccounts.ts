import type { Caller } from '../../auth/caller.ts';
import type { Prisma } from '../../generated/prisma/client.ts';

/**
 * The accounts a caller may see: its root and that root's subaccounts, or only the one
 * subaccount a scoped credential names. Anonymous callers see none. Every read of
 * accounts, REST or GraphQL, filters through this.
 */
export function visibleAccountsWhere(caller: Caller | undefined): Prisma.AccountWhereInput {
  // Reading an account is reading: a key whose policy lacks READ sees none (as listing them is refused).
  if (!caller || (caller.kind === 'apiKey' && !caller.permissions.has('READ'))) return { id: { in: [] } };
  const scoped = caller.kind === 'apiKey' ? caller.subaccountId : undefined;
  if (scoped !== undefined) return { id: scoped, rootAccountId: caller.rootAccountId };
  return { OR: [{ id: caller.rootAccountId }, { rootAccountId: caller.rootAccountId }] };
}
