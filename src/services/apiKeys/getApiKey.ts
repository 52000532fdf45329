import type { Caller } from '../../auth/caller.ts';
import { requirePermission } from '../access.ts';
import { findVisible } from './checks.ts';
import type { ApiKeysContext } from './context.ts';
import { one } from './views.ts';

export async function getApiKey(ctx: ApiKeysContext, caller: Caller, input: { keyId: string }) {
  requirePermission(caller, 'READ');
  return one(ctx, await findVisible(ctx, caller, input.keyId));
}
