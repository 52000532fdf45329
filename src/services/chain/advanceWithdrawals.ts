import { ApiError, errors } from '../../domain/errorCatalogue.ts';
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
import { flowStep, withdrawColumns, withdrawOf, type RequestFee } from './flowRecord.ts';
import type { FlowMove } from '../trading/index.ts';
import { publishFlow, type FlowAccounts } from './publishFlow.ts';
import { LifecycleReason } from '../../generated/prisma/enums.ts';

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
 * custody and the fee to the exchange, in ledger transfers carrying the flow's id. Every
 * step is an engine job over the flow's version this block read, the intent's change and
 * the money in the same job; a step that lost to another (an operator's, an owner's) is
 * dropped, and the next block goes on from what won.
 */
export async function advanceWithdrawals(ctx: ChainContext): Promise<number> {
  // Steps are computed from the table: it must show every step the engine took so far.
  await ctx.engine.readable();
  const open = await ctx.db.lifecycleFlow.findMany({ where: { flowKind: 'WITHDRAW_TO_EXTERNAL_CHAIN', isOpen: true }, orderBy: { id: 'asc' }, include });
  // One read of recent timings per chain and block, not one per flow.
  const expectations = new Map<number, Promise<Expectations>>();
  const expectedOn: ExpectationsOf = (chainId, confirmations) => {
    let e = expectations.get(chainId);
    if (!e) expectations.set(chainId, (e = withdrawExpectations(ctx, chainId, confirmations)));
    return e;
  };
  const step = (row: Row, flow: WithdrawFlow, txRef?: string) => withdrawStep(ctx, row, flow, txRef, expectedOn);
  for (const row of open) {
    const now = ctx.clock.now().getTime();
    const before = withdrawOf(row);
    const intent = row.withdrawIntent as WithdrawIntent;
    const ended = caughtUp(row, before, now);
    if (ended) {
      // Ended by a version that wrote the intent and the flow in two steps: the flow only catches up.
      await moveOnly(ctx, row, await step(row, ended));
    } else if ((before.state === 'PENDING_VALIDATION' && intent.status === 'SUBMITTED') || (before.state === 'DESTINATION_CONFIRMING' && !row.latestTxRef)) {
      // Marked for broadcast, and the process stopped before the transaction was recorded: sent again (the same transaction).
      const approved = before.state === 'PENDING_VALIDATION' ? approvedWithdraw(before, now) : before;
      await moveOnly(ctx, row, await step(row, approved, broadcast(ctx, row)));
    } else if (expireWithdraw(before, now) !== before) {
      const s = await step(row, expireWithdraw(before, now));
      if (await ctx.engine.endWithdrawal({ id: intent.id, status: 'EXPIRED', failureReason: LifecycleReason.DEADLINE_EXPIRED }, undefined, true, s.move)) await publishFlow(ctx, s.after, accountsOf(row));
    } else if (before.state === 'PENDING_VALIDATION') {
      const flow = approveWithdraw(before, now);
      const s = await step(row, flow);
      if (flow.state !== 'DESTINATION_CONFIRMING') {
        await moveOnly(ctx, row, s);
      } else if (await ctx.engine.markWithdrawalSubmitted(intent.id, s.move)) {
        // SUBMITTED, with the flow, is durable before the chain sees the transaction; a reject or cancel that won sends nothing.
        await publishFlow(ctx, s.after, accountsOf(row));
        const marked = { ...row, ...s.after };
        await moveOnly(ctx, marked, await step(marked, flow, broadcast(ctx, row)));
      }
    } else {
      const flow = confirmWithdraw(before, before.confirmations + 1, now);
      if (!readyToSettle(flow)) {
        await moveOnly(ctx, row, await step(row, flow));
      } else {
        const s = await step(row, settledWithdraw(flow, now));
        if (await settle(ctx, row, s.move)) await publishFlow(ctx, s.after, accountsOf(row));
      }
    }
  }
  return open.length;
}

const accountsOf = (row: Row): FlowAccounts => ({ owner: row.ownerAccount, root: row.rootAccount });

/** A step that moves no money (a validator's approval, a confirmation, the broadcast's transaction): an engine job all the same. */
async function moveOnly(ctx: ChainContext, row: Row, s: { move: FlowMove; after: LifecycleFlow }): Promise<boolean> {
  const applied = await ctx.engine.flowJob([], async () => undefined, (job) => job.move(s.move));
  if (applied) await publishFlow(ctx, s.after, accountsOf(row));
  return applied;
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
async function settle(ctx: ChainContext, row: Row, move: FlowMove): Promise<boolean> {
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
    false,
    move,
  );
}

/** A withdraw flow's next state as an engine flow step (and the broadcast transaction, once there is one). */
async function withdrawStep(ctx: ChainContext, row: LifecycleFlow, flow: WithdrawFlow, txRef?: string, expectedOn: ExpectationsOf = (chainId, n) => withdrawExpectations(ctx, chainId, n)) {
  const fee = row.requestFee as unknown as RequestFee;
  const expected = await expectedOn(row.serviceChainId as number, flow.requiredConfirmations);
  const columns = withdrawColumns(flow, expected, { amountE18: fee.amountE18, assetIds: fee.assetIds, recipientAddress: fee.recipientAddress }, VALIDATORS);
  return flowStep(row, columns, { latestLifecycleSource: txRef ? 'RELAYER' : flow.state === 'PENDING_VALIDATION' ? 'VALIDATOR' : 'INDEXER', ...(txRef ? { latestTxRef: txRef } : {}) });
}

/**
 * Operator (simulator): the chain's validators reject the withdrawal, or its broadcast
 * transaction is dropped. Either releases the hold and ends the intent and the flow with
 * its reason, in one engine job. A reject is refused once the withdrawal is marked for broadcast.
 */
export async function failWithdraw(ctx: ChainContext, input: { flowId: string; how: 'REJECT' | 'DROP' }): Promise<LifecycleFlow> {
  await ctx.engine.readable();
  const row = await ctx.db.lifecycleFlow.findUnique({ where: { publicId: input.flowId }, include });
  if (!row || row.flowKind !== 'WITHDRAW_TO_EXTERNAL_CHAIN' || !row.withdrawIntent) throw errors.FLOW_NOT_FOUND('no withdrawal flow has this id');
  const before = withdrawOf(row);
  // The operator's reject stands for the validators' verdict: the flow ends REJECTED at once.
  const transition = input.how === 'DROP' ? droppedWithdraw : (flow: WithdrawFlow, nowMs: number) => (rejectWithdraw(flow, nowMs) === flow ? flow : catchUpWithdraw(flow, 'REJECTED', nowMs));
  if (transition(before, ctx.clock.now().getTime()) === before) {
    const can = input.how === 'DROP' ? 'only a broadcast withdrawal (DESTINATION_CONFIRMING) can be dropped' : 'only a withdrawal awaiting validation can be rejected';
    throw errors.FLOW_STATE_CONFLICT(`${can}; this one is ${row.flowState}`);
  }
  const end = input.how === 'DROP' ? ({ status: 'FAILED', failureReason: 'TRANSACTION_DROPPED' } as const) : ({ status: 'REJECTED', failureReason: 'ZIPPER_VALIDATION_REJECTED' } as const);
  return endAgain(ctx, row, transition, end, input.how === 'REJECT', () => errors.FLOW_STATE_CONFLICT('the withdrawal was marked for broadcast or ended meanwhile'));
}

/**
 * Ends a withdrawal in one engine job: its hold released, its intent ended and its flow
 * moved on from the version read. A block's step that came first (an approval, a
 * confirmation) makes it read the flow again and retry while the end still applies; when
 * the flow did not move, the engine refused for the intent's sake (marked for broadcast,
 * or ended): `refuse`.
 */
async function endAgain(ctx: ChainContext, row: Row, transition: (flow: WithdrawFlow, nowMs: number) => WithdrawFlow, end: { status: 'FAILED' | 'REJECTED' | 'CANCELED'; failureReason: string }, onlyUnsubmitted: boolean, refuse: () => ApiError): Promise<LifecycleFlow> {
  const next = (current: Row) => {
    const flow = withdrawOf(current);
    const ended = transition(flow, ctx.clock.now().getTime());
    return ended === flow ? undefined : ended;
  };
  let current = row;
  let ending = next(row);
  for (;;) {
    if (!ending) throw refuse();
    const s = await withdrawStep(ctx, current, ending);
    if (await ctx.engine.endWithdrawal({ id: (current.withdrawIntent as WithdrawIntent).id, ...end }, undefined, onlyUnsubmitted, s.move)) {
      await publishFlow(ctx, s.after, accountsOf(current));
      return s.after;
    }
    await ctx.engine.readable();
    const reread = await ctx.db.lifecycleFlow.findUniqueOrThrow({ where: { id: row.id }, include });
    ending = reread.version !== current.version ? next(reread) : undefined;
    current = reread;
  }
}

/**
 * Its owner cancels a withdrawal not yet marked for broadcast: the hold is released, the
 * intent ends CANCELED and the flow fails with USER_CANCELED, in one engine job.
 * Once marked for broadcast (or ended) it is refused, and nothing is released.
 */
export async function cancelWithdraw(ctx: ChainContext, where: Prisma.LifecycleFlowWhereInput): Promise<LifecycleFlow> {
  await ctx.engine.readable();
  const row = await ctx.db.lifecycleFlow.findFirst({ where: { ...where, flowKind: 'WITHDRAW_TO_EXTERNAL_CHAIN' }, include });
  if (!row?.withdrawIntent) throw errors.FLOW_NOT_FOUND('no withdrawal awaiting broadcast has this id');
  const refuse = () => errors.FLOW_STATE_CONFLICT(`only a withdrawal not yet broadcast (PENDING_VALIDATION) can be canceled; this one is ${row.flowState === 'PENDING_VALIDATION' ? 'being broadcast' : row.flowState}`);
  return endAgain(ctx, row, cancelledFlow, { status: 'CANCELED', failureReason: 'USER_CANCELED' }, true, refuse);
}
