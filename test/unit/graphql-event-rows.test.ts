import { describe, expect, it } from 'vitest';
import { flowView, type FlowView } from '../../src/services/chain/index.ts';
import type { ChartDrawingView, ChartLayerView } from '../../src/services/chart/index.ts';
import { drawingView, layerView } from '../../src/services/chart/views.ts';
import { flowRow } from '../../src/transport/graphql/types/chain/rows.ts';
import { drawingColumns, layerColumns } from '../../src/transport/graphql/types/chart/rows.ts';
import { presentFill } from '../../src/presenters/fill.ts';
import { presentTrigger } from '../../src/presenters/trigger.ts';
import type { Market } from '../../src/services/markets.ts';
import type { TradeLike, TriggerLike } from '../../src/services/trading/index.ts';
import type { GraphQLContext } from '../../src/transport/graphql/context.ts';
import { fillRow, fillShape, sequenceOf } from '../../src/transport/graphql/types/trading/fillRows.ts';
import { accountOf, triggerRow, triggerShape } from '../../src/transport/graphql/types/triggers/rows.ts';

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

/**
 * A trigger write and a fill event answer the engine's view (JSON text, bigint amounts), which
 * GraphQL turns into the row's columns: rendered, it must be what /v1 renders of the view.
 */
describe('trading views as Prisma rows', () => {
  const market = { symbolId: 1, symbol: 'BTC-USDC', baseQuantityScale: 8, quoteQuantityScale: 6 } as Market;
  const ctx = { services: { markets: { marketById: () => market } } } as unknown as GraphQLContext;
  const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678));

  it('a trailing stop held by the engine renders as /v1 renders it, with its account and parent order', () => {
    const trigger: TriggerLike & { parentOrder: { publicId: string } } = {
      id: 7n, publicId: 't7', accountId: 3n, parentOrderId: 9n, clientTriggerId: 'c7', symbolId: 1, triggerType: 'TRAILING_STOP', status: 'ARMED', side: 'SELL',
      qty: 150_000_000n, feeAsset: 'QUOTE', stpMode: 'EXPIRE_MAKER', cancelReason: null, failureReason: null, triggerDirection: 'BELOW', triggerPrice: 29_000_000_000_000n,
      childKind: 'MARKET_IOC', childLimitPrice: null, childPostOnly: false, maxSlippageTicks: 4, maxSlippageBps: null, cumFilledQty: 0n, lastChildSeq: 0, firePx: null, version: 3,
      // 2^70: past a double's exact integers.
      heldE18: 1_180_591_620_717_411_303_424n, acceptedAtTsNs: 1_767_323_045_678_000_001n, createdAt: at, updatedAt: at, armedAt: at, completedAt: null, terminalAt: null,
      params: JSON.stringify({ activationPrice: '30000000000000', trailingDistanceTicks: '5000000000', expireAtTsNs: '1767323045678000002' }),
      state: JSON.stringify({ active: true, extreme: '31000000000000', threshold: '29000000000000' }),
      parentOrder: { publicId: 'o9' },
    };
    const row = triggerRow(trigger, 'acct');
    expect(triggerShape(row, ctx)).toEqual(presentTrigger({ trigger, market, account: 'acct' }));
    expect(triggerShape(row, ctx)).toMatchObject({ subaccountId: 'acct', parentOrderId: 'o9', state: { held: '1180.591620717411303424', trailing: { active: true, peakPrice: '31000' } } });
    expect(accountOf(row)).toBe('acct');
  });

  it('a fill event renders as /v1 renders the trade, and keeps its journal sequence', () => {
    const trade: TradeLike = {
      symbolId: 1, matchId: 11n, orderId: 5n, accountId: 3n, lineageId: 'o5', generation: 2, side: 'BUY', price: 30_000_000_000_000n, qty: 25_000_000n, isMaker: true,
      fee: 1_180_591_620_717_411_303_424n, feeAsset: 'QUOTE', feeIsRebate: true, referralShare: 3n, executedAt: at, executedAtTsNs: 1_767_323_045_678_000_001n,
    };
    const event = fillRow(trade, 'o5', 42n);
    expect(fillShape(event, ctx)).toEqual(presentFill(trade, market, 'o5'));
    expect(sequenceOf(event)).toBe(42n);
    expect(sequenceOf(fillRow(trade, 'o5'))).toBeNull();
  });
});

