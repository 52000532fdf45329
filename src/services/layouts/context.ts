import type { Caller } from '../../auth/caller.ts';
import type { Clock } from '../../infra/clock.ts';
import type { Db } from '../../infra/database.ts';
import { requirePermission } from '../access.ts';
import type { PageTokens } from '../pageTokens.ts';
import type { RateLimiter } from '../rateLimits.ts';
import { viewerIdOf } from './views.ts';

/** What the layout operations use. */
export interface LayoutsContext {
  db: Db;
  clock: Clock;
  pageTokens: PageTokens;
  limiter: Pick<RateLimiter, 'admit'>;
}

/** Layouts are the viewer's own UI data: READ is the least a key needs, for reads and writes alike. */
export function viewer(caller: Caller) {
  requirePermission(caller, 'READ');
  return { id: caller.rootAccountId, publicId: caller.rootPublicId, viewerId: viewerIdOf(caller.rootPublicId) };
}

export async function metered(ctx: LayoutsContext, caller: Caller, operation: 'layout.mutate' | 'layout.publish' | 'layout.search') {
  const v = viewer(caller);
  await ctx.limiter.admit(operation, { caller, account: { id: v.id, publicId: v.publicId, kind: 'ROOT', rootAccountId: v.id } });
  return v;
}
