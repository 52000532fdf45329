import type { Caller } from '../../auth/caller.ts';
import { normalizeCidr } from '../../auth/ipWhitelist.ts';
import { errors } from '../../domain/errorCatalogue.ts';
import { invalidArgument } from '../../domain/errors.ts';
import type { ApiKeysContext } from './context.ts';
import { API_KEY_LABEL_MAX, API_KEY_TOKEN_MAX, IP_WHITELIST_MAX } from './createApiKey.schema.ts';
import { KEY_INCLUDE, type KeyRow } from './views.ts';

/** The rules of spec 2.4 the key operations share, and the key and policy lookups. */

export function checkLabel(label: string): string {
  if (label.length < 1 || label.length > API_KEY_LABEL_MAX) {
    throw invalidArgument('label', `must be 1 to ${API_KEY_LABEL_MAX} characters`, 'length');
  }
  return label;
}

export function checkToken(field: 'icon' | 'color', value: string): string {
  if (value.length > API_KEY_TOKEN_MAX) throw invalidArgument(field, `must be at most ${API_KEY_TOKEN_MAX} characters`, 'length');
  return value;
}

export function checkWhitelist(entries: string[]): string[] {
  if (entries.length > IP_WHITELIST_MAX) {
    throw invalidArgument('ipWhitelist', `must have at most ${IP_WHITELIST_MAX} entries`, 'max-items');
  }
  const seen = new Set<string>();
  return entries.map((entry, i) => {
    const cidr = normalizeCidr(entry);
    if (!cidr) throw invalidArgument(`ipWhitelist[${i}]`, 'must be an IPv4 or IPv6 CIDR', 'cidr');
    if (seen.has(cidr)) throw invalidArgument(`ipWhitelist[${i}]`, 'repeats an earlier entry', 'unique');
    seen.add(cidr);
    return cidr;
  });
}

export function checkExpiry(expiresAt: Date, now: Date): Date {
  if (expiresAt <= now) throw invalidArgument('expiresAt', 'must be in the future', 'future');
  return expiresAt;
}

export async function policyIdOf(ctx: ApiKeysContext, caller: Caller, policyId: string): Promise<bigint> {
  const policy = await ctx.db.apiPolicy.findFirst({
    where: { policyId, ownerAccountId: caller.rootAccountId },
    select: { id: true },
  });
  if (!policy) {
    throw errors.API_POLICY_NOT_FOUND('API policy not found', {
      violations: [{ fieldPath: 'policyId', message: 'no such policy', ruleId: 'exists' }],
    });
  }
  return policy.id;
}

/** Keys the caller may see: all of its root's, or those of a scoped key's subaccount. */
export function visibleKeysWhere(caller: Caller) {
  const scoped = caller.kind === 'apiKey' ? caller.subaccountId : undefined;
  return { rootAccountId: caller.rootAccountId, ...(scoped !== undefined ? { subaccountId: scoped } : {}) };
}

export async function findVisible(ctx: ApiKeysContext, caller: Caller, keyId: string): Promise<KeyRow> {
  const row = /^ak_[0-9a-f]{32}$/.test(keyId)
    ? await ctx.db.apiKey.findFirst({ where: { keyId, ...visibleKeysWhere(caller) }, include: KEY_INCLUDE })
    : null;
  if (!row) throw errors.API_KEY_NOT_FOUND('API key not found');
  return row;
}

/** Strictly increasing per key, so equal updatedAt always means the same configuration. */
export function nextUpdatedAt(ctx: ApiKeysContext, previous: Date): Date {
  const now = ctx.clock.now();
  return now > previous ? now : new Date(previous.getTime() + 1);
}
