import type { LifecycleFlow } from '../../generated/prisma/client.ts';
import { u128 } from './flowRecord.ts';

const ms = (d: Date | null | undefined) => (d ? String(d.getTime()) : '0');

export type FlowView = ReturnType<typeof flowView>;

/** Spec 2.12: a lifecycle flow, amounts as {hi, lo} halves of a uint128, times as epoch ms strings. */
export function flowView(f: LifecycleFlow, ownerAccountId: string) {
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
    latestLifecycleSource: f.latestLifecycleSource ?? '',
    lifecycleReason: f.lifecycleReason ?? '',
    zipperReason: f.zipperReason ?? null,
    isOpen: f.isOpen,
    isTerminal: f.isTerminal,
    startedAtUnixMs: ms(f.startedAt),
    updatedAtUnixMs: ms(f.updatedAt),
    lastActivityAtUnixMs: ms(f.lastActivityAt),
    terminalAtUnixMs: ms(f.terminalAt),
    estimatedCompletionUnixMs: ms(f.estimatedCompletionAt),
    currentProgress: f.currentProgress,
    progressTimeline: f.progressTimeline,
    ...(f.requestFee ? { requestFee: f.requestFee } : {}),
  };
}
