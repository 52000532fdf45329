import type { FlowStep } from '../../domain/flows/deposit.ts';
import { VALIDATORS, type WithdrawStep } from '../../domain/flows/withdraw.ts';
import type { FlowKind } from '../../generated/prisma/client.ts';
import type { ChainContext } from './context.ts';

/** How many of the latest completed flows an expectation is taken from. */
const RECENT = 20;

/** The average time the latest completed flows of a kind on a chain took, start to end; undefined before there are any. */
async function recentDurationMs(ctx: ChainContext, flowKind: FlowKind, chainId: number): Promise<number | undefined> {
  const recent = await ctx.db.lifecycleFlow.findMany({
    where: { flowKind, serviceChainId: chainId, flowState: 'COMPLETED' },
    orderBy: { terminalAt: 'desc' },
    take: RECENT,
    select: { startedAt: true, terminalAt: true },
  });
  if (recent.length === 0) return undefined;
  return Math.round(recent.reduce((a, f) => a + ((f.terminalAt as Date).getTime() - f.startedAt.getTime()), 0) / recent.length);
}

/**
 * Expected duration of each step of a deposit on `chainId` (spec 2.12: derived from recent
 * timings of the same flow kind and chain): the confirmation step takes what the latest
 * completed deposits there took on average, or, before there are any, the required
 * confirmations at the chain's block interval; settlement one block.
 */
export async function depositExpectations(ctx: ChainContext, chainId: number, requiredConfirmations: number): Promise<(step: FlowStep) => number> {
  const confirming = (await recentDurationMs(ctx, 'DEPOSIT', chainId)) ?? requiredConfirmations * ctx.blockMs;
  return (step) => (step === 'CONFIRMATIONS' ? confirming : step === 'SETTLEMENT' ? ctx.blockMs : 0);
}

/**
 * Expected duration of each step of a withdrawal to `chainId`: the latest completed ones'
 * average, shared between validation and confirmations in proportion to the blocks each
 * needs (one approval or one confirmation per block); before there are any, those blocks
 * at the chain's block interval.
 */
export async function withdrawExpectations(ctx: ChainContext, chainId: number, requiredConfirmations: number): Promise<(step: WithdrawStep) => number> {
  const blocks = VALIDATORS.requiredApprovals + requiredConfirmations;
  const total = (await recentDurationMs(ctx, 'WITHDRAW_TO_EXTERNAL_CHAIN', chainId)) ?? blocks * ctx.blockMs;
  const validation = Math.round((total * VALIDATORS.requiredApprovals) / blocks);
  return (step) => (step === 'VALIDATION' ? validation : step === 'DESTINATION' ? total - validation : 0);
}
