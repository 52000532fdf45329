import { DRAWINGS_LIST_DEFAULT, type ChartDrawingView, type ChartLayerEvent, type ChartLayerView, type LayerRef } from '../../../services/chart/index.ts';
import { deleteDrawingParams, deleteDrawingQuery } from '../../../services/chart/deleteDrawing.schema.ts';
import { deleteLayerParams, deleteLayerQuery } from '../../../services/chart/deleteLayer.schema.ts';
import { drawingParams } from '../../../services/chart/getDrawing.schema.ts';
import { layerParams } from '../../../services/chart/getLayer.schema.ts';
import { listDrawingsParams, listDrawingsQuery } from '../../../services/chart/listDrawings.schema.ts';
import { syncDrawingsBody } from '../../../services/chart/syncDrawings.schema.ts';
import { drawingOf, upsertDrawingBody } from '../../../services/chart/upsertDrawing.schema.ts';
import { upsertLayerBody } from '../../../services/chart/upsertLayer.schema.ts';
import type { SyncWinner } from '../../../domain/chartMerge.ts';
import { invalidArgument } from '../../../domain/errors.ts';
import { builder } from '../builder.ts';
import { encodeBytes } from '../bytes.ts';
import { callerOf, connectionFromPage } from '../connections.ts';
import { guardedStream } from '../guardedStream.ts';
import { parseArgs } from '../validate.ts';
import { ViewerRef } from './viewer.ts';

/**
 * Chart layers and drawings over GraphQL: the same service calls as /v1
 * (routes/chart.ts) with the same field names, validated by the same input schemas
 * (services/chart/<op>.schema.ts). `payload` is base64 text; `colorRgba` is an Int64
 * (0xAARRGGBB does not fit GraphQL's signed 32-bit Int).
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
    resolve: async (caller, args, ctx) => (await ctx.services.chart.listLayers(caller, args)).layers,
  }),
  chartLayer: t.field({
    type: Layer,
    args: { layerId: t.arg.string({ required: true }) },
    resolve: async (caller, args, ctx) => (await ctx.services.chart.getLayer(caller, parseArgs(layerParams, args))).layer,
  }),
  chartDrawing: t.field({
    type: Drawing,
    args: { drawingId: t.arg.string({ required: true }) },
    resolve: async (caller, args, ctx) => (await ctx.services.chart.getDrawing(caller, parseArgs(drawingParams, args))).drawing,
  }),
  chartDrawings: t.connection(
    {
      type: Drawing,
      description: 'Drawings of a layer, oldest change first; with updatedSinceMs, the changes since then, tombstones included',
      args: { layerId: t.arg.string({ required: true }), updatedSinceMs: t.arg({ type: 'Int64' }) },
      resolve: async (caller, args, ctx) => {
        const { layerId } = parseArgs(listDrawingsParams, { layerId: args.layerId });
        const since = parseArgs(listDrawingsQuery, { updatedSinceMs: args.updatedSinceMs });
        let layerRevision = 0n;
        const connection = await connectionFromPage(args, DRAWINGS_LIST_DEFAULT, async (page) => {
          const r = await ctx.services.chart.listDrawings(caller, { ...page, layerId, ...since });
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
      const body = parseArgs(upsertLayerBody, { layer: { ...layer, colorRgba: colorRgba == null ? null : Number(colorRgba) }, expectedRevision });
      const { ownerId: _o, revision: _r, updatedAtMs: _u, ...fields } = body.layer;
      return (await ctx.services.chart.upsertLayer(callerOf(ctx), { layer: fields, expectedRevision: body.expectedRevision })).layer;
    },
  }),
  deleteChartLayer: t.string({
    description: 'Deletes the layer and its drawings; the id of the deleted layer',
    args: { layerId: t.arg.string({ required: true }), expectedRevision: t.arg({ type: 'Int64' }) },
    resolve: async (_root, { layerId, expectedRevision }, ctx) => {
      await ctx.services.chart.deleteLayer(callerOf(ctx), { ...parseArgs(deleteLayerParams, { layerId }), ...parseArgs(deleteLayerQuery, { expectedRevision }) });
      return layerId;
    },
  }),
  upsertChartDrawing: t.field({
    type: DrawingResult,
    args: { drawing: t.arg({ type: DrawingInputType, required: true }), expectedLayerRevision: t.arg({ type: 'Int64', required: true }) },
    resolve: (_root, args, ctx) => {
      const body = parseArgs(upsertDrawingBody, args);
      return ctx.services.chart.upsertDrawing(callerOf(ctx), { drawing: drawingOf(body.drawing), expectedLayerRevision: body.expectedLayerRevision });
    },
  }),
  deleteChartDrawing: t.field({
    type: DrawingResult,
    description: 'Leaves a tombstone (deletedAtMs set) for syncing devices',
    args: { drawingId: t.arg.string({ required: true }), expectedLayerRevision: t.arg({ type: 'Int64' }) },
    resolve: (_root, { drawingId, expectedLayerRevision }, ctx) =>
      ctx.services.chart.deleteDrawing(callerOf(ctx), { ...parseArgs(deleteDrawingParams, { drawingId }), ...parseArgs(deleteDrawingQuery, { expectedLayerRevision }) }),
  }),
  syncChartDrawings: t.field({
    type: SyncResult,
    description: 'Merges drawings edited offline: per drawing the later clientUpdatedAtMs wins',
    args: { layerId: t.arg.string({ required: true }), drawings: t.arg({ type: [DrawingInputType], required: true }) },
    resolve: (_root, args, ctx) => {
      const body = parseArgs(syncDrawingsBody, args);
      return ctx.services.chart.syncDrawings(callerOf(ctx), { layerId: body.layerId, drawings: body.drawings.map(drawingOf) });
    },
  }),
}));

builder.subscriptionFields((t) => ({
  chartLayerChanges: t.field({
    type: Change,
    description: 'Every committed change of the caller’s layers and drawings (of one market when engineSymbolId is given)',
    args: { engineSymbolId: t.arg.int() },
    // Checked against the credential as it is at each event, like every private stream.
    subscribe: (_root, args, ctx) => guardedStream(ctx, callerOf(ctx), ctx.services.chart.subscribeChartLayerChanges(callerOf(ctx), args.engineSymbolId ?? undefined)),
    resolve: (payload) => payload,
  }),
}));
