import type { Caller } from '../../auth/caller.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { errors } from '../../domain/errorCatalogue.ts';
import type { ChainContext } from './context.ts';
import { flowView } from './flowView.ts';
import { OWNER, visibleFlows } from './listFlows.ts';

/** Longer ids are never issued; over GraphQL they are answered as missing without a query. */
const FLOW_ID_MAX = 64;

/**
 * One flow by its public id, the handle spec 4.7 gives for following a withdrawal
 * (`intentId` is its flow's id) as for a deposit. A flow the caller may not see is as
 * missing as one that does not exist. `include` as for listFlows.
 */
export async function getFlow(ctx: ChainContext, caller: Caller, input: { flowId: string }, include: Prisma.LifecycleFlowInclude = {}) {
  const { visible } = await visibleFlows(ctx, caller);
  const row = input.flowId.length > FLOW_ID_MAX ? null : await ctx.db.lifecycleFlow.findFirst({ where: { ...visible, publicId: input.flowId }, include: { ...include, ...OWNER } });
  if (!row) throw errors.FLOW_NOT_FOUND('no flow with this id');
  return { flow: flowView(row, row.ownerAccount.publicId), row };
}
