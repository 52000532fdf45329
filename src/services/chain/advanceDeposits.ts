import { confirmDeposit, creditedDeposit, type DepositFlow, type FlowStep } from '../../domain/flows/deposit.ts';
import type { LifecycleFlow } from '../../generated/prisma/client.ts';
import type { FlowMove } from '../trading/index.ts';
import type { ChainContext } from './context.ts';
import { depositExpectations } from './expectedDurations.ts';
import { depositColumns, depositOf, flowStep } from './flowRecord.ts';
import { publishFlow } from './publishFlow.ts';

/**
 * One block of the simulated chain: every confirming deposit gains a confirmation, and one
 * with enough is credited to its owner's FUNDING, locked until final and completed, all in
 * one engine job with a ledger transfer carrying the flow's id. Each step applies only over
 * the flow's version this block read (a drop that came first wins, and nothing is
 * credited), so a deposit is credited at most once and never once dropped.
 */
export async function advanceDeposits(ctx: ChainContext): Promise<number> {
  // Steps are computed from the table: it must show every step the engine took so far.
  await ctx.engine.readable();
  const open = await ctx.db.lifecycleFlow.findMany({
    where: { flowKind: 'DEPOSIT', isOpen: true },
    orderBy: { id: 'asc' },
    include: { ownerAccount: { select: { publicId: true } }, rootAccount: { select: { publicId: true } } },
  });
  // One read of recent timings per chain and block, not one per flow.
  const expectations = new Map<number, Promise<(step: FlowStep) => number>>();
  const expectedOn = (row: LifecycleFlow, flow: DepositFlow) => {
    const chainId = row.serviceChainId as number;
    let e = expectations.get(chainId);
    if (!e) expectations.set(chainId, (e = depositExpectations(ctx, chainId, flow.requiredConfirmations)));
    return e;
  };
  for (const row of open) {
    const accounts = { owner: row.ownerAccount, root: row.rootAccount };
    const before = depositOf(row);
    const now = ctx.clock.now().getTime();
    // A flow stored as PENDING_DESTINATION (by a version that credited in a second step) is credited now unless it was then.
    let flow = before.state === 'PENDING_DESTINATION' ? before : confirmDeposit(before, before.confirmations + 1, now);
    if (flow === before && before.state !== 'PENDING_DESTINATION') continue;
    const credits = flow.state === 'PENDING_DESTINATION';
    if (credits) flow = creditedDeposit(flow, now);
    const { move, after } = flowStep(row, depositColumns(flow, await expectedOn(row, flow)), { latestLifecycleSource: 'INDEXER' });
    const creditedBefore = before.state === 'PENDING_DESTINATION' && (await ctx.db.ledgerTransfer.findFirst({ where: { flowId: row.id }, select: { id: true } })) !== null;
    const applied = credits && !creditedBefore ? await credit(ctx, row, move) : await ctx.engine.flowJob([], async () => undefined, (job) => job.move(move));
    if (applied) await publishFlow(ctx, after, accounts);
  }
  return open.length;
}

/** The credit, its finality lock and the flow's completion: one job, only over the version read. */
function credit(ctx: ChainContext, row: LifecycleFlow, move: FlowMove): Promise<boolean> {
  const assetId = row.unifiedAssetId as number;
  const amount = BigInt(row.amountE18.toFixed(0));
  const to = { accountId: row.ownerAccountId, ledgerAccount: 'FUNDING' as const, assetId };
  const from = { accountId: ctx.systemAccounts.custody, ledgerAccount: 'FUNDING' as const, assetId };
  return ctx.engine.flowJob([to, from], async () => undefined, (job) => {
    if (!job.can(move)) return false;
    job.post({ code: 'DEPOSIT', flowId: row.id }, [{ ref: from, amount, kind: 'EXTERNAL_ADDRESS' }], [{ ref: to, amount }]);
    // Locked in the job that credits it: no later job can move it off the account before finality.
    job.lockDeposit({ ref: to, amount, serviceChainId: row.serviceChainId as number, flowId: row.id });
    return job.move(move);
  });
}
