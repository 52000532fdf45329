import type { Caller } from '../../auth/caller.ts';
import type { ChartContext } from './context.ts';
import { errors } from '../../domain/errorCatalogue.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import { pageLimit, toPage } from '../pageTokens.ts';
import { owner, findLayer, TOMBSTONE_RETENTION_MS } from './layerStore.ts';
import { drawingView } from './views.ts';
import { DRAWINGS_LIST_MAX, DRAWINGS_LIST_DEFAULT } from './listDrawings.schema.ts';

/**
 * Drawings of a layer, oldest change first. Without `updatedSinceMs` (or 0): the live
 * drawings. With it: every drawing changed at or after it, tombstones included; a
 * time older than the tombstone retention is refused, as deletions from then may be
 * gone. `layerRevision` is read in the same snapshot as the drawings. `include`: the
 * relations a GraphQL selection reads, read with the page; the rows are answered too.
 */
export async function listDrawings(
  ctx: ChartContext,
  caller: Caller,
  input: { layerId: string; updatedSinceMs?: bigint; limit?: number; pageToken?: string },
  include: Prisma.ChartDrawingInclude = {},
) {
  const own = owner(caller);
  const limit = pageLimit(input.limit, DRAWINGS_LIST_MAX, DRAWINGS_LIST_DEFAULT);
  const since = input.updatedSinceMs ?? 0n;
  if (since < 0n) throw invalidArgument('updatedSinceMs', 'must not be negative', 'range');
  const horizon = BigInt(ctx.clock.now().getTime() - TOMBSTONE_RETENTION_MS);
  if (since !== 0n && since < horizon) {
    throw errors.CHART_SYNC_WINDOW_EXPIRED('updatedSinceMs is older than the tombstone retention: list from the start', {
      violations: [{ fieldPath: 'updatedSinceMs', message: `must be within the last ${TOMBSTONE_RETENTION_MS} ms, or 0`, ruleId: 'sync-window' }],
    });
  }
  const binding = { operation: 'listChartDrawings', caller: own.publicId, filters: { layerId: input.layerId, since: since.toString(), order: 'updatedAt asc' } };
  const cursor = ctx.pageTokens.decode<{ updatedAt: string; id: string }>(input.pageToken, binding);
  return ctx.db.$transaction(
    async (tx) => {
      const layer = await findLayer(tx, own.id, input.layerId);
      const where: Prisma.ChartDrawingWhereInput = {
        layerOwnerAccountId: own.id,
        layerId: layer.layerId,
        ...(since === 0n
          ? { deletedAt: null }
          : { updatedAt: { gte: new Date(Number(since)) }, OR: [{ deletedAt: null }, { deletedAt: { gte: new Date(Number(horizon)) } }] }),
      };
      const after: Prisma.ChartDrawingWhereInput = cursor
        ? {
            OR: [
              { updatedAt: { gt: new Date(cursor.updatedAt) } },
              { updatedAt: new Date(cursor.updatedAt), id: { gt: BigInt(cursor.id) } },
            ],
          }
        : {};
      const rows = await tx.chartDrawing.findMany({
        where: { AND: [where, after] },
        orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }],
        take: limit + 1,
        include,
      });
      const page = toPage(rows, limit, ctx.pageTokens, binding, (r) => ({ updatedAt: r.updatedAt.toISOString(), id: r.id.toString() }));
      return { drawings: page.items.map((r) => drawingView(r, own.publicId)), rows: page.items, layerRevision: layer.revision, nextPageToken: page.nextPageToken };
    },
    { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead },
  );
}
