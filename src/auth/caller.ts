import type { ApiPermission } from '../generated/prisma/client.ts';

export type Permission = ApiPermission;
export const PERMISSIONS = ['READ', 'TRADE', 'TRANSFER', 'WITHDRAW'] as const satisfies readonly Permission[];

interface CallerBase {
  /** Internal id and public id of the root account the credential belongs to. */
  rootAccountId: bigint;
  rootPublicId: string;
}

/** A wallet sign-in: full control of the root account and its subaccounts. */
export interface SessionCaller extends CallerBase {
  kind: 'session';
  sessionId: bigint;
}

/** A signed API-key request: only what the key's policy grants, within the key's scope. */
export interface ApiKeyCaller extends CallerBase {
  kind: 'apiKey';
  keyId: string;
  keyDbId: bigint;
  /** Set when the key is restricted to one subaccount. */
  subaccountId?: bigint;
  permissions: ReadonlySet<Permission>;
}

export type Caller = SessionCaller | ApiKeyCaller;

/** A label for audit columns such as `createdByActor`; never a secret. */
export function actorLabel(caller: Caller): string {
  return caller.kind === 'session' ? `session:${caller.rootPublicId}` : `apiKey:${caller.keyId}`;
}
