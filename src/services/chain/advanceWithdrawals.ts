import { ApiError } from '../../domain/errors.ts';
import {
  approvedWithdraw,
  cancelWithdraw as cancelledFlow,
  approveWithdraw,
  catchUpWithdraw,
  confirmWithdraw,
  droppedWithdraw,
  expireWithdraw,
  readyToSettle,
  rejectWithdraw,
  settledWithdraw,
  VALIDATORS,
  type WithdrawFlow,
} from '../../domain/flows/withdraw.ts';
import { EXTERNAL_NETWORKS, type ExternalNetwork } from '../../domain/networks.ts';
import type { LifecycleFlow, Prisma, WithdrawIntent } from '../../generated/prisma/client.ts';
import { OPEN_WITHDRAW_STATUSES } from '../trading/index.ts';
import type { ChainContext } from './context.ts';
import { withdrawExpectations } from './expectedDurations.ts';
import { withdrawColumns, withdrawOf, type RequestFee } from './flowRecord.ts';
import { publishFlow, type FlowAccounts } from './publishFlow.ts';

type Expectations = Awaited<ReturnType<typeof withdrawExpectations>>;
type ExpectationsOf = (chainId: number, requiredConfirmations: number) => Promise<Expectations>;
type Row = LifecycleFlow & { withdrawIntent: WithdrawIntent | null } & { ownerAccount: { publicId: string }; rootAccount: { publicId: string } };

const include = { withdrawIntent: true, ownerAccount: { select: { publicId: true } }, rootAccount: { select: { publicId: true } } } as const;
const OPEN_INTENT: ReadonlySet<string> = new Set(OPEN_WITHDRAW_STATUSES);

/**
 * One block of the simulated chain for withdrawals to external chains: a validator approves
 * each one awaiting validation (with enough approvals it is marked SUBMITTED in an engine
 * job, and broadcast only once that is durable), each broadcast one gains a confirmation,
 * and one confirmed deeply enough is settled through the engine: its hold debited to
 * custody and the fee to the exchange, in ledger transfers carrying the flow's id. The intent's end is durable before the flow's, so a flow found open
 * behind an ended intent (a crash between the two) only catches up.
 */
export async function advanceWithdrawals(ctx: ChainContext): Promise<number> {
  // Intents ended before a crash must be visible before their flows are judged.
  await ctx.engine.readable();
  const open = await ctx.db.lifecycleFlow.findMany({ where: { flowKind: 'WITHDRAW_TO_EXTERNAL_CHAIN', isOpen: true }, orderBy: { id: 'asc' }, include });
  // One read of recent timings per chain and block, not one per flow.
  const expectations = new Map<number, Promise<Expectations>>();
  const expectedOn: ExpectationsOf = (chainId, confirmations) => {
    let e = expectations.get(chainId);
    if (!e) expectations.set(chainId, (e = withdrawExpectations(ctx, chainId, confirmations)));
    return e;
  };
  for (const row of open) {
    const now = ctx.clock.now().getTime();
    const before = withdrawOf(row);
    const intent = row.withdrawIntent as WithdrawIntent;
    const ended = caughtUp(row, before, now);
    let flow = ended ?? before;
    let txRef: string | undefined;
    if (ended) {
      // Its end is durable already: the flow only catches up.
    } else if (before.state === 'PENDING_VALIDATION' && intent.status === 'SUBMITTED') {
      // Marked for broadcast before a crash or a lost save: sent again (the same transaction).
      flow = approvedWithdraw(before, now);
      txRef = broadcast(ctx, row);
    } else if ((flow = expireWithdraw(before, now)) !== before) {
      // Marked for broadcast or ended meanwhile: the next block goes on from the intent.
      if (!(await ctx.engine.endWithdrawal({ id: intent.id, status: 'EXPIRED', failureReason: 'DEADLINE_EXPIRED' }, undefined, true))) flow = before;
    } else if (before.state === 'PENDING_VALIDATION') {
      flow = approveWithdraw(before, now);
      // SUBMITTED is durable before the chain sees the transaction; a reject or cancel that won sends nothing.
      if (flow.state === 'DESTINATION_CONFIRMING') {
        if (await ctx.engine.markWithdrawalSubmitted(intent.id)) txRef = broadcast(ctx, row);
        else flow = before;
      }
    } else {
      flow = confirmWithdraw(before, before.confirmations + 1, now);
      // Ended meanwhile (an operator's drop): the next block catches the flow up.
      if (readyToSettle(flow)) flow = (await settle(ctx, row)) ? settledWithdraw(flow, ctx.clock.now().getTime()) : before;
    }
    if (flow !== before) await saveWithdraw(ctx, row, flow, txRef, expectedOn);
  }
  return open.length;
}

/** The flow's end when its intent already ended (after a crash between the two); undefined while the intent is open. */
function caughtUp(row: Row, flow: WithdrawFlow, nowMs: number): WithdrawFlow | undefined {
  const intent = row.withdrawIntent;
  if (!intent || OPEN_INTENT.has(intent.status)) return undefined;
  const end = intent.status === 'FAILED' && intent.failureReason === 'TRANSACTION_DROPPED' ? 'DROPPED' : (intent.status as 'COMPLETED' | 'REJECTED' | 'EXPIRED' | 'CANCELED' | 'FAILED');
  return catchUpWithdraw(flow, end, nowMs);
}

function networkOf(row: LifecycleFlow): ExternalNetwork {
  return EXTERNAL_NETWORKS.get(row.serviceChainId as number) as ExternalNetwork;
}

/** Sends the approved withdrawal; the adapter names the same transaction for the same flow every time. */
function broadcast(ctx: ChainContext, row: Row): string {
  const network = networkOf(row);
  const asset = network.assets.find((a) => a.zippedAssetId === row.zippedAssetId);
  return ctx.chain.submitWithdrawal(network, { reference: row.publicId, to: row.destinationAddress as string, asset: asset?.symbol ?? '', amountE18: BigInt(row.amountE18.toFixed(0)) }).txHash;
}

/** Debits the hold: the amount to custody (it left on chain), the fee to the exchange. */
async function settle(ctx: ChainContext, row: Row): Promise<boolean> {
  const intent = row.withdrawIntent as WithdrawIntent;
  const fee = BigInt(intent.fee.toFixed(0));
  const custody = { accountId: ctx.systemAccounts.custody, ledgerAccount: 'FUNDING' as const, assetId: intent.assetId };
  const fees = { accountId: ctx.systemAccounts.fees, ledgerAccount: 'TRADING' as const, assetId: intent.assetId };
  return ctx.engine.endWithdrawal(
    { id: intent.id, status: 'COMPLETED', failureReason: null },
    {
      refs: [custody, fees],
      run: (job, hold) => {
        const amount = hold.held - fee;
        job.post({ code: 'WITHDRAW', flowId: row.id }, [{ ref: hold.ref, amount, debitFrom: 'held' }], [{ ref: custody, amount, kind: 'EXTERNAL_ADDRESS' }]);
        if (fee > 0n) job.post({ code: 'WITHDRAW_FEE', flowId: row.id }, [{ ref: hold.ref, amount: fee, debitFrom: 'held' }], [{ ref: fees, amount: fee, kind: 'EXCHANGE' }]);
      },
    },
  );
}

/**
 * Stores a withdraw flow's new state (and the broadcast transaction, once there is one),
 * then publishes it; only over the version it was read at, so a block and an operator's
 * call never overwrite each other (the loser's change is dropped; undefined).
 */
async function saveWithdraw(ctx: ChainContext, row: Row, flow: WithdrawFlow, txRef?: string, expectedOn: ExpectationsOf = (chainId, n) => withdrawExpectations(ctx, chainId, n)): Promise<LifecycleFlow | undefined> {
  const fee = row.requestFee as unknown as RequestFee;
  const expected = await expectedOn(row.serviceChainId as number, flow.requiredConfirmations);
  const data: Prisma.LifecycleFlowUpdateInput = {
    ...withdrawColumns(flow, expected, { amountE18: fee.amountE18, assetIds: fee.assetIds, recipientAddress: fee.recipientAddress }, VALIDATORS),
    version: { increment: 1 },
    latestLifecycleSource: txRef ? 'RELAYER' : flow.state === 'PENDING_VALIDATION' ? 'VALIDATOR' : 'INDEXER',
    ...(txRef ? { latestTxRef: txRef, sourceTxHash: txRef, txOccurrenceIndex: '0' } : {}),
  };
  const saved = await ctx.db.lifecycleFlow.update({ where: { id: row.id, version: row.version }, data }).catch((err: unknown) => {
    if ((err as { code?: string }).code === 'P2025') return undefined;
    throw err;
  });
  if (!saved) return undefined;
  const accounts: FlowAccounts = { owner: row.ownerAccount, root: row.rootAccount };
  await publishFlow(ctx, saved, accounts);
  return saved;
}

/**
 * Operator (simulator): the chain's validators reject the withdrawal, or its broadcast
 * transaction is dropped. Either releases the hold (the intent's end first) and ends the
 * flow with its reason. A reject is refused once the withdrawal is marked for broadcast.
 */
export async function failWithdraw(ctx: ChainContext, input: { flowId: string; how: 'REJECT' | 'DROP' }): Promise<LifecycleFlow> {
  await ctx.engine.readable();
  const row = await ctx.db.lifecycleFlow.findUnique({ where: { publicId: input.flowId }, include });
  if (!row || row.flowKind !== 'WITHDRAW_TO_EXTERNAL_CHAIN' || !row.withdrawIntent) throw new ApiError('not-found', 'no withdrawal flow has this id', { code: 'FLOW_NOT_FOUND' });
  const before = withdrawOf(row);
  const now = ctx.clock.now().getTime();
  const flow = input.how === 'DROP' ? droppedWithdraw(before, now) : rejectWithdraw(before, now);
  if (flow === before) {
    const can = input.how === 'DROP' ? 'only a broadcast withdrawal (DESTINATION_CONFIRMING) can be dropped' : 'only a withdrawal awaiting validation can be rejected';
    throw new ApiError('conflict', `${can}; this one is ${row.flowState}`, { code: 'FLOW_STATE_CONFLICT' });
  }
  const ended = await ctx.engine.endWithdrawal(
    input.how === 'DROP'
      ? { id: row.withdrawIntent.id, status: 'FAILED', failureReason: 'TRANSACTION_DROPPED' }
      : { id: row.withdrawIntent.id, status: 'REJECTED', failureReason: 'ZIPPER_VALIDATION_REJECTED' },
    undefined,
    input.how === 'REJECT',
  );
  if (!ended) throw new ApiError('conflict', 'the withdrawal was marked for broadcast or ended meanwhile', { code: 'FLOW_STATE_CONFLICT' });
  return followIntent(ctx, row.id);
}

/**
 * Its owner cancels a withdrawal not yet marked for broadcast: the hold is released and
 * the intent ends CANCELED in one engine job, then the flow fails with USER_CANCELED.
 * Once marked for broadcast (or ended) it is refused, and nothing is released.
 */
export async function cancelWithdraw(ctx: ChainContext, where: Prisma.LifecycleFlowWhereInput): Promise<LifecycleFlow> {
  await ctx.engine.readable();
  const row = await ctx.db.lifecycleFlow.findFirst({ where: { ...where, flowKind: 'WITHDRAW_TO_EXTERNAL_CHAIN' }, include });
  if (!row?.withdrawIntent) throw new ApiError('not-found', 'no withdrawal awaiting broadcast has this id', { code: 'FLOW_NOT_FOUND' });
  const before = withdrawOf(row);
  const refuse = () => new ApiError('conflict', `only a withdrawal not yet broadcast (PENDING_VALIDATION) can be canceled; this one is ${row.flowState === 'PENDING_VALIDATION' ? 'being broadcast' : row.flowState}`, { code: 'FLOW_STATE_CONFLICT' });
  if (cancelledFlow(before, ctx.clock.now().getTime()) === before) throw refuse();
  if (!(await ctx.engine.endWithdrawal({ id: row.withdrawIntent.id, status: 'CANCELED', failureReason: 'USER_CANCELED' }, undefined, true))) throw refuse();
  return followIntent(ctx, row.id);
}

/** The intent's end is durable: the flow follows it, over whatever a block changed meanwhile. */
async function followIntent(ctx: ChainContext, id: bigint): Promise<LifecycleFlow> {
  for (;;) {
    await ctx.engine.readable();
    const current = await ctx.db.lifecycleFlow.findUniqueOrThrow({ where: { id }, include });
    const next = caughtUp(current, withdrawOf(current), ctx.clock.now().getTime());
    if (!next || next.terminalAtMs === null || current.isTerminal) return current;
    const saved = await saveWithdraw(ctx, current, next);
    if (saved) return saved;
  }
}
