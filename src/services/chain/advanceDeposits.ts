import { confirmDeposit, creditedDeposit, type DepositFlow, type FlowStep } from '../../domain/flows/deposit.ts';
import type { LifecycleFlow } from '../../generated/prisma/client.ts';
import type { ChainContext } from './context.ts';
import { depositExpectations } from './expectedDurations.ts';
import { depositColumns, depositOf } from './flowRecord.ts';
import { publishFlow, type FlowAccounts } from './publishFlow.ts';

/**
 * One block of the simulated chain: every confirming deposit gains a confirmation, and one
 * with enough is credited to its owner's FUNDING through the trading engine, in a ledger
 * transfer carrying the flow's id, then completed. Exactly once: a flow left between its
 * credit and its completion (a crash) finds its transfer by flow id and only completes.
 */
export async function advanceDeposits(ctx: ChainContext): Promise<number> {
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
    let flow = depositOf(row);
    const now = ctx.clock.now().getTime();
    const before = flow;
    flow = confirmDeposit(flow, flow.confirmations + 1, now);
    if (flow.state === 'PENDING_DESTINATION') {
      await credit(ctx, row);
      flow = creditedDeposit(flow, ctx.clock.now().getTime());
    }
    if (flow !== before) await save(ctx, row, flow, await expectedOn(row, flow), { owner: row.ownerAccount, root: row.rootAccount });
  }
  return open.length;
}

async function credit(ctx: ChainContext, row: LifecycleFlow): Promise<void> {
  // Credited before a crash? The read tables are brought up to date first.
  await ctx.engine.readable();
  if (await ctx.db.ledgerTransfer.findFirst({ where: { flowId: row.id }, select: { id: true } })) return;
  const assetId = row.unifiedAssetId as number;
  const amount = BigInt(row.amountE18.toFixed(0));
  const to = { accountId: row.ownerAccountId, ledgerAccount: 'FUNDING' as const, assetId };
  const from = { accountId: ctx.systemAccounts.custody, ledgerAccount: 'FUNDING' as const, assetId };
  await ctx.engine.transfer([to, from], (job) => job.post({ code: 'DEPOSIT', flowId: row.id }, [{ ref: from, amount, kind: 'EXTERNAL_ADDRESS' }], [{ ref: to, amount }]));
}

async function save(ctx: ChainContext, row: LifecycleFlow, flow: DepositFlow, expected: (step: FlowStep) => number, accounts: FlowAccounts): Promise<void> {
  await publishFlow(ctx, await ctx.db.lifecycleFlow.update({ where: { id: row.id }, data: { ...depositColumns(flow, expected), version: { increment: 1 } } }), accounts);
}
