import { later, timeline } from './timeline.ts';
import { LifecycleReason } from '../../generated/prisma/enums.ts';

/**
 * The withdraw flows (spec 2.12, issue 14): pure, times passed in (epoch ms).
 *
 * To an external chain: the amount and fee are held at submission (SOURCE), validators
 * approve or reject it (VALIDATION), it is broadcast and gathers confirmations
 * (DESTINATION), and is settled (COMPLETE). It fails without settling when validators
 * reject it, when it is not broadcast by the server's execution deadline, or when its
 * transaction is dropped: then the hold is released and the fee refunded.
 *
 * To Funding: moved in the same commit that accepts it, so it starts completed.
 *
 * Steps only move forward, a terminal flow never changes again, and times never go back.
 */
export type WithdrawState = 'PENDING_VALIDATION' | 'DESTINATION_CONFIRMING' | 'COMPLETED' | 'REJECTED' | 'EXPIRED' | 'DROPPED' | 'FAILED';
export type WithdrawStep = 'SOURCE' | 'VALIDATION' | 'DESTINATION' | 'SETTLEMENT' | 'COMPLETE';
export type WithdrawReason = 'ZIPPER_VALIDATION_REJECTED' | typeof LifecycleReason.DEADLINE_EXPIRED | 'TRANSACTION_DROPPED' | 'USER_CANCELED' | 'INTERNAL_ERROR';
export type FeeStatus = 'LOCKED' | 'SETTLED' | 'REFUNDED';
export type WithdrawKind = 'WITHDRAW_TO_EXTERNAL_CHAIN' | 'WITHDRAW_TO_FUNDING';

export const EXTERNAL_STEPS: readonly WithdrawStep[] = ['SOURCE', 'VALIDATION', 'DESTINATION', 'COMPLETE'];
export const FUNDING_STEPS: readonly WithdrawStep[] = ['SOURCE', 'SETTLEMENT', 'COMPLETE'];
export const stepsOf = (kind: WithdrawKind) => (kind === 'WITHDRAW_TO_FUNDING' ? FUNDING_STEPS : EXTERNAL_STEPS);

/** Validators of the (simulated) bridge: a majority approves, a majority rejects. */
export const VALIDATORS = { validatorCount: 3, requiredApprovals: 2, requiredRejections: 2 } as const;
/** How long a withdrawal may wait for its validators before the server gives up and releases it. */
export const EXECUTION_WINDOW_MS = 60 * 60 * 1000;

export interface WithdrawFlow {
  kind: WithdrawKind;
  state: WithdrawState;
  step: WithdrawStep;
  approvals: number;
  rejections: number;
  confirmations: number;
  requiredConfirmations: number;
  reason: WithdrawReason | null;
  feeStatus: FeeStatus;
  startedAtMs: number;
  stepStartedAtMs: number;
  updatedAtMs: number;
  terminalAtMs: number | null;
}

export const isTerminalWithdraw = (f: Pick<WithdrawFlow, 'terminalAtMs'>): boolean => f.terminalAtMs !== null;

/** Accepted, with its amount and fee held: validation begins (or, to Funding, it is done). */
export function submitWithdraw(input: { kind: WithdrawKind; requiredConfirmations: number; nowMs: number }): WithdrawFlow {
  const at = input.nowMs;
  const base = { kind: input.kind, approvals: 0, rejections: 0, confirmations: 0, requiredConfirmations: input.requiredConfirmations, reason: null, startedAtMs: at, stepStartedAtMs: at, updatedAtMs: at };
  if (input.kind === 'WITHDRAW_TO_FUNDING') return { ...base, state: 'COMPLETED', step: 'COMPLETE', feeStatus: 'SETTLED', terminalAtMs: at };
  return { ...base, state: 'PENDING_VALIDATION', step: 'VALIDATION', feeStatus: 'LOCKED', terminalAtMs: null };
}

/** One validator approves: with enough approvals the withdrawal is broadcast. */
export function approveWithdraw(flow: WithdrawFlow, nowMs: number): WithdrawFlow {
  if (flow.state !== 'PENDING_VALIDATION') return flow;
  const at = later(flow, nowMs);
  const approvals = flow.approvals + 1;
  if (approvals < VALIDATORS.requiredApprovals) return { ...flow, approvals, updatedAtMs: at };
  return { ...flow, approvals, state: 'DESTINATION_CONFIRMING', step: 'DESTINATION', stepStartedAtMs: at, updatedAtMs: at };
}

/**
 * Its validators approved it and it was marked for broadcast before a crash (or before a
 * concurrent block saved the flow): it takes the approvals it had, ready to be sent again.
 */
export function approvedWithdraw(flow: WithdrawFlow, nowMs: number): WithdrawFlow {
  if (flow.state !== 'PENDING_VALIDATION') return flow;
  const at = later(flow, nowMs);
  return { ...flow, approvals: Math.max(flow.approvals, VALIDATORS.requiredApprovals), state: 'DESTINATION_CONFIRMING', step: 'DESTINATION', stepStartedAtMs: at, updatedAtMs: at };
}

/** One validator rejects: with enough rejections the withdrawal ends, its hold to be released. */
export function rejectWithdraw(flow: WithdrawFlow, nowMs: number): WithdrawFlow {
  if (flow.state !== 'PENDING_VALIDATION') return flow;
  const at = later(flow, nowMs);
  const rejections = flow.rejections + 1;
  if (rejections < VALIDATORS.requiredRejections) return { ...flow, rejections, updatedAtMs: at };
  return end({ ...flow, rejections }, 'REJECTED', 'ZIPPER_VALIDATION_REJECTED', at);
}

/** The chain reports `confirmations` of the broadcast transaction (never fewer than before). */
export function confirmWithdraw(flow: WithdrawFlow, confirmations: number, nowMs: number): WithdrawFlow {
  if (flow.state !== 'DESTINATION_CONFIRMING' || confirmations <= flow.confirmations) return flow;
  return { ...flow, confirmations, updatedAtMs: later(flow, nowMs) };
}

/** Confirmed deeply enough: the hold may be settled. */
export const readyToSettle = (flow: WithdrawFlow): boolean => flow.state === 'DESTINATION_CONFIRMING' && flow.confirmations >= flow.requiredConfirmations;

/** The hold is settled (debited, fee to the exchange): the flow is complete. */
export function settledWithdraw(flow: WithdrawFlow, nowMs: number): WithdrawFlow {
  if (!readyToSettle(flow)) return flow;
  const at = later(flow, nowMs);
  return { ...flow, state: 'COMPLETED', step: 'COMPLETE', feeStatus: 'SETTLED', stepStartedAtMs: at, updatedAtMs: at, terminalAtMs: at };
}

/** The broadcast transaction left the chain before it confirmed. */
export function droppedWithdraw(flow: WithdrawFlow, nowMs: number): WithdrawFlow {
  if (flow.state !== 'DESTINATION_CONFIRMING') return flow;
  return end(flow, 'DROPPED', 'TRANSACTION_DROPPED', later(flow, nowMs));
}

/** Its owner cancels it before it is broadcast: it fails with that reason, its hold to be released. */
export function cancelWithdraw(flow: WithdrawFlow, nowMs: number): WithdrawFlow {
  if (flow.state !== 'PENDING_VALIDATION') return flow;
  return end(flow, 'FAILED', 'USER_CANCELED', later(flow, nowMs));
}

/** Not broadcast within the execution window after submission. */
export function expireWithdraw(flow: WithdrawFlow, nowMs: number): WithdrawFlow {
  if (flow.state !== 'PENDING_VALIDATION' || nowMs < flow.startedAtMs + EXECUTION_WINDOW_MS) return flow;
  return end(flow, 'EXPIRED', LifecycleReason.DEADLINE_EXPIRED, later(flow, nowMs));
}

/**
 * Ends the flow as its intent already ended (found after a crash between the two): the
 * intent's status is the truth, the flow catches up.
 */
export function catchUpWithdraw(flow: WithdrawFlow, intent: 'COMPLETED' | 'REJECTED' | 'EXPIRED' | 'CANCELED' | 'FAILED' | 'DROPPED', nowMs: number): WithdrawFlow {
  if (isTerminalWithdraw(flow)) return flow;
  const at = later(flow, nowMs);
  switch (intent) {
    case 'COMPLETED':
      return { ...flow, state: 'COMPLETED', step: 'COMPLETE', feeStatus: 'SETTLED', confirmations: Math.max(flow.confirmations, flow.requiredConfirmations), stepStartedAtMs: at, updatedAtMs: at, terminalAtMs: at };
    case 'REJECTED':
      return end({ ...flow, rejections: Math.max(flow.rejections, VALIDATORS.requiredRejections) }, 'REJECTED', 'ZIPPER_VALIDATION_REJECTED', at);
    case 'EXPIRED':
      return end(flow, 'EXPIRED', LifecycleReason.DEADLINE_EXPIRED, at);
    case 'DROPPED':
      return end(flow, 'DROPPED', 'TRANSACTION_DROPPED', at);
    case 'CANCELED':
      return end(flow, 'FAILED', 'USER_CANCELED', at);
    default:
      return end(flow, 'FAILED', 'INTERNAL_ERROR', at);
  }
}

function end(flow: WithdrawFlow, state: WithdrawState, reason: WithdrawReason, at: number): WithdrawFlow {
  return { ...flow, state, reason, feeStatus: 'REFUNDED', updatedAtMs: at, terminalAtMs: at };
}

/** Spec 2.12 `progressTimeline` of a withdrawal. */
export const withdrawTimeline = (flow: WithdrawFlow, expectedMs: (step: WithdrawStep) => number) => timeline(stepsOf(flow.kind), flow, expectedMs);
