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
  /**
   * The request's signature, not yet recorded as used. The rate limiter claims it in the
   * script that charges the request's first bucket (one Redis round trip per signed
   * mutation); a request that charges nothing claims it alone before it reads anything.
   */
  signature?: PendingSignature;
}

export interface PendingSignature {
  readonly key: string;
  readonly ttlMs: number;
  /** The key's last use, when this process is due to record it (once a second per key). */
  readonly lastUsed?: { hash: string; field: string; value: string };
  claimed: boolean;
}

/** The signature a request still has to claim, marked claimed: whoever takes it claims it. */
export function takeSignature(caller: Caller | undefined): PendingSignature | undefined {
  if (caller?.kind !== 'apiKey' || !caller.signature || caller.signature.claimed) return undefined;
  caller.signature.claimed = true;
  return caller.signature;
}

export type Caller = SessionCaller | ApiKeyCaller;

/** A label for audit columns such as `createdByActor`; never a secret. */
export function actorLabel(caller: Caller): string {
  return caller.kind === 'session' ? `session:${caller.rootPublicId}` : `apiKey:${caller.keyId}`;
}
