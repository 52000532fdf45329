import { errors } from '../domain/errorCatalogue.ts';
import { PUBLIC_ID } from '../domain/ids.ts';
import type { Caller, Permission, SessionCaller } from '../auth/caller.ts';
import type { Db } from '../infra/database.ts';

/**
 * The access rules every service applies, written once: which credential may call an
 * operation, what an API key's policy must grant, and which account a request acts on.
 */

/** Key management and sign-in state: only a wallet session, never an API key. */
export function requireSession(caller: Caller): SessionCaller {
  if (caller.kind !== 'session') {
    throw errors.SESSION_REQUIRED('this operation needs a session token, not an API key');
  }
  return caller;
}

/** Sessions may do everything; an API key only what its policy grants (none without one). */
export function requirePermission(caller: Caller, permission: Permission): void {
  if (caller.kind === 'apiKey' && !caller.permissions.has(permission)) {
    throw errors.MISSING_PERMISSION(`the API key's policy does not grant ${permission}`);
  }
}

export interface AccountRef {
  id: bigint;
  publicId: string;
  kind: 'ROOT' | 'SUBACCOUNT';
  rootAccountId: bigint;
}

/**
 * The account a request acts on: the caller's root account when `subaccountId` is
 * omitted (or the key's own subaccount for a subaccount-scoped key), otherwise one of the
 * root's subaccounts. Someone else's subaccount is not found (404); a scoped key naming
 * any other account of its owner is refused (403).
 */
export async function resolveAccount(
  db: Db,
  caller: Caller,
  subaccountId: string | undefined,
  fieldPath = 'subaccountId',
): Promise<AccountRef> {
  const scoped = caller.kind === 'apiKey' ? caller.subaccountId : undefined;
  if (subaccountId === undefined || subaccountId === '') {
    if (scoped === undefined) {
      return { id: caller.rootAccountId, publicId: caller.rootPublicId, kind: 'ROOT', rootAccountId: caller.rootAccountId };
    }
    const own = await db.account.findUniqueOrThrow({ where: { id: scoped }, select: { publicId: true } });
    return { id: scoped, publicId: own.publicId, kind: 'SUBACCOUNT', rootAccountId: caller.rootAccountId };
  }
  const notFound = () =>
    errors.SUBACCOUNT_NOT_FOUND('subaccount not found', {
      violations: [{ fieldPath, message: 'no such subaccount', ruleId: 'exists' }],
    });
  if (!PUBLIC_ID.test(subaccountId)) throw notFound();
  const account = await db.account.findFirst({
    where: { publicId: subaccountId, kind: 'SUBACCOUNT', rootAccountId: caller.rootAccountId },
    select: { id: true, publicId: true },
  });
  if (!account) throw notFound();
  if (scoped !== undefined && scoped !== account.id) {
    throw errors.KEY_SCOPE_VIOLATION('the API key is restricted to another subaccount');
  }
  return { id: account.id, publicId: account.publicId, kind: 'SUBACCOUNT', rootAccountId: caller.rootAccountId };
}
