import { z } from 'zod';
import { DRAWINGS_LIST_MAX, MAX_SYNC_DRAWINGS, type ChartDrawingView, type ChartLayerView } from '../../../services/chart.ts';
import type { Services } from '../../../services/index.ts';
import { bytes, int32, nonNegativeInt64, queryInt, toBase64, toInt64 } from '../codec.ts';
import { defineRoute } from '../route.ts';
import { pageQuery } from '../schemas.ts';

/**
 * Chart layers and drawings (spec 2.6, 4.4). Upsert Layer and Upsert Drawing are exactly
 * 4.4; list, get, delete and the offline sync are ours (docs/api-decisions.md). Clients
 * may send back a layer or drawing as they received it: the server-assigned fields
 * (`ownerId`, `revision`, `updatedAtMs`, `deletedAtMs`) are accepted and ignored.
 */

const id = () => z.string().max(64);
const uint32 = () => z.number({ error: 'must be a number' }).int({ error: 'must be an integer' }).min(0).max(2 ** 32 - 1);

const layerInput = z.strictObject({
  ownerId: z.string().max(64).optional(),
  layerId: z.string().max(64).optional(),
  engineSymbolId: int32(),
  name: z.string().max(1024),
  sortHint: int32().optional(),
  colorRgba: uint32().optional(),
  useLayerColor: z.boolean().optional(),
  isLocked: z.boolean().optional(),
  isVisible: z.boolean().optional(),
  revision: z.string().max(32).optional(),
  updatedAtMs: z.string().max(32).optional(),
});

const drawingInput = z.strictObject({
  ownerId: z.string().max(64).optional(),
  drawingId: z.string().max(64).optional(),
  layer: z.strictObject({ ownerId: z.string().max(64).optional(), layerId: id() }),
  engineSymbolId: int32(),
  type: int32(),
  version: int32(),
  payload: bytes(),
  bboxTimeMinMs: nonNegativeInt64().optional(),
  bboxTimeMaxMs: nonNegativeInt64().optional(),
  bboxPriceMin: z.number().optional(),
  bboxPriceMax: z.number().optional(),
  updatedAtMs: z.string().max(32).optional(),
  deletedAtMs: nonNegativeInt64().optional(),
  clientUpdatedAtMs: nonNegativeInt64().optional(),
});

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

type DrawingBody = z.output<typeof drawingInput>;
/** The service's input: the fields the server takes from a client. */
const drawingOf = ({ ownerId: _o, updatedAtMs: _u, ...d }: DrawingBody) => d;

const layerParams = z.strictObject({ layerId: id() });
const drawingParams = z.strictObject({ drawingId: id() });
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
      body: z.strictObject({ layer: layerInput, expectedRevision: nonNegativeInt64() }),
      response: z.object({ layer: layerSchema }),
      handler: async ({ body }, ctx) => {
        const { ownerId: _o, revision: _r, updatedAtMs: _u, ...layer } = body.layer;
        const r = await chart.upsertChartLayer(ctx.caller, { layer, expectedRevision: body.expectedRevision });
        return { layer: renderLayer(r.layer) };
      },
    }),
    defineRoute({
      operationId: 'listLayers',
      method: 'GET',
      url: '/v1/chart/layers',
      summary: "The caller's layers of one market, by sortHint",
      auth: 'caller',
      query: z.strictObject({ engineSymbolId: queryInt(1, 2 ** 31 - 1) }),
      response: z.object({ layers: z.array(layerSchema) }),
      handler: async ({ query }, ctx) => {
        const r = await chart.listChartLayers(ctx.caller, query);
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
      handler: async ({ params }, ctx) => ({ layer: renderLayer((await chart.getChartLayer(ctx.caller, params)).layer) }),
    }),
    defineRoute({
      operationId: 'deleteLayer',
      method: 'DELETE',
      url: '/v1/chart/layers/:layerId',
      summary: 'Delete a layer and its drawings (conditional when expectedRevision is given)',
      auth: 'caller',
      params: layerParams,
      query: z.strictObject({ expectedRevision: nonNegativeInt64().optional() }),
      response: z.object({}),
      handler: async ({ params, query }, ctx) => chart.deleteChartLayer(ctx.caller, { ...params, ...query }),
    }),
    defineRoute({
      operationId: 'listDrawings',
      method: 'GET',
      url: '/v1/chart/layers/:layerId/drawings',
      summary: 'Drawings of a layer, oldest change first; with updatedSinceMs, the changes since then, tombstones included',
      auth: 'caller',
      params: layerParams,
      query: z.strictObject({ updatedSinceMs: nonNegativeInt64().optional(), ...pageQuery(DRAWINGS_LIST_MAX) }),
      response: z.object({ drawings: z.array(drawingSchema), layerRevision: z.string(), nextPageToken: z.string() }),
      handler: async ({ params, query }, ctx) => {
        const r = await chart.listChartDrawings(ctx.caller, { ...params, ...query });
        return { drawings: r.drawings.map(renderDrawing), layerRevision: toInt64(r.layerRevision), nextPageToken: r.nextPageToken };
      },
    }),
    defineRoute({
      operationId: 'upsertDrawing',
      method: 'POST',
      url: '/v1/chart/drawings',
      summary: 'Create or replace a drawing if its layer is still at expectedLayerRevision',
      auth: 'caller',
      body: z.strictObject({ drawing: drawingInput, expectedLayerRevision: nonNegativeInt64() }),
      response: drawingResult,
      handler: async ({ body }, ctx) => {
        const r = await chart.upsertChartDrawing(ctx.caller, { drawing: drawingOf(body.drawing), expectedLayerRevision: body.expectedLayerRevision });
        return { drawing: renderDrawing(r.drawing), layerRevision: toInt64(r.layerRevision) };
      },
    }),
    defineRoute({
      operationId: 'syncDrawings',
      method: 'POST',
      url: '/v1/chart/drawings/sync',
      summary: 'Merge drawings edited offline into a layer, last write (clientUpdatedAtMs) wins per drawing',
      auth: 'caller',
      body: z.strictObject({ layerId: id(), drawings: z.array(drawingInput).max(MAX_SYNC_DRAWINGS) }),
      response: z.object({
        results: z.array(z.object({ drawingId: z.string(), winner: z.enum(['CLIENT', 'SERVER']), drawing: drawingSchema })),
        layerRevision: z.string(),
      }),
      handler: async ({ body }, ctx) => {
        const r = await chart.syncChartDrawings(ctx.caller, { layerId: body.layerId, drawings: body.drawings.map(drawingOf) });
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
      handler: async ({ params }, ctx) => ({ drawing: renderDrawing((await chart.getChartDrawing(ctx.caller, params)).drawing) }),
    }),
    defineRoute({
      operationId: 'deleteDrawing',
      method: 'DELETE',
      url: '/v1/chart/drawings/:drawingId',
      summary: 'Delete a drawing, leaving a tombstone for syncing devices',
      auth: 'caller',
      params: drawingParams,
      query: z.strictObject({ expectedLayerRevision: nonNegativeInt64().optional() }),
      response: drawingResult,
      handler: async ({ params, query }, ctx) => {
        const r = await chart.deleteChartDrawing(ctx.caller, { ...params, ...query });
        return { drawing: renderDrawing(r.drawing), layerRevision: toInt64(r.layerRevision) };
      },
    }),
  ];
}
