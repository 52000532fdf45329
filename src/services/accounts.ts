import type { Prisma } from '../generated/prisma/client.ts';

/** Who is calling, once authenticated: the root account and, for scoped keys, one subaccount. */
export interface Viewer {
  rootAccountId: bigint;
  /** Set when the credential is scoped to a single subaccount. */
  subaccountId?: bigint;
}

/**
 * The accounts a caller may see: its root and that root's subaccounts, or only the one
 * subaccount a scoped credential names. Anonymous callers see none. Every read of
 * accounts, REST or GraphQL, filters through this.
 */
export function visibleAccountsWhere(viewer: Viewer | undefined): Prisma.AccountWhereInput {
  if (!viewer) return { id: { in: [] } };
  if (viewer.subaccountId !== undefined) return { id: viewer.subaccountId, rootAccountId: viewer.rootAccountId };
  return { OR: [{ id: viewer.rootAccountId }, { rootAccountId: viewer.rootAccountId }] };
}
