import type { LifecycleFlow } from '../../generated/prisma/client.ts';
import type { ChainContext } from './context.ts';
import { flowView } from './flowView.ts';

/** The public ids a flow event names; read with the flow where the caller can. */
export type FlowAccounts = { owner: { publicId: string }; root: { publicId: string } };

/** After a flow's change is stored: its new state to the `flowUpdates` subscribers of its root. */
export async function publishFlow(ctx: ChainContext, row: LifecycleFlow, known?: FlowAccounts): Promise<void> {
  const { owner, root } = known ?? {
    owner: await ctx.db.account.findUniqueOrThrow({ where: { id: row.ownerAccountId }, select: { publicId: true } }),
    root: await ctx.db.account.findUniqueOrThrow({ where: { id: row.rootAccountId }, select: { publicId: true } }),
  };
  ctx.topics.publish('flows', root.publicId, { ownerAccountId: owner.publicId, flow: flowView(row, owner.publicId) });
}
