import { DEPOSIT_STEPS, depositTimeline, type DepositFlow, type FlowStep } from '../../domain/flows/deposit.ts';
import { stepsOf, withdrawTimeline, type FeeStatus, type WithdrawFlow, type WithdrawStep } from '../../domain/flows/withdraw.ts';
import type { LifecycleFlow, Prisma } from '../../generated/prisma/client.ts';
import type { FlowMove } from '../trading/index.ts';

/** What a flow's row keeps of its `currentProgress` (spec 2.12), numbers as JSON numbers. */
interface Progress {
  currentStepStartedAtUnixMs: number;
  currentStepExpectedDurationMs: number;
  currentConfirmations: number;
  requiredConfirmations: number;
  approveCount: number;
  rejectCount: number;
  validatorCount: number;
  requiredApprovals: number;
  requiredRejections: number;
}

/** Spec 2.12 `requestFee` as a row keeps it. */
export interface RequestFee {
  amountE18: { hi: string; lo: string };
  assetIds: { zippedAssetId: number; unifiedAssetId: number };
  recipientAddress: string;
  status: FeeStatus;
}

const U64 = (1n << 64n) - 1n;
/** A uint128 as spec 2.12's {hi, lo} decimal halves. */
export const u128 = (v: bigint) => ({ hi: (v >> 64n).toString(), lo: (v & U64).toString() });

/** The deposit flow a row holds, for the state machine to move on. */
export function depositOf(row: LifecycleFlow): DepositFlow {
  const p = row.currentProgress as unknown as Progress;
  return {
    state: row.flowState as DepositFlow['state'],
    step: row.currentStep as FlowStep,
    confirmations: p.currentConfirmations,
    requiredConfirmations: p.requiredConfirmations,
    reason: row.lifecycleReason as DepositFlow['reason'],
    startedAtMs: row.startedAt.getTime(),
    stepStartedAtMs: p.currentStepStartedAtUnixMs,
    updatedAtMs: row.updatedAt.getTime(),
    terminalAtMs: row.terminalAt?.getTime() ?? null,
  };
}

/** The withdraw flow a row holds. */
export function withdrawOf(row: LifecycleFlow): WithdrawFlow {
  const p = row.currentProgress as unknown as Progress;
  return {
    kind: row.flowKind as WithdrawFlow['kind'],
    state: row.flowState as WithdrawFlow['state'],
    step: row.currentStep as WithdrawStep,
    approvals: p.approveCount,
    rejections: p.rejectCount,
    confirmations: p.currentConfirmations,
    requiredConfirmations: p.requiredConfirmations,
    reason: row.lifecycleReason as WithdrawFlow['reason'],
    feeStatus: ((row.requestFee as unknown as RequestFee | null)?.status ?? 'LOCKED') as FeeStatus,
    startedAtMs: row.startedAt.getTime(),
    stepStartedAtMs: p.currentStepStartedAtUnixMs,
    updatedAtMs: row.updatedAt.getTime(),
    terminalAtMs: row.terminalAt?.getTime() ?? null,
  };
}

interface Moving<S extends string> {
  state: string;
  step: S;
  reason: string | null;
  stepStartedAtMs: number;
  updatedAtMs: number;
  terminalAtMs: number | null;
}

/** The columns every flow's state sets: state, step, timeline, progress, and the estimate of its completion. */
function flowColumns<S extends string>(steps: readonly S[], flow: Moving<S>, timeline: unknown, progress: Omit<Progress, 'currentStepStartedAtUnixMs' | 'currentStepExpectedDurationMs'>, expectedMs: (step: S) => number) {
  const terminal = flow.terminalAtMs !== null;
  const current = steps.indexOf(flow.step);
  const remaining = terminal ? 0 : steps.slice(current).reduce((a, s) => a + expectedMs(s), 0);
  const full: Progress = { currentStepStartedAtUnixMs: flow.stepStartedAtMs, currentStepExpectedDurationMs: expectedMs(flow.step), ...progress };
  return {
    flowState: flow.state as LifecycleFlow['flowState'],
    currentStep: flow.step as LifecycleFlow['currentStep'],
    currentStepSequence: current + 1,
    lifecycleReason: flow.reason as LifecycleFlow['lifecycleReason'],
    isOpen: !terminal,
    isTerminal: terminal,
    updatedAt: new Date(flow.updatedAtMs),
    lastActivityAt: new Date(flow.updatedAtMs),
    terminalAt: terminal ? new Date(flow.terminalAtMs as number) : null,
    estimatedCompletionAt: terminal ? new Date(flow.terminalAtMs as number) : new Date(flow.stepStartedAtMs + remaining),
    currentProgress: full as unknown as Prisma.InputJsonValue,
    progressTimeline: timeline as Prisma.InputJsonValue,
  } satisfies Partial<Prisma.LifecycleFlowUncheckedCreateInput>;
}

/** The columns a deposit flow's state sets, expectations from `expectedMs` (recent timings of the same kind and chain). */
export function depositColumns(flow: DepositFlow, expectedMs: (step: FlowStep) => number) {
  const progress = { currentConfirmations: flow.confirmations, requiredConfirmations: flow.requiredConfirmations, approveCount: 0, rejectCount: 0, validatorCount: 0, requiredApprovals: 0, requiredRejections: 0 };
  return flowColumns(DEPOSIT_STEPS, flow, depositTimeline(flow, expectedMs), progress, expectedMs);
}

/** The columns a withdraw flow's state sets, its request fee's status with them. */
export function withdrawColumns(flow: WithdrawFlow, expectedMs: (step: WithdrawStep) => number, fee: Omit<RequestFee, 'status'>, validators: { validatorCount: number; requiredApprovals: number; requiredRejections: number }) {
  const progress = { currentConfirmations: flow.confirmations, requiredConfirmations: flow.requiredConfirmations, approveCount: flow.approvals, rejectCount: flow.rejections, ...validators };
  const requestFee: RequestFee = { ...fee, status: flow.feeStatus };
  return { ...flowColumns(stepsOf(flow.kind), flow, withdrawTimeline(flow, expectedMs), progress, expectedMs), requestFee: requestFee as unknown as Prisma.InputJsonValue };
}

/** Where a flow step leaves the columns `depositColumns` and `withdrawColumns` do not set. */
interface Sources {
  latestLifecycleSource: NonNullable<LifecycleFlow['latestLifecycleSource']>;
  latestTxRef?: string;
}

/**
 * A flow's next state as an engine flow step over the version `row` was read at (the
 * engine applies it only if the flow is still there), and the row as it stands after it,
 * to publish without reading it back.
 */
export function flowStep(row: LifecycleFlow, columns: ReturnType<typeof depositColumns> | ReturnType<typeof withdrawColumns>, sources: Sources): { move: FlowMove; after: LifecycleFlow } {
  const requestFee = 'requestFee' in columns ? columns.requestFee : (row.requestFee as Prisma.InputJsonValue | null);
  const tx = sources.latestTxRef !== undefined ? { latestTxRef: sources.latestTxRef, sourceTxHash: sources.latestTxRef, txOccurrenceIndex: '0' } : { latestTxRef: row.latestTxRef, sourceTxHash: row.sourceTxHash, txOccurrenceIndex: row.txOccurrenceIndex };
  const next = {
    id: row.id,
    flowState: columns.flowState,
    currentStep: columns.currentStep,
    currentStepSequence: columns.currentStepSequence,
    lifecycleReason: columns.lifecycleReason,
    isOpen: columns.isOpen,
    isTerminal: columns.isTerminal,
    updatedAt: columns.updatedAt,
    lastActivityAt: columns.lastActivityAt,
    terminalAt: columns.terminalAt,
    estimatedCompletionAt: columns.estimatedCompletionAt,
    currentProgress: JSON.stringify(columns.currentProgress),
    progressTimeline: JSON.stringify(columns.progressTimeline),
    requestFee: requestFee === null ? null : JSON.stringify(requestFee),
    latestLifecycleSource: sources.latestLifecycleSource,
    ...tx,
  };
  const after = { ...row, ...columns, requestFee, latestLifecycleSource: sources.latestLifecycleSource, ...tx, version: row.version + 1n } as LifecycleFlow;
  return { move: { next, from: row.version }, after };
}
