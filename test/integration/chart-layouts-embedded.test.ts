import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/auth/caller.ts';
import { systemClock } from '../../src/infra/clock.ts';
import { openDatabase, type Database } from '../../src/infra/database.ts';
import { openSharedStore, type SharedStore } from '../../src/infra/redis.ts';
import { createChartService } from '../../src/services/chart/index.ts';
import { createLayoutService } from '../../src/services/layouts/index.ts';
import { PageTokens } from '../../src/services/pageTokens.ts';
import { Topics } from '../../src/services/topicBus.ts';
import { tempDir } from '../helpers/infra.ts';

/**
 * The `npm start` default: the chart and layout services on PGlite with the in-process
 * store, so the row locks, advisory locks, snapshot reads and title search they use
 * work there too.
 */
let database: Database;
let store: SharedStore;
let remove: () => Promise<void>;
let caller: Caller;
beforeAll(async () => {
  const dir = await tempDir();
  remove = dir.remove;
  database = await openDatabase({ kind: 'pglite', dataDir: dir.dir });
  store = await openSharedStore({ kind: 'memory', keyPrefix: 'embedded:' });
  const root = await database.prisma.account.create({ data: { publicId: 'EmbeddedChartRoot', kind: 'ROOT' } });
  caller = { kind: 'session', rootAccountId: root.id, rootPublicId: root.publicId, sessionId: 1n };
});
afterAll(async () => {
  await store?.close();
  await database?.close();
  await remove?.();
});

const deps = () => ({
  db: database.prisma,
  clock: systemClock(),
  pageTokens: new PageTokens('embedded-secret'),
  limiter: { admit: async () => undefined },
});

describe('chart and layouts on embedded PGlite', () => {
  it('layers, drawings, tombstones, delta sync, LWW sync and the subscription', async () => {
    const chart = createChartService({ ...deps(), markets: { marketById: () => ({}) as never }, topics: new Topics(store.events, store.keyPrefix) });
    const events = chart.subscribeChartLayerChanges(caller);
    const next = events.next();
    const { layer } = await chart.upsertLayer(caller, { layer: { engineSymbolId: 1, name: 'l' }, expectedRevision: 0n });
    expect((await next).value).toMatchObject({ change: 'LAYER_UPSERTED', layerId: layer.layerId });
    const drawing = { layer: { layerId: layer.layerId }, engineSymbolId: 1, type: 1, version: 1, payload: Uint8Array.of(1, 2) };
    const a = await chart.upsertDrawing(caller, { drawing: { ...drawing, drawingId: 'a' }, expectedLayerRevision: 1n });
    expect(a.layerRevision).toBe(2n);
    await expect(chart.upsertDrawing(caller, { drawing, expectedLayerRevision: 1n })).rejects.toMatchObject({
      code: 'CONFLICT_STALE_REVISION',
      extensions: { currentRevision: '2' },
    });
    const deleted = await chart.deleteDrawing(caller, { drawingId: 'a' });
    expect(deleted.drawing.deletedAtMs).not.toBe(0n);
    const delta = await chart.listDrawings(caller, { layerId: layer.layerId, updatedSinceMs: a.drawing.updatedAtMs });
    expect(delta.drawings.map((d) => d.drawingId)).toEqual(['a']);
    expect(delta.layerRevision).toBe(3n);
    const synced = await chart.syncDrawings(caller, {
      layerId: layer.layerId,
      drawings: [{ ...drawing, drawingId: 'a', clientUpdatedAtMs: 1n }, { ...drawing, drawingId: 'b', clientUpdatedAtMs: 1n }],
    });
    expect(synced.results.map((r) => [r.drawingId, r.winner])).toEqual([
      ['a', 'SERVER'],
      ['b', 'CLIENT'],
    ]);
    expect(synced.layerRevision).toBe(4n);
    await events.return?.();
  });

  it('layouts: one default, publish twice, discovery by title and use', async () => {
    const layouts = createLayoutService(deps());
    const first = await layouts.upsertLayout(caller, { layout: { name: 'one', isDefault: true } });
    const second = await layouts.upsertLayout(caller, { layout: { name: 'two', isDefault: true, widgets: [{ widgetId: 'w', widgetType: 'CHART', widgetConfig: Uint8Array.of(7) }] } });
    expect((await layouts.getLayout(caller, { layoutId: first.layout.layoutId })).layout.isDefault).toBe(false);
    const v1 = await layouts.publishLayout(caller, { layoutId: second.layout.layoutId, title: 'Embedded Title', isListed: true });
    const v2 = await layouts.publishLayout(caller, { layoutId: second.layout.layoutId, title: 'Embedded Title', isListed: true, changelog: 'again' });
    expect([v1.version, v2.version]).toEqual([1, 2]);
    const found = await layouts.listLayoutTemplates(caller, { query: 'embedded title' });
    expect(found.templates.map((t) => t.template.templateId)).toEqual([v1.template.template.templateId]);
    const used = await layouts.useLayoutTemplate(caller, { ...v1.template.template, version: 1 });
    expect(used.layout.widgets).toEqual([{ widgetId: 'w', widgetType: 'CHART', widgetConfig: Uint8Array.of(7) }]);
  });
});
