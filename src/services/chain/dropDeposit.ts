import { errors } from '../../domain/errorCatalogue.ts';
import { droppedDeposit } from '../../domain/flows/deposit.ts';
import type { ChainContext } from './context.ts';
import { depositExpectations } from './expectedDurations.ts';
import { depositColumns, depositOf, flowStep } from './flowRecord.ts';
import { publishFlow } from './publishFlow.ts';

/**
 * The (simulated) chain dropped a deposit's transaction (a reorg) before it was credited:
 * the flow ends, crediting nothing. An engine job ends it only over the version it was read
 * at, so a block crediting it and this drop never both apply: a confirmation that came
 * first is read again, a credit that came first makes the drop 409 `FLOW_NOT_DROPPABLE`.
 */
export async function dropDeposit(ctx: ChainContext, input: { flowId: string }) {
  for (;;) {
    await ctx.engine.readable();
    const row = await ctx.db.lifecycleFlow.findUnique({ where: { publicId: input.flowId } });
    if (!row || row.flowKind !== 'DEPOSIT') throw errors.FLOW_NOT_FOUND('no such deposit flow');
    if (row.flowState !== 'SOURCE_CONFIRMING') throw errors.FLOW_NOT_DROPPABLE(`a ${row.flowState} deposit cannot be dropped`);
    const flow = droppedDeposit(depositOf(row), ctx.clock.now().getTime());
    const expected = await depositExpectations(ctx, row.serviceChainId as number, flow.requiredConfirmations);
    const { move, after } = flowStep(row, depositColumns(flow, expected), { latestLifecycleSource: 'INDEXER' });
    if (await ctx.engine.flowJob([], async () => undefined, (job) => job.move(move))) {
      await publishFlow(ctx, after);
      return after;
    }
  }
}
