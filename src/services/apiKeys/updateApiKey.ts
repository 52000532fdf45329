import type { Caller } from '../../auth/caller.ts';
import { errors } from '../../domain/errorCatalogue.ts';
import { requireSession } from '../access.ts';
import { checkExpiry, checkLabel, checkToken, checkWhitelist, findVisible, nextUpdatedAt, policyIdOf } from './checks.ts';
import type { ApiKeysContext } from './context.ts';
import { KEY_INCLUDE, one } from './views.ts';

export interface UpdateApiKeyInput {
  keyId: string;
  expectedRevision: bigint;
  label?: string;
  icon?: string;
  color?: string;
  ipWhitelist?: string[];
  /** "" detaches the policy. */
  policyId?: string;
  /** null removes the expiry. */
  expiresAt?: Date | null;
}

/** Conditional on `expectedRevision` (sessions only); a revoked key cannot be changed. */
export async function updateApiKey(ctx: ApiKeysContext, caller: Caller, input: UpdateApiKeyInput) {
  requireSession(caller);
  await ctx.limiter.admit('security.api_key_update', { caller });
  const current = await findVisible(ctx, caller, input.keyId);
  if (current.status !== 'ACTIVE') {
    throw errors.CONFLICT_API_KEY_REVOKED('a revoked key cannot be changed');
  }
  const now = ctx.clock.now();
  const data = {
    ...(input.label !== undefined ? { label: checkLabel(input.label) } : {}),
    ...(input.icon !== undefined ? { icon: checkToken('icon', input.icon) } : {}),
    ...(input.color !== undefined ? { color: checkToken('color', input.color) } : {}),
    ...(input.ipWhitelist !== undefined ? { ipWhitelist: checkWhitelist(input.ipWhitelist) } : {}),
    ...(input.policyId !== undefined ? { policyId: input.policyId === '' ? null : await policyIdOf(ctx, caller, input.policyId) } : {}),
    ...(input.expiresAt !== undefined ? { expiresAt: input.expiresAt === null ? null : checkExpiry(input.expiresAt, now) } : {}),
  };
  // The revision check and the write are one statement: concurrent updates cannot both win.
  const updated = await ctx.db.apiKey.updateMany({
    where: { id: current.id, revision: input.expectedRevision, status: 'ACTIVE' },
    data: { ...data, revision: { increment: 1 }, updatedAt: nextUpdatedAt(ctx, current.updatedAt) },
  });
  if (updated.count !== 1) {
    throw errors.CONFLICT_STALE_REVISION(`expectedRevision ${input.expectedRevision} is not the key's current revision`, {
      violations: [{ fieldPath: 'expectedRevision', message: 'is stale', ruleId: 'current-revision' }],
    });
  }
  ctx.authenticator.keyChanged(input.keyId);
  return one(ctx, await ctx.db.apiKey.findUniqueOrThrow({ where: { id: current.id }, include: KEY_INCLUDE }));
}
