import { queryFromInfo } from '@pothos/plugin-prisma';
import { DRAWINGS_LIST_DEFAULT } from '../../../../services/chart/index.ts';
import { drawingParams } from '../../../../services/chart/getDrawing.schema.ts';
import { listDrawingsParams, listDrawingsQuery } from '../../../../services/chart/listDrawings.schema.ts';
import type { Prisma } from '../../../../generated/prisma/client.ts';
import { builder } from '../../builder.ts';
import { encodeBytes } from '../../bytes.ts';
import { callerOf, connectionFromPage } from '../../connections.ts';
import { relationsOf } from '../../relations.ts';
import { parseArgs } from '../../validate.ts';
import { ViewerRef } from '../viewer.ts';
import { ChartLayerRef } from './chartLayerRef.ts';
import { DRAWING_COLUMNS } from './rows.ts';

const ms = (d: Date | null): bigint => (d ? BigInt(d.getTime()) : 0n);

/** A drawing is its Prisma row; like its layer, only ever the caller's own. */
export const ChartDrawing = builder.prismaObject('ChartDrawing', {
  description: 'A drawing on a layer (spec 2.6); deleted ones are tombstones with deletedAtMs set',
  select: DRAWING_COLUMNS,
  findUnique: (d) => ({ ownerAccountId_drawingId: { ownerAccountId: d.ownerAccountId, drawingId: d.drawingId } }),
  fields: (t) => ({
    ownerId: t.string({ resolve: (_d, _args, ctx) => callerOf(ctx).rootPublicId }),
    drawingId: t.exposeString('drawingId'),
    layer: t.field({ type: ChartLayerRef, resolve: (d, _args, ctx) => ({ ownerId: callerOf(ctx).rootPublicId, layerId: d.layerId }) }),
    engineSymbolId: t.exposeInt('engineSymbolId'),
    type: t.exposeInt('type'),
    version: t.exposeInt('version'),
    payload: t.string({ description: 'base64', resolve: (d) => encodeBytes(d.payload) }),
    bboxTimeMinMs: t.field({ type: 'Int64', resolve: (d) => d.bboxTimeMinMs }),
    bboxTimeMaxMs: t.field({ type: 'Int64', resolve: (d) => d.bboxTimeMaxMs }),
    bboxPriceMin: t.exposeFloat('bboxPriceMin'),
    bboxPriceMax: t.exposeFloat('bboxPriceMax'),
    updatedAtMs: t.field({ type: 'Int64', resolve: (d) => ms(d.updatedAt) }),
    deletedAtMs: t.field({ type: 'Int64', description: '0 when not deleted', resolve: (d) => ms(d.deletedAt) }),
    clientUpdatedAtMs: t.field({ type: 'Int64', resolve: (d) => d.clientUpdatedAtMs }),
  }),
});

builder.objectFields(ViewerRef, (t) => ({
  chartDrawing: t.prismaField({
    type: ChartDrawing,
    args: { drawingId: t.arg.string({ required: true }) },
    resolve: async (query, caller, args, ctx) =>
      (await ctx.services.chart.getDrawing(caller, parseArgs(drawingParams, args), relationsOf<Prisma.ChartDrawingInclude>(query))).row,
  }),
  chartDrawings: t.connection(
    {
      type: ChartDrawing,
      description: 'Drawings of a layer, oldest change first; with updatedSinceMs, the changes since then, tombstones included',
      args: { layerId: t.arg.string({ required: true }), updatedSinceMs: t.arg({ type: 'Int64' }) },
      resolve: async (caller, args, ctx, info) => {
        const { layerId } = parseArgs(listDrawingsParams, { layerId: args.layerId });
        const since = parseArgs(listDrawingsQuery, { updatedSinceMs: args.updatedSinceMs });
        const include = relationsOf<Prisma.ChartDrawingInclude>(queryFromInfo({ context: ctx, info, typeName: 'ChartDrawing', path: ['edges', 'node'] }));
        let layerRevision = 0n;
        const connection = await connectionFromPage(args, DRAWINGS_LIST_DEFAULT, async (page) => {
          const r = await ctx.services.chart.listDrawings(caller, { ...page, layerId, ...since }, include);
          layerRevision = r.layerRevision;
          return { items: r.rows, nextPageToken: r.nextPageToken };
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
