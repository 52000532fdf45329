import type { LifecycleFlow } from '../../generated/prisma/client.ts';
import type { ChainContext } from './context.ts';
import { flowView } from './flowView.ts';

/** After a flow's change is stored: its new state to the `flowUpdates` subscribers of its root. */
export async function publishFlow(ctx: ChainContext, row: LifecycleFlow): Promise<void> {
  const [owner, root] = await Promise.all([
    ctx.db.account.findUniqueOrThrow({ where: { id: row.ownerAccountId }, select: { publicId: true } }),
    ctx.db.account.findUniqueOrThrow({ where: { id: row.rootAccountId }, select: { publicId: true } }),
  ]);
  ctx.publications.publish(`${ctx.topicPrefix}flows:${root.publicId}`, { ownerAccountId: owner.publicId, flow: flowView(row, owner.publicId) });
}
