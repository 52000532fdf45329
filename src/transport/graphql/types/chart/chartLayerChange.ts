import type { ChartLayerEvent } from '../../../../services/chart/index.ts';
import { builder } from '../../builder.ts';
import { callerOf } from '../../connections.ts';
import { guardedStream } from '../../guardedStream.ts';
import { ChartDrawing } from './chartDrawing.ts';
import { ChartLayer } from './chartLayer.ts';
import { drawingColumns, layerColumns } from './rows.ts';

const ChangeKind = builder.enumType('ChartLayerChangeKind', { values: ['LAYER_UPSERTED', 'LAYER_DELETED', 'DRAWINGS_CHANGED'] as const });

const ChartLayerChange = builder.objectRef<ChartLayerEvent>('ChartLayerChange').implement({
  description: 'A committed change of one of the caller’s layers or its drawings',
  fields: (t) => ({
    change: t.field({ type: ChangeKind, resolve: (e) => e.change }),
    layerId: t.exposeString('layerId'),
    engineSymbolId: t.exposeInt('engineSymbolId'),
    revision: t.field({ type: 'Int64', description: 'The layer revision this change produced', resolve: (e) => e.revision }),
    layer: t.field({
      type: ChartLayer,
      nullable: true,
      description: 'Null when the layer was deleted',
      resolve: (e, _args, ctx) => (e.layer ? layerColumns(e.layer, callerOf(ctx).rootAccountId) : null),
    }),
    drawings: t.field({
      type: [ChartDrawing],
      description: 'The drawings the change wrote, tombstones included',
      resolve: (e, _args, ctx) => e.drawings.map((d) => drawingColumns({ ...d, payload: new Uint8Array(Buffer.from(d.payload, 'base64')) }, callerOf(ctx).rootAccountId)),
    }),
  }),
});

builder.subscriptionFields((t) => ({
  chartLayerChanges: t.field({
    type: ChartLayerChange,
    description: 'Every committed change of the caller’s layers and drawings (of one market when engineSymbolId is given)',
    args: { engineSymbolId: t.arg.int() },
    // Checked against the credential as it is at each event, like every private stream.
    subscribe: (_root, args, ctx) => guardedStream(ctx, callerOf(ctx), ctx.services.chart.subscribeChartLayerChanges(callerOf(ctx), args.engineSymbolId ?? undefined)),
    resolve: (payload) => payload,
  }),
}));
