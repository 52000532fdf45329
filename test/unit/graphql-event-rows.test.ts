import { describe, expect, it } from 'vitest';
import { flowView, type FlowView } from '../../src/services/chain/index.ts';
import type { ChartDrawingView, ChartLayerView } from '../../src/services/chart/index.ts';
import { drawingView, layerView } from '../../src/services/chart/views.ts';
import { flowRow } from '../../src/transport/graphql/types/chain/rows.ts';
import { drawingColumns, layerColumns } from '../../src/transport/graphql/types/chart/rows.ts';

/**
 * A change event and a write answer the service's view, which GraphQL turns back into the
 * row's columns for its Prisma types to resolve: the view made of those columns again must
 * be the one the event carried, or a subscriber would see other values than /v1 and a read.
 */
const full: FlowView = {
  flowId: 'f1',
  ownerAccountId: 'acct',
  smartAccountAddress: '0xabc',
  flowKind: 'WITHDRAW_TO_EXTERNAL_CHAIN',
  flowState: 'FAILED',
  currentStep: 'VALIDATION',
  currentStepSequence: 3,
  assetIds: { zippedAssetId: 12, unifiedAssetId: 4 },
  // 2^64 + 5: both halves non-zero.
  amountE18: { hi: '1', lo: '5' },
  serviceChainId: 8453,
  sourceDomain: 'TRADING',
  destinationDomain: 'EXTERNAL_CHAIN',
  sourceAddress: 'src',
  destinationAddress: 'dst',
  sourceTxHash: '0xsrc',
  latestTxRef: '0xlatest',
  txOccurrenceIndex: '2',
  latestLifecycleSource: 'VALIDATOR',
  lifecycleReason: 'ZIPPER_VALIDATION_REJECTED',
  zipperReason: { code: 'DESTINATION_INVALID', reasonId: 'r1', message: 'no' },
  isOpen: false,
  isTerminal: true,
  startedAtUnixMs: '1767225600000',
  updatedAtUnixMs: '1767225660000',
  lastActivityAtUnixMs: '1767225660001',
  terminalAtUnixMs: '1767225660002',
  estimatedCompletionUnixMs: '1767225999999',
  currentProgress: {
    currentStepStartedAtUnixMs: '1767225600123',
    currentStepExpectedDurationMs: '90000',
    currentConfirmations: 3,
    requiredConfirmations: 12,
    approveCount: 1,
    rejectCount: 2,
    validatorCount: 5,
    requiredApprovals: 3,
    requiredRejections: 3,
  },
  progressTimeline: [
    { sequence: 1, step: 'SOURCE', status: 'COMPLETED', expectedDurationMs: '0' },
    { sequence: 2, step: 'VALIDATION', status: 'FAILED', expectedDurationMs: '45000' },
  ],
  requestFee: { amountE18: { hi: '0', lo: '7' }, assetIds: { zippedAssetId: 12, unifiedAssetId: 4 }, recipientAddress: '0xfee', status: 'REFUNDED' },
};

const open: FlowView = {
  ...full,
  smartAccountAddress: '',
  assetIds: { zippedAssetId: 0, unifiedAssetId: 0 },
  amountE18: { hi: '0', lo: '0' },
  serviceChainId: 0,
  latestLifecycleSource: '',
  lifecycleReason: '',
  zipperReason: null,
  isOpen: true,
  isTerminal: false,
  terminalAtUnixMs: '0',
  estimatedCompletionUnixMs: '0',
};
delete (open as { requestFee?: unknown }).requestFee;

describe('views carried by events and writes, as row columns', () => {
  it.each([
    ['a terminal flow with every field set', full],
    ['an open flow with its empty and zero fields', open],
  ])('%s', (_, view) => {
    expect(flowView(flowRow(view), view.ownerAccountId)).toEqual(view);
  });

  it('a chart layer and drawings, live and deleted', () => {
    const layer: ChartLayerView = {
      ownerId: 'acct',
      layerId: 'L1',
      engineSymbolId: 3,
      name: 'trend',
      sortHint: -2,
      colorRgba: 0xffeeddcc,
      useLayerColor: true,
      isLocked: true,
      isVisible: false,
      revision: 9n,
      updatedAtMs: 1767225600123n,
    };
    expect(layerView({ ...layerColumns(layer, 1n), id: 1n, createdAt: new Date() }, 'acct')).toEqual(layer);
    const drawing: ChartDrawingView = {
      ownerId: 'acct',
      drawingId: 'd1',
      layer: { ownerId: 'acct', layerId: 'L1' },
      engineSymbolId: 3,
      type: 2,
      version: 1,
      payload: new Uint8Array([1, 2, 3]),
      bboxTimeMinMs: 1n,
      bboxTimeMaxMs: 2n,
      bboxPriceMin: 0.5,
      bboxPriceMax: 1.25,
      updatedAtMs: 1767225600123n,
      deletedAtMs: 0n,
      clientUpdatedAtMs: 1767225600000n,
    };
    for (const d of [drawing, { ...drawing, deletedAtMs: 1767225600999n }]) {
      const row = { ...drawingColumns(d, 1n), id: 1n, layerOwnerAccountId: 1n, layerRevision: 1n, createdAt: new Date() };
      expect(drawingView(row, 'acct')).toEqual(d);
    }
  });
});
