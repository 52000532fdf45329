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
  for (const read of open) {
    let row: LifecycleFlow | undefined = read;
    const accounts = { owner: read.ownerAccount, root: read.rootAccount };
    let flow = depositOf(row);
    const before = flow;
    flow = confirmDeposit(flow, flow.confirmations + 1, ctx.clock.now().getTime());
    if (flow !== before) row = await save(ctx, row, flow, await expectedOn(row, flow), accounts);
    // Stored as PENDING_DESTINATION before the credit: from then on a drop is refused, and a
    // drop stored first makes this save find another version and credit nothing.
    if (!row || flow.state !== 'PENDING_DESTINATION') continue;
    await credit(ctx, row);
    flow = creditedDeposit(flow, ctx.clock.now().getTime());
    await save(ctx, row, flow, await expectedOn(row, flow), accounts);
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
  // Locked in the job that credits it: no later job can move it off the account before finality.
  await ctx.engine.transfer([to, from], (job) => {
    job.post({ code: 'DEPOSIT', flowId: row.id }, [{ ref: from, amount, kind: 'EXTERNAL_ADDRESS' }], [{ ref: to, amount }]);
    job.lockDeposit({ ref: to, amount, serviceChainId: row.serviceChainId as number, flowId: row.id });
  });
}

/**
 * Stores the flow's next state only over the version it was read at (compare and set), so
 * a drop and a block never overwrite each other; undefined when another change came first.
 */
async function save(ctx: ChainContext, row: LifecycleFlow, flow: DepositFlow, expected: (step: FlowStep) => number, accounts: FlowAccounts): Promise<LifecycleFlow | undefined> {
  const { count } = await ctx.db.lifecycleFlow.updateMany({ where: { id: row.id, version: row.version }, data: { ...depositColumns(flow, expected), version: { increment: 1 } } });
  if (count === 0) return undefined;
  const saved = await ctx.db.lifecycleFlow.findUniqueOrThrow({ where: { id: row.id } });
  await publishFlow(ctx, saved, accounts);
  return saved;
}
