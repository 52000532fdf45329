import { syncDrawingsBody } from '../../../../services/chart/syncDrawings.schema.ts';
import { drawingOf } from '../../../../services/chart/upsertDrawing.schema.ts';
import { builder } from '../../builder.ts';
import { callerOf } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';
import { ChartDrawingInput } from './chartDrawingInput.ts';
import { ChartDrawingSyncItem, type SyncItemShape } from './chartDrawingSyncItem.ts';

const ChartDrawingSyncResult = builder.objectRef<{ results: SyncItemShape[]; layerRevision: bigint }>('ChartDrawingSyncResult').implement({
  fields: (t) => ({
    results: t.field({ type: [ChartDrawingSyncItem], resolve: (r) => r.results }),
    layerRevision: t.field({ type: 'Int64', resolve: (r) => r.layerRevision }),
  }),
});

builder.mutationFields((t) => ({
  syncChartDrawings: t.field({
    type: ChartDrawingSyncResult,
    description: 'Merges drawings edited offline: per drawing the later clientUpdatedAtMs wins',
    args: { layerId: t.arg.string({ required: true }), drawings: t.arg({ type: [ChartDrawingInput], required: true }) },
    resolve: (_root, args, ctx) => {
      const body = parseArgs(syncDrawingsBody, args);
      return ctx.services.chart.syncDrawings(callerOf(ctx), { layerId: body.layerId, drawings: body.drawings.map(drawingOf) });
    },
  }),
}));
