import type { ChartDrawingView } from '../../../../services/chart/index.ts';
import { deleteDrawingParams, deleteDrawingQuery } from '../../../../services/chart/deleteDrawing.schema.ts';
import { drawingOf, upsertDrawingBody } from '../../../../services/chart/upsertDrawing.schema.ts';
import { builder } from '../../builder.ts';
import { callerOf } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { ChartDrawing } from './chartDrawing.ts';
import { ChartDrawingInput } from './chartDrawingInput.ts';
import { drawingColumns } from './rows.ts';

const ChartDrawingResult = builder.objectRef<{ drawing: ChartDrawingView; layerRevision: bigint }>('ChartDrawingResult').implement({
  fields: (t) => ({
    drawing: t.field({ type: ChartDrawing, resolve: (r, _args, ctx) => drawingColumns(r.drawing, callerOf(ctx).rootAccountId) }),
    layerRevision: t.field({ type: 'Int64', description: 'The parent layer revision after the change', resolve: (r) => r.layerRevision }),
  }),
});

builder.mutationFields((t) => ({
  upsertChartDrawing: t.field({
    type: ChartDrawingResult,
    args: { drawing: t.arg({ type: ChartDrawingInput, required: true }), expectedLayerRevision: t.arg({ type: 'Int64', required: true }) },
    resolve: (_root, args, ctx) => {
      const body = parseArgs(upsertDrawingBody, args);
      return ctx.services.chart.upsertDrawing(callerOf(ctx), { drawing: drawingOf(body.drawing), expectedLayerRevision: body.expectedLayerRevision });
    },
  }),
  deleteChartDrawing: t.field({
    type: ChartDrawingResult,
    description: 'Leaves a tombstone (deletedAtMs set) for syncing devices',
    args: { drawingId: t.arg.string({ required: true }), expectedLayerRevision: t.arg({ type: 'Int64' }) },
    resolve: (_root, { drawingId, expectedLayerRevision }, ctx) =>
      ctx.services.chart.deleteDrawing(callerOf(ctx), { ...parseArgs(deleteDrawingParams, { drawingId }), ...parseArgs(deleteDrawingQuery, { expectedLayerRevision }) }),
  }),
}));
