import { later, timeline } from './timeline.ts';
import { LifecycleReason } from '../../generated/prisma/enums.ts';

/**
 * The deposit flow (spec 2.12, issue 14): pure, times passed in (epoch ms). A transfer to a
 * deposit address is observed, gathers confirmations, is credited to FUNDING, and is
 * complete; or it ends without a credit, with a reason. Steps only move forward, a terminal
 * flow never changes again, and its times never go backwards.
 */
export type FlowState = 'SOURCE_CONFIRMING' | 'PENDING_DESTINATION' | 'COMPLETED' | 'FAILED' | 'DROPPED';
export type FlowStep = 'SOURCE' | 'CONFIRMATIONS' | 'SETTLEMENT' | 'COMPLETE';
export type DepositReason = 'UNSUPPORTED_ASSET' | typeof LifecycleReason.AMOUNT_BELOW_MINIMUM | 'CHAIN_REORG';

export const DEPOSIT_STEPS: readonly FlowStep[] = ['SOURCE', 'CONFIRMATIONS', 'SETTLEMENT', 'COMPLETE'];
const TERMINAL: ReadonlySet<FlowState> = new Set(['COMPLETED', 'FAILED', 'DROPPED']);

export interface DepositFlow {
  state: FlowState;
  step: FlowStep;
  confirmations: number;
  requiredConfirmations: number;
  reason: DepositReason | null;
  startedAtMs: number;
  stepStartedAtMs: number;
  updatedAtMs: number;
  terminalAtMs: number | null;
}

export const isTerminal = (f: Pick<DepositFlow, 'state'>): boolean => TERMINAL.has(f.state);

/** A transfer seen on chain: confirming, or ended at once when it cannot be credited. */
export function observeDeposit(input: { supported: boolean; belowMinimum: boolean; requiredConfirmations: number; nowMs: number }): DepositFlow {
  const base = { confirmations: 0, requiredConfirmations: input.requiredConfirmations, startedAtMs: input.nowMs, stepStartedAtMs: input.nowMs, updatedAtMs: input.nowMs };
  const reason: DepositReason | null = !input.supported ? 'UNSUPPORTED_ASSET' : input.belowMinimum ? LifecycleReason.AMOUNT_BELOW_MINIMUM : null;
  if (reason) return { ...base, state: 'FAILED', step: 'SOURCE', reason, terminalAtMs: input.nowMs };
  return { ...base, state: 'SOURCE_CONFIRMING', step: 'CONFIRMATIONS', reason: null, terminalAtMs: null };
}

/** The chain reports `confirmations` (never fewer than before); enough of them make it ready to credit. */
export function confirmDeposit(flow: DepositFlow, confirmations: number, nowMs: number): DepositFlow {
  if (flow.state !== 'SOURCE_CONFIRMING') return flow;
  const at = later(flow, nowMs);
  const seen = confirmations > flow.confirmations ? confirmations : flow.confirmations;
  if (seen < flow.requiredConfirmations) return seen === flow.confirmations ? flow : { ...flow, confirmations: seen, updatedAtMs: at };
  return { ...flow, confirmations: seen, state: 'PENDING_DESTINATION', step: 'SETTLEMENT', stepStartedAtMs: at, updatedAtMs: at };
}

/** The credit to FUNDING is durable: the flow is complete. */
export function creditedDeposit(flow: DepositFlow, nowMs: number): DepositFlow {
  if (flow.state !== 'PENDING_DESTINATION') return flow;
  const at = later(flow, nowMs);
  return { ...flow, state: 'COMPLETED', step: 'COMPLETE', stepStartedAtMs: at, updatedAtMs: at, terminalAtMs: at };
}

/** The transfer left the chain (a reorg) before it was credited: nothing is credited. */
export function droppedDeposit(flow: DepositFlow, nowMs: number): DepositFlow {
  if (flow.state !== 'SOURCE_CONFIRMING') return flow;
  const at = later(flow, nowMs);
  return { ...flow, state: 'DROPPED', reason: 'CHAIN_REORG', updatedAtMs: at, terminalAtMs: at };
}

/** Spec 2.12 `progressTimeline` of a deposit. */
export const depositTimeline = (flow: DepositFlow, expectedMs: (step: FlowStep) => number) => timeline(DEPOSIT_STEPS, flow, expectedMs);
