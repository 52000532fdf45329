import type { SyncWinner } from '../../../../domain/chartMerge.ts';
import type { ChartDrawingView } from '../../../../services/chart/index.ts';
import { builder } from '../../builder.ts';
import { callerOf } from '../../connections.ts';
import { ChartDrawing } from './chartDrawing.ts';
import { drawingColumns } from './rows.ts';

export interface SyncItemShape {
  drawingId: string;
  winner: SyncWinner;
  drawing: ChartDrawingView;
}

const Winner = builder.enumType('ChartSyncWinner', { values: ['CLIENT', 'SERVER'] as const });

export const ChartDrawingSyncItem = builder.objectRef<SyncItemShape>('ChartDrawingSyncItem').implement({
  fields: (t) => ({
    drawingId: t.exposeString('drawingId'),
    winner: t.field({ type: Winner, description: 'Whose state the drawing now has', resolve: (r) => r.winner }),
    drawing: t.field({ type: ChartDrawing, resolve: (r, _args, ctx) => drawingColumns(r.drawing, callerOf(ctx).rootAccountId) }),
  }),
});
