import { LAST_USED_HASH } from '../../auth/authenticate.ts';
import type { ApiKeysContext } from './context.ts';

/**
 * Moves last-use times from the shared store into the database. Requests only touch
 * the store; this runs on a timer so the database sees one write per key per period.
 */
export async function flushLastUsed(ctx: ApiKeysContext): Promise<number> {
  const entries = Object.entries(await ctx.store.hashTake(LAST_USED_HASH));
  for (const [keyId, ms] of entries) {
    const at = new Date(Number(ms));
    await ctx.db.apiKey.updateMany({
      where: { keyId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: at } }] },
      data: { lastUsedAt: at },
    });
  }
  return entries.length;
}
