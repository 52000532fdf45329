import type { Caller } from '../../auth/caller.ts';
import { metered, type LayoutsContext } from './context.ts';
import { findLayout, lockViewer } from './store.ts';

/** Published templates keep their versions: they are snapshots. */
export async function deleteLayout(ctx: LayoutsContext, caller: Caller, input: { layoutId: bigint }) {
  const v = await metered(ctx, caller, 'layout.mutate');
  await ctx.db.$transaction(async (tx) => {
    await lockViewer(tx, v.id);
    const row = await findLayout(tx, v.id, input.layoutId);
    await tx.layout.delete({ where: { id: row.id } });
  });
  return {};
}
