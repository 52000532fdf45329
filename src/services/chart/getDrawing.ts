import type { Caller } from '../../auth/caller.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { ChartContext } from './context.ts';
import { CHART_ID } from './checks.ts';
import { owner } from './layerStore.ts';
import { drawingView, drawingNotFound } from './views.ts';

/** `include`: the relations a GraphQL selection reads, read with the drawing. */
export async function getDrawing(ctx: ChartContext, caller: Caller, input: { drawingId: string }, include: Prisma.ChartDrawingInclude = {}) {
  const own = owner(caller);
  if (!CHART_ID.test(input.drawingId)) throw drawingNotFound();
  const row = await ctx.db.chartDrawing.findUnique({ where: { ownerAccountId_drawingId: { ownerAccountId: own.id, drawingId: input.drawingId } }, include });
  if (!row) throw drawingNotFound();
  return { drawing: drawingView(row, own.publicId), row };
}
