import { DRAWINGS_LIST_MAX, MAX_LAYERS_PER_SYMBOL } from '../../../../services/chart/index.ts';
import { deleteLayerParams, deleteLayerQuery } from '../../../../services/chart/deleteLayer.schema.ts';
import { layerParams } from '../../../../services/chart/getLayer.schema.ts';
import { upsertLayerBody } from '../../../../services/chart/upsertLayer.schema.ts';
import { invalidArgument } from '../../../../domain/errors.ts';
import type { Prisma } from '../../../../generated/prisma/client.ts';
import { builder } from '../../builder.ts';
import { callerOf } from '../../connections.ts';
import { relationsOf } from '../../relations.ts';
import { parseArgs } from '../../validate.ts';
import { ViewerRef } from '../viewer.ts';
import { ChartLayerInput } from './chartLayerInput.ts';
import { LAYER_COLUMNS, layerColumns } from './rows.ts';
import { nestedFirst } from '../../nestedFirst.ts';

/**
 * Drawings a layer lists when `first` is not given. A market's layers are costed as the most
 * it may have (MAX_LAYERS_PER_SYMBOL), so their drawings fit the cost limit only when few:
 * the rest are paged with `chartDrawings`.
 */
const LAYER_DRAWINGS_DEFAULT = 20;
const drawingsFirst = nestedFirst(LAYER_DRAWINGS_DEFAULT, DRAWINGS_LIST_MAX);

/**
 * A layer is its Prisma row: a market's layers read the drawings their selection asks for
 * with them, in one statement whatever the number of layers. Rows are only ever the
 * caller's own (the service's `where`), so the owner is the caller's root.
 */
export const ChartLayer = builder.prismaObject('ChartLayer', {
  description: 'A drawing layer of one market (spec 2.6)',
  select: LAYER_COLUMNS,
  findUnique: (l) => ({ ownerAccountId_layerId: { ownerAccountId: l.ownerAccountId, layerId: l.layerId } }),
  fields: (t) => ({
    ownerId: t.string({ resolve: (_l, _args, ctx) => callerOf(ctx).rootPublicId }),
    layerId: t.exposeString('layerId'),
    engineSymbolId: t.exposeInt('engineSymbolId'),
    name: t.exposeString('name'),
    sortHint: t.exposeInt('sortHint'),
    colorRgba: t.field({ type: 'Int64', description: 'Packed 0xAARRGGBB', resolve: (l) => l.colorRgba }),
    useLayerColor: t.exposeBoolean('useLayerColor'),
    isLocked: t.exposeBoolean('isLocked'),
    isVisible: t.exposeBoolean('isVisible'),
    revision: t.field({ type: 'Int64', description: 'Increases on every committed change to the layer or its drawings', resolve: (l) => l.revision }),
    updatedAtMs: t.field({ type: 'Int64', resolve: (l) => BigInt(l.updatedAt.getTime()) }),
    drawings: t.relation('drawings', {
      description: `Its live drawings, oldest change first: the first ${LAYER_DRAWINGS_DEFAULT} unless \`first\` (at most ${DRAWINGS_LIST_MAX}) says otherwise; \`chartDrawings\` pages them and follows their changes`,
      args: { first: t.arg.int({ description: drawingsFirst.description }) },
      // Costed by the rows it can return, the default included (a list is otherwise costed as 10).
      complexity: (args) => ({ field: 1, multiplier: drawingsFirst.cost(args) }),
      query: (args) => ({ where: { deletedAt: null }, orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }], take: drawingsFirst.take(args) }),
    }),
  }),
});

builder.objectFields(ViewerRef, (t) => ({
  chartLayers: t.prismaField({
    type: [ChartLayer],
    description: 'The caller’s layers of one market, by sortHint',
    args: { engineSymbolId: t.arg.int({ required: true }) },
    // As many rows as a market may have layers, not a short list's 10: each may nest its drawings.
    complexity: { field: 1, multiplier: MAX_LAYERS_PER_SYMBOL },
    resolve: async (query, caller, args, ctx) => (await ctx.services.chart.listLayers(caller, args, relationsOf<Prisma.ChartLayerInclude>(query))).rows,
  }),
  chartLayer: t.prismaField({
    type: ChartLayer,
    args: { layerId: t.arg.string({ required: true }) },
    resolve: async (query, caller, args, ctx) => (await ctx.services.chart.getLayer(caller, parseArgs(layerParams, args), relationsOf<Prisma.ChartLayerInclude>(query))).row,
  }),
}));

builder.mutationFields((t) => ({
  upsertChartLayer: t.field({
    type: ChartLayer,
    description: 'expectedRevision 0 creates; otherwise the layer must be at it (else CONFLICT_STALE_REVISION with currentRevision)',
    args: { layer: t.arg({ type: ChartLayerInput, required: true }), expectedRevision: t.arg({ type: 'Int64', required: true }) },
    resolve: async (_root, { layer, expectedRevision }, ctx) => {
      const colorRgba = layer.colorRgba;
      if (colorRgba != null && (colorRgba < 0n || colorRgba > 0xffffffffn)) {
        throw invalidArgument('layer.colorRgba', 'must be from 0 to 4294967295', 'range');
      }
      const body = parseArgs(upsertLayerBody, { layer: { ...layer, colorRgba: colorRgba == null ? null : Number(colorRgba) }, expectedRevision });
      const { ownerId: _o, revision: _r, updatedAtMs: _u, ...fields } = body.layer;
      const caller = callerOf(ctx);
      return layerColumns((await ctx.services.chart.upsertLayer(caller, { layer: fields, expectedRevision: body.expectedRevision })).layer, caller.rootAccountId);
    },
  }),
  deleteChartLayer: t.string({
    description: 'Deletes the layer and its drawings; the id of the deleted layer',
    args: { layerId: t.arg.string({ required: true }), expectedRevision: t.arg({ type: 'Int64' }) },
    resolve: async (_root, { layerId, expectedRevision }, ctx) => {
      await ctx.services.chart.deleteLayer(callerOf(ctx), { ...parseArgs(deleteLayerParams, { layerId }), ...parseArgs(deleteLayerQuery, { expectedRevision }) });
      return layerId;
    },
  }),
}));
