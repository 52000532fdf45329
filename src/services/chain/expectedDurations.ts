import type { FlowStep } from '../../domain/flows/deposit.ts';
import type { ChainContext } from './context.ts';

/** How many of the latest completed flows an expectation is taken from. */
const RECENT = 20;

/**
 * Expected duration of each step of a deposit on `chainId` (spec 2.12: derived from recent
 * timings of the same flow kind and chain): the confirmation step takes what the latest
 * completed deposits there took on average, or, before there are any, the required
 * confirmations at the chain's block interval; settlement one block.
 */
export async function depositExpectations(ctx: ChainContext, chainId: number, requiredConfirmations: number): Promise<(step: FlowStep) => number> {
  const recent = await ctx.db.lifecycleFlow.findMany({
    where: { flowKind: 'DEPOSIT', serviceChainId: chainId, flowState: 'COMPLETED' },
    orderBy: { terminalAt: 'desc' },
    take: RECENT,
    select: { startedAt: true, terminalAt: true },
  });
  const took = recent.map((f) => (f.terminalAt as Date).getTime() - f.startedAt.getTime());
  const confirming = took.length > 0 ? Math.round(took.reduce((a, b) => a + b, 0) / took.length) : requiredConfirmations * ctx.blockMs;
  return (step) => (step === 'CONFIRMATIONS' ? confirming : step === 'SETTLEMENT' ? ctx.blockMs : 0);
}
