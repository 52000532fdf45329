import { DEPOSIT_STEPS, depositTimeline, type DepositFlow, type FlowStep } from '../../domain/flows/deposit.ts';
import type { LifecycleFlow, Prisma } from '../../generated/prisma/client.ts';

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

/**
 * The columns a deposit flow's state sets: state, step, timeline, progress, and the
 * estimate of its completion from `expectedMs` (recent timings of the same kind and chain).
 */
export function depositColumns(flow: DepositFlow, expectedMs: (step: FlowStep) => number) {
  const timeline = depositTimeline(flow, expectedMs);
  const terminal = flow.terminalAtMs !== null;
  const current = DEPOSIT_STEPS.indexOf(flow.step);
  const remaining = terminal ? 0 : DEPOSIT_STEPS.slice(current).reduce((a, s) => a + expectedMs(s), 0);
  const progress: Progress = {
    currentStepStartedAtUnixMs: flow.stepStartedAtMs,
    currentStepExpectedDurationMs: expectedMs(flow.step),
    currentConfirmations: flow.confirmations,
    requiredConfirmations: flow.requiredConfirmations,
    approveCount: 0,
    rejectCount: 0,
    validatorCount: 0,
    requiredApprovals: 0,
    requiredRejections: 0,
  };
  return {
    flowState: flow.state,
    currentStep: flow.step,
    currentStepSequence: current + 1,
    lifecycleReason: flow.reason,
    isOpen: !terminal,
    isTerminal: terminal,
    updatedAt: new Date(flow.updatedAtMs),
    lastActivityAt: new Date(flow.updatedAtMs),
    terminalAt: terminal ? new Date(flow.terminalAtMs as number) : null,
    estimatedCompletionAt: terminal ? new Date(flow.terminalAtMs as number) : new Date(flow.stepStartedAtMs + remaining),
    currentProgress: progress as unknown as Prisma.InputJsonValue,
    progressTimeline: timeline as unknown as Prisma.InputJsonValue,
  } satisfies Partial<Prisma.LifecycleFlowUncheckedCreateInput>;
}
