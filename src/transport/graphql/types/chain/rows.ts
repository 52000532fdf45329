import { presentFlow } from '../../../../presenters/flow.ts';
import { FLOW_COLUMNS, flowView, OWNER, type FlowView } from '../../../../services/chain/index.ts';
import { Prisma } from '../../../../generated/prisma/client.ts';

/** What the Flow type reads of its row: the view's columns and the owner's public id. */
export const FLOW_SELECT = { ...FLOW_COLUMNS, ...OWNER } as const satisfies Prisma.LifecycleFlowSelect;
export type FlowRow = Prisma.LifecycleFlowGetPayload<{ select: typeof FLOW_SELECT }>;

/** The /v1 shape (presenters/flow.ts): every Flow field resolves from it, so the two cannot drift. */
export type FlowShape = ReturnType<typeof presentFlow>;

const presented = new WeakMap<FlowRow, FlowShape>();

/** A row's /v1 shape, made once per row however many of its fields a query asks for. */
export function flowShape(row: FlowRow): FlowShape {
  let shape = presented.get(row);
  if (!shape) {
    shape = presentFlow(flowView(row, row.ownerAccount.publicId));
    presented.set(row, shape);
  }
  return shape;
}

const date = (ms: string) => new Date(Number(ms));
const orNull = <T extends string>(v: T | '') => (v === '' ? null : v);

/**
 * A flow's view as its row's columns. A flow event and a cancel answer the flow's view, as
 * that change stored it: reading the row again would answer its state when the subscriber
 * resolves, which may be a later step.
 */
export function flowRow(v: FlowView): FlowRow {
  return {
    publicId: v.flowId,
    ownerAccount: { publicId: v.ownerAccountId },
    smartAccountAddress: v.smartAccountAddress,
    flowKind: v.flowKind,
    flowState: v.flowState,
    currentStep: v.currentStep,
    currentStepSequence: v.currentStepSequence,
    unifiedAssetId: v.assetIds.unifiedAssetId,
    zippedAssetId: v.assetIds.zippedAssetId,
    amountE18: new Prisma.Decimal(((BigInt(v.amountE18.hi) << 64n) | BigInt(v.amountE18.lo)).toString()),
    serviceChainId: v.serviceChainId,
    sourceDomain: v.sourceDomain,
    destinationDomain: v.destinationDomain,
    sourceAddress: v.sourceAddress,
    destinationAddress: v.destinationAddress,
    sourceTxHash: v.sourceTxHash,
    latestTxRef: v.latestTxRef,
    txOccurrenceIndex: v.txOccurrenceIndex,
    latestLifecycleSource: orNull(v.latestLifecycleSource),
    lifecycleReason: orNull(v.lifecycleReason),
    zipperReason: v.zipperReason,
    isOpen: v.isOpen,
    isTerminal: v.isTerminal,
    startedAt: date(v.startedAtUnixMs),
    updatedAt: date(v.updatedAtUnixMs),
    lastActivityAt: date(v.lastActivityAtUnixMs),
    terminalAt: v.terminalAtUnixMs === '0' ? null : date(v.terminalAtUnixMs),
    estimatedCompletionAt: v.estimatedCompletionUnixMs === '0' ? null : date(v.estimatedCompletionUnixMs),
    currentProgress: {
      ...v.currentProgress,
      currentStepStartedAtUnixMs: Number(v.currentProgress.currentStepStartedAtUnixMs),
      currentStepExpectedDurationMs: Number(v.currentProgress.currentStepExpectedDurationMs),
    },
    progressTimeline: v.progressTimeline.map((s) => ({ ...s, expectedDurationMs: Number(s.expectedDurationMs) })),
    requestFee: v.requestFee ? { ...v.requestFee, amountE18: { ...v.requestFee.amountE18 }, assetIds: { ...v.requestFee.assetIds } } : null,
  };
}
