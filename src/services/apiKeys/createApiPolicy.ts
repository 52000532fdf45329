import { PERMISSIONS, type Caller, type Permission } from '../../auth/caller.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { newPublicId } from '../../domain/ids.ts';
import { requireSession } from '../access.ts';
import type { ApiKeysContext } from './context.ts';
import { POLICY_NAME_MAX } from './createApiPolicy.schema.ts';
import { policyView } from './views.ts';

/** A named set of permissions keys can attach (sessions only). */
export async function createApiPolicy(ctx: ApiKeysContext, caller: Caller, input: { name: string; permissions: string[] }) {
  requireSession(caller);
  await ctx.limiter.admit('security.api_policy_mutate', { caller });
  const name = input.name.trim();
  if (name.length < 1 || name.length > POLICY_NAME_MAX) {
    throw invalidArgument('name', `must be 1 to ${POLICY_NAME_MAX} characters`, 'length');
  }
  const permissions = [...new Set(input.permissions)];
  permissions.forEach((p, i) => {
    if (!(PERMISSIONS as readonly string[]).includes(p)) {
      throw invalidArgument(`permissions[${i}]`, `must be one of ${PERMISSIONS.join(', ')}`, 'enum');
    }
  });
  const now = ctx.clock.now();
  const row = await ctx.db.apiPolicy.create({
    data: {
      policyId: newPublicId(),
      ownerAccountId: caller.rootAccountId,
      name,
      permissions: permissions as Permission[],
      createdAt: now,
      updatedAt: now,
    },
  });
  return { policy: policyView(row) };
}
