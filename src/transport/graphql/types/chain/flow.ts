import { cancelTradingWithdrawParams } from '../../../../services/chain/cancelTradingWithdraw.schema.ts';
import { getFlowParams } from '../../../../services/chain/getFlow.schema.ts';
import { builder } from '../../builder.ts';
import { callerOf } from '../../connections.ts';
import { guardedStream } from '../../guardedStream.ts';
import { relationsOf } from '../../relations.ts';
import { parseArgs } from '../../validate.ts';
import { FlowProgress } from './flowProgress.ts';
import { FlowRequestFee } from './flowRequestFee.ts';
import { FlowTimelineItem } from './flowTimelineItem.ts';
import { FlowZipperReason } from './flowZipperReason.ts';
import { FLOW_SELECT, flowRow, flowShape, type FlowShape } from './rows.ts';

/** The flow fields that are strings of the /v1 shape as they are. */
type TextField = { [K in keyof FlowShape]-?: FlowShape[K] extends string ? K : never }[keyof FlowShape];

/**
 * A flow is its Prisma row, its owner's public id read with it (one statement for a whole
 * page); its fields resolve from the row's /v1 shape (presenters/flow.ts).
 */
export const Flow = builder.prismaObject('LifecycleFlow', {
  name: 'Flow',
  description: 'A deposit or withdraw lifecycle flow (spec 2.12)',
  select: FLOW_SELECT,
  findUnique: (f) => ({ publicId: f.publicId }),
  fields: (t) => {
    const text = (field: TextField) => t.string({ resolve: (f) => flowShape(f)[field] });
    return {
      flowId: text('flowId'),
      ownerAccountId: text('ownerAccountId'),
      smartAccountAddress: text('smartAccountAddress'),
      flowKind: text('flowKind'),
      flowState: text('flowState'),
      currentStep: text('currentStep'),
      currentStepSequence: t.int({ resolve: (f) => flowShape(f).currentStepSequence }),
      unifiedAssetId: t.int({ resolve: (f) => flowShape(f).assetIds.unifiedAssetId }),
      zippedAssetId: t.int({ resolve: (f) => flowShape(f).assetIds.zippedAssetId }),
      amountE18Hi: t.string({ resolve: (f) => flowShape(f).amountE18.hi }),
      amountE18Lo: t.string({ resolve: (f) => flowShape(f).amountE18.lo }),
      serviceChainId: t.int({ resolve: (f) => flowShape(f).serviceChainId }),
      sourceDomain: text('sourceDomain'),
      destinationDomain: text('destinationDomain'),
      sourceAddress: text('sourceAddress'),
      destinationAddress: text('destinationAddress'),
      sourceTxHash: text('sourceTxHash'),
      latestTxRef: text('latestTxRef'),
      txOccurrenceIndex: text('txOccurrenceIndex'),
      lifecycleReason: text('lifecycleReason'),
      latestLifecycleSource: text('latestLifecycleSource'),
      zipperReason: t.field({ type: FlowZipperReason, nullable: true, resolve: (f) => flowShape(f).zipperReason }),
      isOpen: t.boolean({ resolve: (f) => flowShape(f).isOpen }),
      isTerminal: t.boolean({ resolve: (f) => flowShape(f).isTerminal }),
      startedAtUnixMs: text('startedAtUnixMs'),
      updatedAtUnixMs: text('updatedAtUnixMs'),
      lastActivityAtUnixMs: text('lastActivityAtUnixMs'),
      terminalAtUnixMs: text('terminalAtUnixMs'),
      estimatedCompletionUnixMs: text('estimatedCompletionUnixMs'),
      currentProgress: t.field({ type: FlowProgress, resolve: (f) => flowShape(f).currentProgress }),
      progressTimeline: t.field({ type: [FlowTimelineItem], resolve: (f) => flowShape(f).progressTimeline }),
      requestFee: t.field({ type: FlowRequestFee, nullable: true, resolve: (f) => flowShape(f).requestFee ?? null }),
    };
  },
});

builder.queryField('flow', (t) =>
  t.prismaField({
    type: Flow,
    description: 'One flow by its id; a withdrawal\'s intentId is its flow\'s id (as GET /v1/chain/flows/{flowId})',
    args: { id: t.arg.string({ required: true }) },
    resolve: async (query, _root, args, ctx) => (await ctx.services.chain.getFlow(callerOf(ctx), parseArgs(getFlowParams, { flowId: args.id }), relationsOf(query))).row,
  }),
);

builder.subscriptionField('flowUpdates', (t) =>
  t.field({
    type: Flow,
    description: 'Every stored change of the flows the caller may see, each step as it happens',
    subscribe: async (_root, _args, ctx) => guardedStream(ctx, callerOf(ctx), await ctx.services.chain.subscribeFlows(callerOf(ctx))),
    resolve: (payload) => flowRow(payload.flow),
  }),
);

builder.mutationField('cancelTradingWithdraw', (t) =>
  t.field({
    type: Flow,
    description: 'Cancel a withdrawal not yet broadcast, releasing its hold; its flow ends FAILED with USER_CANCELED (as POST /v1/chain/trading-withdraws/{intentId}/cancel)',
    args: { intentId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => flowRow((await ctx.services.chain.cancelTradingWithdraw(callerOf(ctx), parseArgs(cancelTradingWithdrawParams, args))).flow),
  }),
);
