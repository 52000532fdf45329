import type { Caller } from '../../auth/caller.ts';
import type { ChartContext } from './context.ts';
import { CHART_ID } from './checks.ts';
import { owner } from './layerStore.ts';
import { drawingView, drawingNotFound } from './views.ts';

export async function getDrawing(ctx: ChartContext, caller: Caller, input: { drawingId: string }) {
  const own = owner(caller);
  if (!CHART_ID.test(input.drawingId)) throw drawingNotFound();
  const row = await ctx.db.chartDrawing.findUnique({ where: { ownerAccountId_drawingId: { ownerAccountId: own.id, drawingId: input.drawingId } } });
  if (!row) throw drawingNotFound();
  return { drawing: drawingView(row, own.publicId) };
}
