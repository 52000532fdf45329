import type { Caller } from '../../auth/caller.ts';
import { requireSession } from '../access.ts';
import { findVisible, nextUpdatedAt } from './checks.ts';
import type { ApiKeysContext } from './context.ts';
import { KEY_INCLUDE, one } from './views.ts';

/** Idempotent: revoking a revoked key answers it unchanged. */
export async function revokeApiKey(ctx: ApiKeysContext, caller: Caller, input: { keyId: string }) {
  requireSession(caller);
  await ctx.limiter.admit('security.api_key_delete', { caller });
  const current = await findVisible(ctx, caller, input.keyId);
  if (current.status === 'REVOKED') return one(ctx, current);
  const row = await ctx.db.apiKey.update({
    where: { id: current.id },
    data: {
      status: 'REVOKED',
      revokedAt: ctx.clock.now(),
      revision: { increment: 1 },
      updatedAt: nextUpdatedAt(ctx, current.updatedAt),
    },
    include: KEY_INCLUDE,
  });
  ctx.authenticator.keyChanged(input.keyId);
  return one(ctx, row);
}
