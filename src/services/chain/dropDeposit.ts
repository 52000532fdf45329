import { ApiError } from '../../domain/errors.ts';
import { droppedDeposit } from '../../domain/flows/deposit.ts';
import type { ChainContext } from './context.ts';
import { depositExpectations } from './expectedDurations.ts';
import { depositColumns, depositOf } from './flowRecord.ts';
import { publishFlow } from './publishFlow.ts';

/** The (simulated) chain dropped a deposit's transaction (a reorg) before it was credited: the flow ends, crediting nothing. */
export async function dropDeposit(ctx: ChainContext, input: { flowId: string }) {
  const row = await ctx.db.lifecycleFlow.findUnique({ where: { publicId: input.flowId } });
  if (!row || row.flowKind !== 'DEPOSIT') throw new ApiError('not-found', 'no such deposit flow', { code: 'FLOW_NOT_FOUND' });
  const flow = droppedDeposit(depositOf(row), ctx.clock.now().getTime());
  if (row.flowState !== 'SOURCE_CONFIRMING') throw new ApiError('conflict', `a ${row.flowState} deposit cannot be dropped`, { code: 'FLOW_NOT_DROPPABLE' });
  const expected = await depositExpectations(ctx, row.serviceChainId as number, flow.requiredConfirmations);
  // Only over the state it was read in: a block that stored the deposit as crediting first wins.
  const { count } = await ctx.db.lifecycleFlow.updateMany({ where: { id: row.id, version: row.version }, data: { ...depositColumns(flow, expected), latestLifecycleSource: 'INDEXER', version: { increment: 1 } } });
  const updated = await ctx.db.lifecycleFlow.findUniqueOrThrow({ where: { id: row.id } });
  if (count === 0) throw new ApiError('conflict', `a ${updated.flowState} deposit cannot be dropped`, { code: 'FLOW_NOT_DROPPABLE' });
  await publishFlow(ctx, updated);
  return updated;
}
