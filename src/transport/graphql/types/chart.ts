import {
  DRAWINGS_LIST_DEFAULT,
  type ChartDrawingView,
  type ChartLayerEvent,
  type ChartLayerView,
  type DrawingInput,
  type LayerRef,
} from '../../../services/chart.ts';
import type { SyncWinner } from '../../../domain/chartMerge.ts';
import { invalidArgument } from '../../../domain/errors.ts';
import { builder } from '../builder.ts';
import { decodeBytes, encodeBytes } from '../bytes.ts';
import { callerOf, connectionFromPage } from '../connections.ts';
import { guardedStream } from '../guardedStream.ts';
import { ViewerRef } from './viewer.ts';

/**
 * Chart layers and drawings over GraphQL: the same service calls as /v1
 * (routes/chart.ts) with the same field names. `payload` is base64 text; `colorRgba`
 * is an Int64 (0xAARRGGBB does not fit GraphQL's signed 32-bit Int).
 */

const LayerRefType = builder.objectRef<LayerRef>('ChartLayerRef').implement({
  fields: (t) => ({ ownerId: t.exposeString('ownerId'), layerId: t.exposeString('layerId') }),
});

const Layer = builder.objectRef<ChartLayerView>('ChartLayer').implement({
  description: 'A drawing layer of one market (spec 2.6)',
  fields: (t) => ({
    ownerId: t.exposeString('ownerId'),
    layerId: t.exposeString('layerId'),
    engineSymbolId: t.exposeInt('engineSymbolId'),
    name: t.exposeString('name'),
    sortHint: t.exposeInt('sortHint'),
    colorRgba: t.field({ type: 'Int64', description: 'Packed 0xAARRGGBB', resolve: (l) => l.colorRgba }),
    useLayerColor: t.exposeBoolean('useLayerColor'),
    isLocked: t.exposeBoolean('isLocked'),
    isVisible: t.exposeBoolean('isVisible'),
    revision: t.field({ type: 'Int64', description: 'Increases on every committed change to the layer or its drawings', resolve: (l) => l.revision }),
    updatedAtMs: t.field({ type: 'Int64', resolve: (l) => l.updatedAtMs }),
  }),
});

const Drawing = builder.objectRef<ChartDrawingView>('ChartDrawing').implement({
  description: 'A drawing on a layer (spec 2.6); deleted ones are tombstones with deletedAtMs set',
  fields: (t) => ({
    ownerId: t.exposeString('ownerId'),
    drawingId: t.exposeString('drawingId'),
    layer: t.field({ type: LayerRefType, resolve: (d) => d.layer }),
    engineSymbolId: t.exposeInt('engineSymbolId'),
    type: t.exposeInt('type'),
    version: t.exposeInt('version'),
    payload: t.string({ description: 'base64', resolve: (d) => encodeBytes(d.payload) }),
    bboxTimeMinMs: t.field({ type: 'Int64', resolve: (d) => d.bboxTimeMinMs }),
    bboxTimeMaxMs: t.field({ type: 'Int64', resolve: (d) => d.bboxTimeMaxMs }),
    bboxPriceMin: t.exposeFloat('bboxPriceMin'),
    bboxPriceMax: t.exposeFloat('bboxPriceMax'),
    updatedAtMs: t.field({ type: 'Int64', resolve: (d) => d.updatedAtMs }),
    deletedAtMs: t.field({ type: 'Int64', description: '0 when not deleted', resolve: (d) => d.deletedAtMs }),
    clientUpdatedAtMs: t.field({ type: 'Int64', resolve: (d) => d.clientUpdatedAtMs }),
  }),
});

const DrawingResult = builder.objectRef<{ drawing: ChartDrawingView; layerRevision: bigint }>('ChartDrawingResult').implement({
  fields: (t) => ({
    drawing: t.field({ type: Drawing, resolve: (r) => r.drawing }),
    layerRevision: t.field({ type: 'Int64', description: 'The parent layer revision after the change', resolve: (r) => r.layerRevision }),
  }),
});

const Winner = builder.enumType('ChartSyncWinner', { values: ['CLIENT', 'SERVER'] as const });

const SyncItem = builder.objectRef<{ drawingId: string; winner: SyncWinner; drawing: ChartDrawingView }>('ChartDrawingSyncItem').implement({
  fields: (t) => ({
    drawingId: t.exposeString('drawingId'),
    winner: t.field({ type: Winner, description: 'Whose state the drawing now has', resolve: (r) => r.winner }),
    drawing: t.field({ type: Drawing, resolve: (r) => r.drawing }),
  }),
});

const SyncResult = builder
  .objectRef<{ results: { drawingId: string; winner: SyncWinner; drawing: ChartDrawingView }[]; layerRevision: bigint }>('ChartDrawingSyncResult')
  .implement({
    fields: (t) => ({
      results: t.field({ type: [SyncItem], resolve: (r) => r.results }),
      layerRevision: t.field({ type: 'Int64', resolve: (r) => r.layerRevision }),
    }),
  });

const ChangeKind = builder.enumType('ChartLayerChangeKind', { values: ['LAYER_UPSERTED', 'LAYER_DELETED', 'DRAWINGS_CHANGED'] as const });

const Change = builder.objectRef<ChartLayerEvent>('ChartLayerChange').implement({
  description: 'A committed change of one of the caller’s layers or its drawings',
  fields: (t) => ({
    change: t.field({ type: ChangeKind, resolve: (e) => e.change }),
    layerId: t.exposeString('layerId'),
    engineSymbolId: t.exposeInt('engineSymbolId'),
    revision: t.field({ type: 'Int64', description: 'The layer revision this change produced', resolve: (e) => e.revision }),
    layer: t.field({ type: Layer, nullable: true, description: 'Null when the layer was deleted', resolve: (e) => e.layer ?? null }),
    drawings: t.field({
      type: [Drawing],
      description: 'The drawings the change wrote, tombstones included',
      resolve: (e) => e.drawings.map((d) => ({ ...d, payload: new Uint8Array(Buffer.from(d.payload, 'base64')) })),
    }),
  }),
});

builder.objectFields(ViewerRef, (t) => ({
  chartLayers: t.field({
    type: [Layer],
    description: 'The caller’s layers of one market, by sortHint',
    args: { engineSymbolId: t.arg.int({ required: true }) },
    resolve: async (caller, args, ctx) => (await ctx.services.chart.listChartLayers(caller, args)).layers,
  }),
  chartLayer: t.field({
    type: Layer,
    args: { layerId: t.arg.string({ required: true }) },
    resolve: async (caller, args, ctx) => (await ctx.services.chart.getChartLayer(caller, args)).layer,
  }),
  chartDrawing: t.field({
    type: Drawing,
    args: { drawingId: t.arg.string({ required: true }) },
    resolve: async (caller, args, ctx) => (await ctx.services.chart.getChartDrawing(caller, args)).drawing,
  }),
  chartDrawings: t.connection(
    {
      type: Drawing,
      description: 'Drawings of a layer, oldest change first; with updatedSinceMs, the changes since then, tombstones included',
      args: { layerId: t.arg.string({ required: true }), updatedSinceMs: t.arg({ type: 'Int64' }) },
      resolve: async (caller, args, ctx) => {
        let layerRevision = 0n;
        const connection = await connectionFromPage(args, DRAWINGS_LIST_DEFAULT, async (page) => {
          const r = await ctx.services.chart.listChartDrawings(caller, {
            ...page,
            layerId: args.layerId,
            ...(args.updatedSinceMs != null ? { updatedSinceMs: args.updatedSinceMs } : {}),
          });
          layerRevision = r.layerRevision;
          return { items: r.drawings, nextPageToken: r.nextPageToken };
        });
        return { ...connection, layerRevision };
      },
    },
    {
      name: 'ChartDrawingConnection',
      fields: (c) => ({
        layerRevision: c.field({
          type: 'Int64',
          description: 'The layer revision the page was read at',
          resolve: (conn) => (conn as unknown as { layerRevision: bigint }).layerRevision,
        }),
      }),
    },
    { name: 'ChartDrawingEdge' },
  ),
}));

const LayerInput = builder.inputType('ChartLayerInput', {
  fields: (t) => ({
    layerId: t.string({ description: 'Empty or absent on create: the server assigns one' }),
    engineSymbolId: t.int({ required: true }),
    name: t.string({ required: true }),
    sortHint: t.int(),
    colorRgba: t.field({ type: 'Int64', description: 'Packed 0xAARRGGBB' }),
    useLayerColor: t.boolean(),
    isLocked: t.boolean(),
    isVisible: t.boolean(),
  }),
});

const LayerRefInput = builder.inputType('ChartLayerRefInput', {
  fields: (t) => ({ ownerId: t.string(), layerId: t.string({ required: true }) }),
});

const DrawingInputType = builder.inputType('ChartDrawingInput', {
  fields: (t) => ({
    drawingId: t.string({ description: 'Client-chosen id; empty or absent: the server assigns one' }),
    layer: t.field({ type: LayerRefInput, required: true }),
    engineSymbolId: t.int({ required: true }),
    type: t.int({ required: true }),
    version: t.int({ required: true }),
    payload: t.string({ required: true, description: 'base64' }),
    bboxTimeMinMs: t.field({ type: 'Int64' }),
    bboxTimeMaxMs: t.field({ type: 'Int64' }),
    bboxPriceMin: t.float(),
    bboxPriceMax: t.float(),
    clientUpdatedAtMs: t.field({ type: 'Int64' }),
    deletedAtMs: t.field({ type: 'Int64', description: 'Sync only: non-zero marks a drawing deleted offline' }),
  }),
});

type DrawingArg = typeof DrawingInputType.$inferInput;

function drawingOf(d: DrawingArg, fieldPath: string): DrawingInput {
  const optional = <K extends keyof DrawingArg>(k: K) => (d[k] != null ? { [k]: d[k] } : {});
  return {
    ...optional('drawingId'),
    layer: { layerId: d.layer.layerId, ...(d.layer.ownerId != null ? { ownerId: d.layer.ownerId } : {}) },
    engineSymbolId: d.engineSymbolId,
    type: d.type,
    version: d.version,
    payload: decodeBytes(d.payload, `${fieldPath}.payload`),
    ...optional('bboxTimeMinMs'),
    ...optional('bboxTimeMaxMs'),
    ...optional('bboxPriceMin'),
    ...optional('bboxPriceMax'),
    ...optional('clientUpdatedAtMs'),
    ...optional('deletedAtMs'),
  } as DrawingInput;
}

builder.mutationFields((t) => ({
  upsertChartLayer: t.field({
    type: Layer,
    description: 'expectedRevision 0 creates; otherwise the layer must be at it (else CONFLICT_STALE_REVISION with currentRevision)',
    args: { layer: t.arg({ type: LayerInput, required: true }), expectedRevision: t.arg({ type: 'Int64', required: true }) },
    resolve: async (_root, { layer, expectedRevision }, ctx) => {
      const colorRgba = layer.colorRgba;
      if (colorRgba != null && (colorRgba < 0n || colorRgba > 0xffffffffn)) {
        throw invalidArgument('layer.colorRgba', 'must be from 0 to 4294967295', 'range');
      }
      return (
        await ctx.services.chart.upsertChartLayer(callerOf(ctx), {
          expectedRevision,
          layer: {
            engineSymbolId: layer.engineSymbolId,
            name: layer.name,
            ...(layer.layerId != null ? { layerId: layer.layerId } : {}),
            ...(layer.sortHint != null ? { sortHint: layer.sortHint } : {}),
            ...(colorRgba != null ? { colorRgba: Number(colorRgba) } : {}),
            ...(layer.useLayerColor != null ? { useLayerColor: layer.useLayerColor } : {}),
            ...(layer.isLocked != null ? { isLocked: layer.isLocked } : {}),
            ...(layer.isVisible != null ? { isVisible: layer.isVisible } : {}),
          },
        })
      ).layer;
    },
  }),
  deleteChartLayer: t.string({
    description: 'Deletes the layer and its drawings; the id of the deleted layer',
    args: { layerId: t.arg.string({ required: true }), expectedRevision: t.arg({ type: 'Int64' }) },
    resolve: async (_root, { layerId, expectedRevision }, ctx) => {
      await ctx.services.chart.deleteChartLayer(callerOf(ctx), { layerId, ...(expectedRevision != null ? { expectedRevision } : {}) });
      return layerId;
    },
  }),
  upsertChartDrawing: t.field({
    type: DrawingResult,
    args: { drawing: t.arg({ type: DrawingInputType, required: true }), expectedLayerRevision: t.arg({ type: 'Int64', required: true }) },
    resolve: (_root, { drawing, expectedLayerRevision }, ctx) =>
      ctx.services.chart.upsertChartDrawing(callerOf(ctx), { drawing: drawingOf(drawing, 'drawing'), expectedLayerRevision }),
  }),
  deleteChartDrawing: t.field({
    type: DrawingResult,
    description: 'Leaves a tombstone (deletedAtMs set) for syncing devices',
    args: { drawingId: t.arg.string({ required: true }), expectedLayerRevision: t.arg({ type: 'Int64' }) },
    resolve: (_root, { drawingId, expectedLayerRevision }, ctx) =>
      ctx.services.chart.deleteChartDrawing(callerOf(ctx), { drawingId, ...(expectedLayerRevision != null ? { expectedLayerRevision } : {}) }),
  }),
  syncChartDrawings: t.field({
    type: SyncResult,
    description: 'Merges drawings edited offline: per drawing the later clientUpdatedAtMs wins',
    args: { layerId: t.arg.string({ required: true }), drawings: t.arg({ type: [DrawingInputType], required: true }) },
    resolve: (_root, { layerId, drawings }, ctx) =>
      ctx.services.chart.syncChartDrawings(callerOf(ctx), { layerId, drawings: drawings.map((d, i) => drawingOf(d, `drawings[${i}]`)) }),
  }),
}));

builder.subscriptionFields((t) => ({
  chartLayerChanges: t.field({
    type: Change,
    description: 'Every committed change of the caller’s layers and drawings (of one market when engineSymbolId is given)',
    args: { engineSymbolId: t.arg.int() },
    // Checked against the credential as it is at each event, like every private stream.
    subscribe: (_root, args, ctx) => guardedStream(ctx, callerOf(ctx), ctx.services.chart.subscribeChartLayerChanges(callerOf(ctx), args.engineSymbolId ?? undefined)),
    resolve: (payload) => payload as ChartLayerEvent,
  }),
}));
