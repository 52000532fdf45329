import { z } from 'zod';
import type { StepStatus } from '../domain/flows/timeline.ts';
import type { FeeStatus } from '../domain/flows/withdraw.ts';
import { FlowDomain, FlowKind, FlowState, FlowStep, LifecycleReason, LifecycleSource } from '../generated/prisma/enums.ts';
import type { FlowView } from '../services/chain/flowView.ts';
import type { RequestFee } from '../services/chain/flowRecord.ts';
import { int64String, nextPageToken, orEmpty } from './scalars.ts';

/** A uint128 as its decimal halves (spec 2.12). */
const u128 = z.strictObject({ hi: z.string(), lo: z.string() });
const assetIds = z.strictObject({ zippedAssetId: z.number().int(), unifiedAssetId: z.number().int() });
const epochMs = int64String.describe('Epoch milliseconds; 0 when not yet');

const progressSchema = z.strictObject({
  currentStepStartedAtUnixMs: int64String,
  currentStepExpectedDurationMs: int64String,
  currentConfirmations: z.number().int(),
  requiredConfirmations: z.number().int(),
  approveCount: z.number().int(),
  rejectCount: z.number().int(),
  validatorCount: z.number().int(),
  requiredApprovals: z.number().int(),
  requiredRejections: z.number().int(),
});

const timelineItemSchema = z.strictObject({
  sequence: z.number().int().describe('One-based'),
  step: z.enum(FlowStep),
  status: z.enum(['COMPLETED', 'IN_PROGRESS', 'PENDING', 'FAILED', 'SKIPPED'] satisfies StepStatus[]),
  expectedDurationMs: int64String,
});

const requestFeeSchema = z.strictObject({
  amountE18: u128,
  assetIds,
  recipientAddress: z.string(),
  status: z.enum(['LOCKED', 'SETTLED', 'REFUNDED'] satisfies FeeStatus[]),
});

/** Spec 2.12. */
export const flowSchema = z.strictObject({
  flowId: z.string(),
  ownerAccountId: z.string(),
  smartAccountAddress: z.string(),
  flowKind: z.enum(FlowKind),
  flowState: z.enum(FlowState),
  currentStep: z.enum(FlowStep),
  currentStepSequence: z.number().int(),
  assetIds,
  amountE18: u128,
  serviceChainId: z.number().int().describe('0 when not known'),
  sourceDomain: z.enum(FlowDomain),
  destinationDomain: z.enum(FlowDomain),
  sourceAddress: z.string(),
  destinationAddress: z.string(),
  sourceTxHash: z.string(),
  latestTxRef: z.string(),
  txOccurrenceIndex: z.string(),
  latestLifecycleSource: orEmpty(LifecycleSource),
  lifecycleReason: orEmpty(LifecycleReason),
  zipperReason: z.strictObject({ code: z.string(), reasonId: z.string(), message: z.string() }).nullable(),
  isOpen: z.boolean(),
  isTerminal: z.boolean(),
  startedAtUnixMs: epochMs,
  updatedAtUnixMs: epochMs,
  lastActivityAtUnixMs: epochMs,
  terminalAtUnixMs: epochMs,
  estimatedCompletionUnixMs: epochMs,
  currentProgress: progressSchema,
  progressTimeline: z.array(timelineItemSchema),
  requestFee: requestFeeSchema.optional().describe('Withdrawals only'),
});

export const flowEnvelopeSchema = z.strictObject({ flow: flowSchema });
export const flowsSchema = z.strictObject({ flows: z.array(flowSchema), nextPageToken });

const presentRequestFee = (f: RequestFee): z.infer<typeof requestFeeSchema> => ({
  amountE18: { hi: f.amountE18.hi, lo: f.amountE18.lo },
  assetIds: { zippedAssetId: f.assetIds.zippedAssetId, unifiedAssetId: f.assetIds.unifiedAssetId },
  recipientAddress: f.recipientAddress,
  status: f.status,
});

export function presentFlow(f: FlowView): z.infer<typeof flowSchema> {
  const p = f.currentProgress;
  return {
    flowId: f.flowId,
    ownerAccountId: f.ownerAccountId,
    smartAccountAddress: f.smartAccountAddress,
    flowKind: f.flowKind,
    flowState: f.flowState,
    currentStep: f.currentStep,
    currentStepSequence: f.currentStepSequence,
    assetIds: { zippedAssetId: f.assetIds.zippedAssetId, unifiedAssetId: f.assetIds.unifiedAssetId },
    amountE18: { hi: f.amountE18.hi, lo: f.amountE18.lo },
    serviceChainId: f.serviceChainId,
    sourceDomain: f.sourceDomain,
    destinationDomain: f.destinationDomain,
    sourceAddress: f.sourceAddress,
    destinationAddress: f.destinationAddress,
    sourceTxHash: f.sourceTxHash,
    latestTxRef: f.latestTxRef,
    txOccurrenceIndex: f.txOccurrenceIndex,
    latestLifecycleSource: f.latestLifecycleSource,
    lifecycleReason: f.lifecycleReason,
    zipperReason: f.zipperReason ? { code: f.zipperReason.code, reasonId: f.zipperReason.reasonId, message: f.zipperReason.message } : null,
    isOpen: f.isOpen,
    isTerminal: f.isTerminal,
    startedAtUnixMs: f.startedAtUnixMs,
    updatedAtUnixMs: f.updatedAtUnixMs,
    lastActivityAtUnixMs: f.lastActivityAtUnixMs,
    terminalAtUnixMs: f.terminalAtUnixMs,
    estimatedCompletionUnixMs: f.estimatedCompletionUnixMs,
    currentProgress: {
      currentStepStartedAtUnixMs: p.currentStepStartedAtUnixMs,
      currentStepExpectedDurationMs: p.currentStepExpectedDurationMs,
      currentConfirmations: p.currentConfirmations,
      requiredConfirmations: p.requiredConfirmations,
      approveCount: p.approveCount,
      rejectCount: p.rejectCount,
      validatorCount: p.validatorCount,
      requiredApprovals: p.requiredApprovals,
      requiredRejections: p.requiredRejections,
    },
    progressTimeline: f.progressTimeline.map((s) => ({ sequence: s.sequence, step: s.step, status: s.status, expectedDurationMs: s.expectedDurationMs })),
    ...(f.requestFee ? { requestFee: presentRequestFee(f.requestFee) } : {}),
  };
}
