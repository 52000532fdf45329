import type { StepStatus } from '../../domain/flows/timeline.ts';
import type { FlowStep, Prisma } from '../../generated/prisma/client.ts';
import { u128, type RequestFee } from './flowRecord.ts';

const ms = (d: Date | null | undefined) => (d ? String(d.getTime()) : '0');
/** An enum column not yet set is an empty string on the wire, like every absent string of 2.12. */
const orEmpty = <T extends string>(v: T | null): T | '' => v ?? '';

export type FlowView = ReturnType<typeof flowView>;

/** The row keeps durations and times as JSON numbers; the spec's `*Ms` fields are int64 strings. */
type StoredProgress = Record<'currentStepStartedAtUnixMs' | 'currentStepExpectedDurationMs' | 'currentConfirmations' | 'requiredConfirmations' | 'approveCount' | 'rejectCount' | 'validatorCount' | 'requiredApprovals' | 'requiredRejections', number>;
type StoredTimelineItem = { sequence: number; step: FlowStep; status: StepStatus; expectedDurationMs: number };

function progressView(p: StoredProgress) {
  return { ...p, currentStepStartedAtUnixMs: String(p.currentStepStartedAtUnixMs), currentStepExpectedDurationMs: String(p.currentStepExpectedDurationMs) };
}

/** The columns a flow's view is made of (every one but its keys, owners, deposit address and version). */
export const FLOW_COLUMNS = {
  publicId: true,
  smartAccountAddress: true,
  flowKind: true,
  flowState: true,
  currentStep: true,
  currentStepSequence: true,
  unifiedAssetId: true,
  zippedAssetId: true,
  amountE18: true,
  serviceChainId: true,
  sourceDomain: true,
  destinationDomain: true,
  sourceAddress: true,
  destinationAddress: true,
  sourceTxHash: true,
  latestTxRef: true,
  txOccurrenceIndex: true,
  latestLifecycleSource: true,
  lifecycleReason: true,
  zipperReason: true,
  isOpen: true,
  isTerminal: true,
  startedAt: true,
  updatedAt: true,
  lastActivityAt: true,
  terminalAt: true,
  estimatedCompletionAt: true,
  currentProgress: true,
  progressTimeline: true,
  requestFee: true,
} as const satisfies Prisma.LifecycleFlowSelect;
export type FlowColumns = Prisma.LifecycleFlowGetPayload<{ select: typeof FLOW_COLUMNS }>;

/** Spec 2.12: a lifecycle flow, amounts as {hi, lo} halves of a uint128, times as epoch ms strings. */
export function flowView(f: FlowColumns, ownerAccountId: string) {
  return {
    flowId: f.publicId,
    ownerAccountId,
    smartAccountAddress: f.smartAccountAddress ?? '',
    flowKind: f.flowKind,
    flowState: f.flowState,
    currentStep: f.currentStep,
    currentStepSequence: f.currentStepSequence,
    assetIds: { zippedAssetId: f.zippedAssetId ?? 0, unifiedAssetId: f.unifiedAssetId ?? 0 },
    amountE18: u128(BigInt(f.amountE18.toFixed(0))),
    serviceChainId: f.serviceChainId ?? 0,
    sourceDomain: f.sourceDomain,
    destinationDomain: f.destinationDomain,
    sourceAddress: f.sourceAddress ?? '',
    destinationAddress: f.destinationAddress ?? '',
    sourceTxHash: f.sourceTxHash ?? '',
    latestTxRef: f.latestTxRef ?? '',
    txOccurrenceIndex: f.txOccurrenceIndex ?? '',
    latestLifecycleSource: orEmpty(f.latestLifecycleSource),
    lifecycleReason: orEmpty(f.lifecycleReason),
    zipperReason: (f.zipperReason as { code: string; reasonId: string; message: string } | null) ?? null,
    isOpen: f.isOpen,
    isTerminal: f.isTerminal,
    startedAtUnixMs: ms(f.startedAt),
    updatedAtUnixMs: ms(f.updatedAt),
    lastActivityAtUnixMs: ms(f.lastActivityAt),
    terminalAtUnixMs: ms(f.terminalAt),
    estimatedCompletionUnixMs: ms(f.estimatedCompletionAt),
    currentProgress: progressView(f.currentProgress as unknown as StoredProgress),
    progressTimeline: (f.progressTimeline as unknown as StoredTimelineItem[]).map((s) => ({ ...s, expectedDurationMs: String(s.expectedDurationMs) })),
    ...(f.requestFee ? { requestFee: f.requestFee as unknown as RequestFee } : {}),
  };
}
