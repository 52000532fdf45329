import { LAST_USED_HASH } from '../../auth/authenticate.ts';
import type { Permission } from '../../auth/caller.ts';
import type { ApiKey, ApiPolicy } from '../../generated/prisma/client.ts';
import type { ApiKeysContext } from './context.ts';

/** Keys and policies as the transports render them, and the rows they are read from. */

export interface ApiKeyView {
  keyId: string;
  label: string;
  icon: string;
  color: string;
  ipWhitelist: string[];
  status: 'ACTIVE' | 'REVOKED';
  subaccountId: string;
  policyId: string;
  createdAt: Date;
  lastUsedAt?: Date;
  publicKeyEd25519: Uint8Array;
  expiresAt?: Date;
  createdByActor: string;
  updatedAt: Date;
  revision: bigint;
}

export interface ApiPolicyView {
  policyId: string;
  name: string;
  permissions: Permission[];
  createdAt: Date;
}

export type KeyRow = ApiKey & { subaccount: { publicId: string } | null; policy: { policyId: string } | null };
export const KEY_INCLUDE = { subaccount: { select: { publicId: true } }, policy: { select: { policyId: true } } } as const;

export async function render(ctx: ApiKeysContext, rows: KeyRow[]): Promise<ApiKeyView[]> {
  // While Redis is away the listing still answers, with the last use PostgreSQL has.
  const recent = await ctx.store.hashGet(LAST_USED_HASH, rows.map((r) => r.keyId)).catch(() => [] as (string | undefined)[]);
  return rows.map((r, i) => {
    const fromStore = recent[i] !== undefined ? new Date(Number(recent[i])) : undefined;
    const lastUsedAt = fromStore && (!r.lastUsedAt || fromStore > r.lastUsedAt) ? fromStore : (r.lastUsedAt ?? undefined);
    return {
      keyId: r.keyId,
      label: r.label,
      icon: r.icon ?? '',
      color: r.color ?? '',
      ipWhitelist: r.ipWhitelist,
      status: r.status,
      subaccountId: r.subaccount?.publicId ?? '',
      policyId: r.policy?.policyId ?? '',
      createdAt: r.createdAt,
      ...(lastUsedAt ? { lastUsedAt } : {}),
      publicKeyEd25519: r.publicKeyEd25519,
      ...(r.expiresAt ? { expiresAt: r.expiresAt } : {}),
      createdByActor: r.createdByActor,
      updatedAt: r.updatedAt,
      revision: r.revision,
    };
  });
}

export async function one(ctx: ApiKeysContext, row: KeyRow) {
  return { apiKey: (await render(ctx, [row]))[0] as ApiKeyView };
}

export function policyView(row: ApiPolicy): ApiPolicyView {
  return { policyId: row.policyId, name: row.name, permissions: row.permissions, createdAt: row.createdAt };
}
