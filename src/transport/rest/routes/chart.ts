import { z } from 'zod';
import type { ChartDrawingView, ChartLayerView } from '../../../services/chart/index.ts';
import { deleteDrawingParams, deleteDrawingQuery } from '../../../services/chart/deleteDrawing.schema.ts';
import { deleteLayerParams, deleteLayerQuery } from '../../../services/chart/deleteLayer.schema.ts';
import { drawingParams } from '../../../services/chart/getDrawing.schema.ts';
import { layerParams } from '../../../services/chart/getLayer.schema.ts';
import { listDrawingsParams, listDrawingsQuery } from '../../../services/chart/listDrawings.schema.ts';
import { listLayersQuery } from '../../../services/chart/listLayers.schema.ts';
import { syncDrawingsBody } from '../../../services/chart/syncDrawings.schema.ts';
import { drawingOf, upsertDrawingBody } from '../../../services/chart/upsertDrawing.schema.ts';
import { upsertLayerBody } from '../../../services/chart/upsertLayer.schema.ts';
import type { Services } from '../../../services/index.ts';
import { toBase64, toInt64 } from '../codec.ts';
import { defineRoute } from '../route.ts';

/**
 * Chart layers and drawings (spec 2.6, 4.4). Upsert Layer and Upsert Drawing are exactly
 * 4.4; list, get, delete and the offline sync are ours (docs/api-decisions.md). Input
 * schemas and limits live beside each operation (services/chart/<op>.schema.ts).
 */

const layerSchema = z.object({
  ownerId: z.string(),
  layerId: z.string(),
  engineSymbolId: z.number().int(),
  name: z.string(),
  sortHint: z.number().int(),
  colorRgba: z.number().int(),
  useLayerColor: z.boolean(),
  isLocked: z.boolean(),
  isVisible: z.boolean(),
  revision: z.string(),
  updatedAtMs: z.string(),
});

const drawingSchema = z.object({
  ownerId: z.string(),
  drawingId: z.string(),
  layer: z.object({ ownerId: z.string(), layerId: z.string() }),
  engineSymbolId: z.number().int(),
  type: z.number().int(),
  version: z.number().int(),
  payload: z.string(),
  bboxTimeMinMs: z.string(),
  bboxTimeMaxMs: z.string(),
  bboxPriceMin: z.number(),
  bboxPriceMax: z.number(),
  updatedAtMs: z.string(),
  deletedAtMs: z.string(),
  clientUpdatedAtMs: z.string(),
});

export const renderLayer = (l: ChartLayerView) => ({
  ownerId: l.ownerId,
  layerId: l.layerId,
  engineSymbolId: l.engineSymbolId,
  name: l.name,
  sortHint: l.sortHint,
  colorRgba: l.colorRgba,
  useLayerColor: l.useLayerColor,
  isLocked: l.isLocked,
  isVisible: l.isVisible,
  revision: toInt64(l.revision),
  updatedAtMs: toInt64(l.updatedAtMs),
});

export const renderDrawing = (d: ChartDrawingView) => ({
  ownerId: d.ownerId,
  drawingId: d.drawingId,
  layer: { ownerId: d.layer.ownerId, layerId: d.layer.layerId },
  engineSymbolId: d.engineSymbolId,
  type: d.type,
  version: d.version,
  payload: toBase64(d.payload),
  bboxTimeMinMs: toInt64(d.bboxTimeMinMs),
  bboxTimeMaxMs: toInt64(d.bboxTimeMaxMs),
  bboxPriceMin: d.bboxPriceMin,
  bboxPriceMax: d.bboxPriceMax,
  updatedAtMs: toInt64(d.updatedAtMs),
  deletedAtMs: toInt64(d.deletedAtMs),
  clientUpdatedAtMs: toInt64(d.clientUpdatedAtMs),
});

const drawingResult = z.object({ drawing: drawingSchema, layerRevision: z.string() });

export function chartRoutes(s: Services) {
  const chart = s.chart;
  return [
    defineRoute({
      operationId: 'upsertLayer',
      method: 'POST',
      url: '/v1/chart/layers',
      summary: 'Create a layer (expectedRevision 0) or change it if it is still at expectedRevision',
      auth: 'caller',
      body: upsertLayerBody,
      response: z.object({ layer: layerSchema }),
      handler: async ({ body }, ctx) => {
        const { ownerId: _o, revision: _r, updatedAtMs: _u, ...layer } = body.layer;
        const r = await chart.upsertLayer(ctx.caller, { layer, expectedRevision: body.expectedRevision });
        return { layer: renderLayer(r.layer) };
      },
    }),
    defineRoute({
      operationId: 'listLayers',
      method: 'GET',
      url: '/v1/chart/layers',
      summary: "The caller's layers of one market, by sortHint",
      auth: 'caller',
      query: listLayersQuery,
      response: z.object({ layers: z.array(layerSchema) }),
      handler: async ({ query }, ctx) => {
        const r = await chart.listLayers(ctx.caller, query);
        return { layers: r.layers.map(renderLayer) };
      },
    }),
    defineRoute({
      operationId: 'getLayer',
      method: 'GET',
      url: '/v1/chart/layers/:layerId',
      summary: 'One layer',
      auth: 'caller',
      params: layerParams,
      response: z.object({ layer: layerSchema }),
      handler: async ({ params }, ctx) => ({ layer: renderLayer((await chart.getLayer(ctx.caller, params)).layer) }),
    }),
    defineRoute({
      operationId: 'deleteLayer',
      method: 'DELETE',
      url: '/v1/chart/layers/:layerId',
      summary: 'Delete a layer and its drawings (conditional when expectedRevision is given)',
      auth: 'caller',
      params: deleteLayerParams,
      query: deleteLayerQuery,
      response: z.object({}),
      handler: async ({ params, query }, ctx) => chart.deleteLayer(ctx.caller, { ...params, ...query }),
    }),
    defineRoute({
      operationId: 'listDrawings',
      method: 'GET',
      url: '/v1/chart/layers/:layerId/drawings',
      summary: 'Drawings of a layer, oldest change first; with updatedSinceMs, the changes since then, tombstones included',
      auth: 'caller',
      params: listDrawingsParams,
      query: listDrawingsQuery,
      response: z.object({ drawings: z.array(drawingSchema), layerRevision: z.string(), nextPageToken: z.string() }),
      handler: async ({ params, query }, ctx) => {
        const r = await chart.listDrawings(ctx.caller, { ...params, ...query });
        return { drawings: r.drawings.map(renderDrawing), layerRevision: toInt64(r.layerRevision), nextPageToken: r.nextPageToken };
      },
    }),
    defineRoute({
      operationId: 'upsertDrawing',
      method: 'POST',
      url: '/v1/chart/drawings',
      summary: 'Create or replace a drawing if its layer is still at expectedLayerRevision',
      auth: 'caller',
      body: upsertDrawingBody,
      response: drawingResult,
      handler: async ({ body }, ctx) => {
        const r = await chart.upsertDrawing(ctx.caller, { drawing: drawingOf(body.drawing), expectedLayerRevision: body.expectedLayerRevision });
        return { drawing: renderDrawing(r.drawing), layerRevision: toInt64(r.layerRevision) };
      },
    }),
    defineRoute({
      operationId: 'syncDrawings',
      method: 'POST',
      url: '/v1/chart/drawings/sync',
      summary: 'Merge drawings edited offline into a layer, last write (clientUpdatedAtMs) wins per drawing',
      auth: 'caller',
      body: syncDrawingsBody,
      response: z.object({
        results: z.array(z.object({ drawingId: z.string(), winner: z.enum(['CLIENT', 'SERVER']), drawing: drawingSchema })),
        layerRevision: z.string(),
      }),
      handler: async ({ body }, ctx) => {
        const r = await chart.syncDrawings(ctx.caller, { layerId: body.layerId, drawings: body.drawings.map(drawingOf) });
        return {
          results: r.results.map((x) => ({ drawingId: x.drawingId, winner: x.winner, drawing: renderDrawing(x.drawing) })),
          layerRevision: toInt64(r.layerRevision),
        };
      },
    }),
    defineRoute({
      operationId: 'getDrawing',
      method: 'GET',
      url: '/v1/chart/drawings/:drawingId',
      summary: 'One drawing (a deleted one has deletedAtMs set)',
      auth: 'caller',
      params: drawingParams,
      response: z.object({ drawing: drawingSchema }),
      handler: async ({ params }, ctx) => ({ drawing: renderDrawing((await chart.getDrawing(ctx.caller, params)).drawing) }),
    }),
    defineRoute({
      operationId: 'deleteDrawing',
      method: 'DELETE',
      url: '/v1/chart/drawings/:drawingId',
      summary: 'Delete a drawing, leaving a tombstone for syncing devices',
      auth: 'caller',
      params: deleteDrawingParams,
      query: deleteDrawingQuery,
      response: drawingResult,
      handler: async ({ params, query }, ctx) => {
        const r = await chart.deleteDrawing(ctx.caller, { ...params, ...query });
        return { drawing: renderDrawing(r.drawing), layerRevision: toInt64(r.layerRevision) };
      },
    }),
  ];
}
