import type { Caller } from '../../auth/caller.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { Clock } from '../../infra/clock.ts';
import type { Db } from '../../infra/database.ts';
import type { MarketCatalog } from '../markets.ts';
import type { PageTokens } from '../pageTokens.ts';
import type { RateLimiter } from '../rateLimits.ts';
import type { TopicBus } from '../topicBus.ts';
import type { ChartContext, ChartTopics } from './context.ts';
import { deleteDrawing } from './deleteDrawing.ts';
import { deleteLayer } from './deleteLayer.ts';
import { getDrawing } from './getDrawing.ts';
import { getLayer } from './getLayer.ts';
import { owner } from './layerStore.ts';
import { listDrawings } from './listDrawings.ts';
import { listLayers } from './listLayers.ts';
import { syncDrawings } from './syncDrawings.ts';
import { upsertDrawing } from './upsertDrawing.ts';
import { upsertLayer } from './upsertLayer.ts';
import type { ChartLayerEvent } from './views.ts';

/**
 * Chart layers and drawings (spec 2.6, 4.4, 3 "Chart layer revision"). A layer's
 * `revision` is its optimistic-concurrency token: every committed change to the layer or
 * to any of its drawings raises it by one, in the same transaction, under the layer's row
 * lock. Drawings are deleted as tombstones so syncing devices learn of deletions; offline
 * edits merge last-write-wins (src/domain/chartMerge.ts). Layers and drawings belong to
 * the caller's root account; ids of anyone else's are 404.
 */

export type { ChartTopics } from './context.ts';
export type { ChartDrawingView, ChartLayerEvent, ChartLayerView, DrawingInput, LayerInput, LayerRef } from './views.ts';
export { CHART_ID } from './checks.ts';
export { TOMBSTONE_RETENTION_MS } from './layerStore.ts';
export { LAYER_NAME_MAX, MAX_LAYERS_PER_SYMBOL } from './upsertLayer.schema.ts';
export { MAX_DRAWING_PAYLOAD_BYTES, MAX_DRAWINGS_PER_LAYER } from './upsertDrawing.schema.ts';
export { DRAWINGS_LIST_DEFAULT, DRAWINGS_LIST_MAX } from './listDrawings.schema.ts';
export { MAX_SYNC_DRAWINGS } from './syncDrawings.schema.ts';

type Input<F extends (ctx: ChartContext, caller: Caller, input: never) => unknown> = Parameters<F>[2];

/**
 * The chart operations, keyed by their operationId (the /v1 route table's names). Building
 * the table only closes over the context, so the operation names can be read without one.
 * The reads take the relations a GraphQL selection reads (Pothos' query) as `include`.
 */
export function chartOperations(ctx: ChartContext) {
  return {
    upsertLayer: (caller: Caller, input: Input<typeof upsertLayer>) => upsertLayer(ctx, caller, input),
    listLayers: (caller: Caller, input: Input<typeof listLayers>, include: Prisma.ChartLayerInclude = {}) => listLayers(ctx, caller, input, include),
    getLayer: (caller: Caller, input: Input<typeof getLayer>, include: Prisma.ChartLayerInclude = {}) => getLayer(ctx, caller, input, include),
    deleteLayer: (caller: Caller, input: Input<typeof deleteLayer>) => deleteLayer(ctx, caller, input),
    listDrawings: (caller: Caller, input: Input<typeof listDrawings>, include: Prisma.ChartDrawingInclude = {}) => listDrawings(ctx, caller, input, include),
    upsertDrawing: (caller: Caller, input: Input<typeof upsertDrawing>) => upsertDrawing(ctx, caller, input),
    syncDrawings: (caller: Caller, input: Input<typeof syncDrawings>) => syncDrawings(ctx, caller, input),
    getDrawing: (caller: Caller, input: Input<typeof getDrawing>, include: Prisma.ChartDrawingInclude = {}) => getDrawing(ctx, caller, input, include),
    deleteDrawing: (caller: Caller, input: Input<typeof deleteDrawing>) => deleteDrawing(ctx, caller, input),
  };
}

/** The chart service: its operations and the stream of committed layer changes. */
export function createChartService(deps: {
  db: Db;
  clock: Clock;
  markets: Pick<MarketCatalog, 'marketById'>;
  pageTokens: PageTokens;
  limiter: Pick<RateLimiter, 'admit'>;
  topics: TopicBus<ChartTopics>;
}) {
  const ctx: ChartContext = {
    db: deps.db,
    clock: deps.clock,
    markets: deps.markets,
    pageTokens: deps.pageTokens,
    limiter: deps.limiter,
    topics: deps.topics,
  };
  return {
    ...chartOperations(ctx),
    /** `chartLayerChanges`: committed changes of the caller's layers and drawings (all markets, or one). */
    subscribeChartLayerChanges(caller: Caller, engineSymbolId?: number): AsyncIterableIterator<ChartLayerEvent> {
      const own = owner(caller);
      return ctx.topics.subscribe('chart', own.publicId, engineSymbolId === undefined ? undefined : (e) => e.engineSymbolId === engineSymbolId);
    },
  };
}

export type ChartService = ReturnType<typeof createChartService>;
