import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DRAWING_PAYLOAD_BYTES, MAX_DRAWINGS_PER_LAYER, MAX_LAYERS_PER_SYMBOL, TOMBSTONE_RETENTION_MS } from '../../src/services/chart/index.ts';
import {
  ChartDrawingDocument,
  ChartDrawingsDocument,
  ChartLayerChangesDocument,
  ChartLayerDocument,
  ChartLayersDocument,
  DeleteChartDrawingDocument,
  DeleteChartLayerDocument,
  SyncChartDrawingsDocument,
  UpsertChartDrawingDocument,
  UpsertChartLayerDocument,
  type ChartLayerChangesSubscription,
} from '../generated/graphql/graphql.ts';
import { api, liftLimits, newKeyPair, onboard, signed, signIn, type ClientKey, type SignedIn } from '../helpers/auth.ts';
import { gql, wsClient } from '../helpers/graphql.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';
import { pollUntil } from '../helpers/wait.ts';
import { shiftableClock } from '../helpers/clock.ts';


const LAYERS = '/v1/chart/layers';
const DRAWINGS = '/v1/chart/drawings';
const clock = shiftableClock();
let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp({ clock });
});
afterAll(async () => {
  await server?.close();
});

function expectProblem(r: { status: number; body: any }, status: number, code: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body).toMatchObject({ status, code, type: expect.any(String), title: expect.any(String), detail: expect.any(String) });
}

async function user(): Promise<SignedIn> {
  const who = await signIn(server.url);
  await liftLimits(server.url, who.rootAccountId, ['ACCOUNT_ADMIN']);
  return who;
}

async function newLayer(who: SignedIn, layer: Record<string, unknown> = {}) {
  const r = await api(server.url, 'POST', LAYERS, { layer: { engineSymbolId: 1, name: 'trend lines', ...layer }, expectedRevision: '0' }, who.auth);
  if (r.status !== 200) throw new Error(`layer: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.layer;
}

const drawing = (layerId: string, extra: Record<string, unknown> = {}) => ({
  layer: { layerId },
  engineSymbolId: 1,
  type: 3,
  version: 1,
  payload: Buffer.from('line').toString('base64'),
  ...extra,
});

async function draw(who: SignedIn, layerId: string, expectedLayerRevision: string, extra: Record<string, unknown> = {}) {
  const r = await api(server.url, 'POST', DRAWINGS, { drawing: drawing(layerId, extra), expectedLayerRevision }, who.auth);
  if (r.status !== 200) throw new Error(`drawing: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { drawing: any; layerRevision: string };
}

describe('REST: layers', () => {
  it('creates with expectedRevision "0", renders spec 2.6, and bumps the revision on every change', async () => {
    const me = await user();
    const before = clock.now().getTime();
    const layer = await newLayer(me, { sortHint: 2, colorRgba: 0xff112233, useLayerColor: true });
    expect(layer).toEqual({
      ownerId: me.rootAccountId,
      layerId: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]+$/),
      engineSymbolId: 1,
      name: 'trend lines',
      sortHint: 2,
      colorRgba: 0xff112233,
      useLayerColor: true,
      isLocked: false,
      isVisible: true,
      revision: '1',
      updatedAtMs: expect.stringMatching(/^[1-9][0-9]*$/),
    });
    expect(Number(layer.updatedAtMs)).toBeGreaterThanOrEqual(before);

    const renamed = await api(server.url, 'POST', LAYERS, { layer: { ...layer, name: 'fib', isLocked: true }, expectedRevision: '1' }, me.auth);
    expect(renamed.status).toBe(200);
    expect(renamed.body.layer).toMatchObject({ layerId: layer.layerId, name: 'fib', isLocked: true, revision: '2' });

    const stale = await api(server.url, 'POST', LAYERS, { layer: { ...layer, name: 'late' }, expectedRevision: '1' }, me.auth);
    expectProblem(stale, 409, 'CONFLICT_STALE_REVISION');
    expect(stale.body.currentRevision).toBe('2');
    expect((await api(server.url, 'GET', `${LAYERS}/${layer.layerId}`, undefined, me.auth)).body.layer.name).toBe('fib');

    // A drawing change moves the layer's revision too.
    const d = await draw(me, layer.layerId, '2');
    expect(d.layerRevision).toBe('3');
    expect((await api(server.url, 'GET', `${LAYERS}/${layer.layerId}`, undefined, me.auth)).body.layer.revision).toBe('3');
  });

  it('keeps a client-chosen layerId; creating it again is a stale revision with the current one', async () => {
    const me = await user();
    const layerId = randomUUID();
    const layer = await newLayer(me, { layerId });
    expect(layer.layerId).toBe(layerId);
    const again = await api(server.url, 'POST', LAYERS, { layer: { layerId, engineSymbolId: 1, name: 'x' }, expectedRevision: '0' }, me.auth);
    expectProblem(again, 409, 'CONFLICT_STALE_REVISION');
    expect(again.body.currentRevision).toBe('1');
  });

  it('lists the layers of one market by sortHint; another market and another account are apart', async () => {
    const me = await user();
    const other = await user();
    const b = await newLayer(me, { name: 'b', sortHint: 5 });
    const a = await newLayer(me, { name: 'a', sortHint: -1 });
    await newLayer(me, { name: 'eth', engineSymbolId: 2 });
    await newLayer(other, { name: 'theirs' });
    const list = await api(server.url, 'GET', `${LAYERS}?engineSymbolId=1`, undefined, me.auth);
    expect(list.body.layers.map((l: any) => l.layerId)).toEqual([a.layerId, b.layerId]);
  });

  it("answers another account's layer and drawing ids with 404, for reads and writes", async () => {
    const me = await user();
    const stranger = await user();
    const layer = await newLayer(me);
    const { drawing: d } = await draw(me, layer.layerId, '1');
    expectProblem(await api(server.url, 'GET', `${LAYERS}/${layer.layerId}`, undefined, stranger.auth), 404, 'CHART_LAYER_NOT_FOUND');
    expectProblem(await api(server.url, 'GET', `${LAYERS}/${layer.layerId}/drawings`, undefined, stranger.auth), 404, 'CHART_LAYER_NOT_FOUND');
    expectProblem(await api(server.url, 'POST', LAYERS, { layer: { ...layer }, expectedRevision: '2' }, stranger.auth), 404, 'CHART_LAYER_NOT_FOUND');
    expectProblem(await api(server.url, 'DELETE', `${LAYERS}/${layer.layerId}`, undefined, stranger.auth), 404, 'CHART_LAYER_NOT_FOUND');
    expectProblem(await api(server.url, 'GET', `${DRAWINGS}/${d.drawingId}`, undefined, stranger.auth), 404, 'CHART_DRAWING_NOT_FOUND');
    expectProblem(await api(server.url, 'DELETE', `${DRAWINGS}/${d.drawingId}`, undefined, stranger.auth), 404, 'CHART_DRAWING_NOT_FOUND');
    expectProblem(
      await api(server.url, 'POST', DRAWINGS, { drawing: drawing(layer.layerId), expectedLayerRevision: '2' }, stranger.auth),
      404,
      'CHART_LAYER_NOT_FOUND',
    );
    // Naming the owner explicitly does not help either.
    expectProblem(
      await api(server.url, 'POST', DRAWINGS, { drawing: { ...drawing(layer.layerId), layer: { ownerId: me.rootAccountId, layerId: layer.layerId } }, expectedLayerRevision: '2' }, stranger.auth),
      404,
      'CHART_LAYER_NOT_FOUND',
    );
    expect((await api(server.url, 'GET', `${DRAWINGS}/${d.drawingId}`, undefined, me.auth)).body.drawing.deletedAtMs).toBe('0');
  });

  it('refuses bad input with a named field: unknown market, colour out of range, bad ids, moving a layer to another market', async () => {
    const me = await user();
    const bad = async (layer: Record<string, unknown>, field: string, expectedRevision = '0') => {
      const r = await api(server.url, 'POST', LAYERS, { layer: { engineSymbolId: 1, name: 'n', ...layer }, expectedRevision }, me.auth);
      expectProblem(r, 400, 'BAD_REQUEST');
      expect(r.body.violations[0].fieldPath).toBe(field);
    };
    await bad({ engineSymbolId: 999 }, 'layer.engineSymbolId');
    await bad({ colorRgba: 2 ** 32 }, 'layer.colorRgba');
    await bad({ layerId: 'has space' }, 'layer.layerId');
    await bad({ name: '  ' }, 'layer.name');
    const layer = await newLayer(me);
    await bad({ layerId: layer.layerId, engineSymbolId: 2 }, 'layer.engineSymbolId', '1');
  });

  it('deletes a layer with its drawings; its ids are 404 from then on', async () => {
    const me = await user();
    const layer = await newLayer(me);
    const { drawing: d } = await draw(me, layer.layerId, '1');
    expectProblem(await api(server.url, 'DELETE', `${LAYERS}/${layer.layerId}?expectedRevision=1`, undefined, me.auth), 409, 'CONFLICT_STALE_REVISION');
    expect((await api(server.url, 'DELETE', `${LAYERS}/${layer.layerId}?expectedRevision=2`, undefined, me.auth)).body).toEqual({});
    expectProblem(await api(server.url, 'GET', `${LAYERS}/${layer.layerId}`, undefined, me.auth), 404, 'CHART_LAYER_NOT_FOUND');
    expectProblem(await api(server.url, 'GET', `${DRAWINGS}/${d.drawingId}`, undefined, me.auth), 404, 'CHART_DRAWING_NOT_FOUND');
  });
});

describe('REST: drawings', () => {
  it('upserts with a client-chosen id, exact 64-bit fields and float price bounds', async () => {
    const me = await user();
    const layer = await newLayer(me);
    const drawingId = randomUUID();
    const before = clock.now().getTime();
    const r = await draw(me, layer.layerId, '1', {
      drawingId,
      bboxTimeMinMs: '1732400000000',
      bboxTimeMaxMs: '9007199254740993',
      bboxPriceMin: 91234.5,
      bboxPriceMax: 0.000123,
      clientUpdatedAtMs: '1732400000123',
    });
    expect(r).toEqual({
      layerRevision: '2',
      drawing: {
        ownerId: me.rootAccountId,
        drawingId,
        layer: { ownerId: me.rootAccountId, layerId: layer.layerId },
        engineSymbolId: 1,
        type: 3,
        version: 1,
        payload: Buffer.from('line').toString('base64'),
        bboxTimeMinMs: '1732400000000',
        bboxTimeMaxMs: '9007199254740993',
        bboxPriceMin: 91234.5,
        bboxPriceMax: 0.000123,
        updatedAtMs: expect.stringMatching(/^[0-9]+$/),
        deletedAtMs: '0',
        clientUpdatedAtMs: '1732400000123',
      },
    });
    expect(Number(r.drawing.updatedAtMs)).toBeGreaterThanOrEqual(before);
    // Replacing it: the same id, a new layer revision; deletedAtMs is the server's (deleting is its own operation).
    const again = await draw(me, layer.layerId, '2', { drawingId, type: 4, deletedAtMs: '5' });
    expect(again.drawing).toMatchObject({ drawingId, type: 4, deletedAtMs: '0' });
    expect(again.layerRevision).toBe('3');
    // An empty id is assigned by the server.
    const assigned = await draw(me, layer.layerId, '3', { drawingId: '' });
    expect(assigned.drawing.drawingId).toMatch(/^[1-9A-HJ-NP-Za-km-z]+$/);
  });

  it('a stale expectedLayerRevision changes nothing and reports the current revision', async () => {
    const me = await user();
    const layer = await newLayer(me);
    await draw(me, layer.layerId, '1');
    const stale = await api(server.url, 'POST', DRAWINGS, { drawing: drawing(layer.layerId), expectedLayerRevision: '1' }, me.auth);
    expectProblem(stale, 409, 'CONFLICT_STALE_REVISION');
    expect(stale.body.currentRevision).toBe('2');
    expect(stale.body.violations[0].fieldPath).toBe('expectedLayerRevision');
    const list = await api(server.url, 'GET', `${LAYERS}/${layer.layerId}/drawings`, undefined, me.auth);
    expect(list.body.drawings).toHaveLength(1);
  });

  it('limits: payload size per drawing, the market of the layer, a drawing stays on its layer', async () => {
    const me = await user();
    const layer = await newLayer(me);
    const other = await newLayer(me, { name: 'other' });
    const big = Buffer.alloc(MAX_DRAWING_PAYLOAD_BYTES + 1, 1).toString('base64');
    const tooBig = await api(server.url, 'POST', DRAWINGS, { drawing: drawing(layer.layerId, { payload: big }), expectedLayerRevision: '1' }, me.auth);
    expectProblem(tooBig, 400, 'BAD_REQUEST');
    expect(tooBig.body.violations[0]).toMatchObject({ fieldPath: 'drawing.payload', ruleId: 'max-bytes' });
    const justFits = Buffer.alloc(MAX_DRAWING_PAYLOAD_BYTES, 1).toString('base64');
    expect((await draw(me, layer.layerId, '1', { payload: justFits })).layerRevision).toBe('2');

    const wrongMarket = await api(server.url, 'POST', DRAWINGS, { drawing: drawing(layer.layerId, { engineSymbolId: 2 }), expectedLayerRevision: '2' }, me.auth);
    expect(wrongMarket.body.violations[0]).toMatchObject({ fieldPath: 'drawing.engineSymbolId', ruleId: 'layer-market' });

    const drawingId = randomUUID();
    await draw(me, layer.layerId, '2', { drawingId });
    const moved = await api(server.url, 'POST', DRAWINGS, { drawing: drawing(other.layerId, { drawingId }), expectedLayerRevision: '1' }, me.auth);
    expect(moved.body.violations[0]).toMatchObject({ fieldPath: 'drawing.layer.layerId', ruleId: 'immutable' });
    // Nothing of a refused write is kept: the other layer is still at revision 1.
    expect((await api(server.url, 'GET', `${LAYERS}/${other.layerId}`, undefined, me.auth)).body.layer.revision).toBe('1');
  });

  it('limits: layers per market and live drawings per layer (tombstones do not count)', async () => {
    const me = await user();
    const prisma = server.database.prisma;
    const owner = await prisma.account.findUniqueOrThrow({ where: { publicId: me.rootAccountId } });
    await prisma.chartLayer.createMany({
      data: Array.from({ length: MAX_LAYERS_PER_SYMBOL - 1 }, (_, i) => ({ ownerAccountId: owner.id, layerId: `seed-${i}`, engineSymbolId: 3, name: 's' })),
    });
    await newLayer(me, { engineSymbolId: 3 });
    const full = await api(server.url, 'POST', LAYERS, { layer: { engineSymbolId: 3, name: 'one too many' }, expectedRevision: '0' }, me.auth);
    expectProblem(full, 400, 'BAD_REQUEST');
    expect(full.body.violations[0]).toMatchObject({ fieldPath: 'layer.engineSymbolId', ruleId: 'max-layers' });
    // Other markets are counted apart.
    await newLayer(me, { engineSymbolId: 2 });

    const layer = await newLayer(me);
    const base = { ownerAccountId: owner.id, layerOwnerAccountId: owner.id, layerId: layer.layerId, engineSymbolId: 1, type: 1, version: 1, payload: new Uint8Array(), clientUpdatedAtMs: 1n };
    await prisma.chartDrawing.createMany({
      data: Array.from({ length: MAX_DRAWINGS_PER_LAYER - 1 }, (_, i) => ({ ...base, drawingId: `seed-${i}` })),
    });
    await prisma.chartDrawing.create({ data: { ...base, drawingId: 'seed-tombstone', deletedAt: new Date() } });
    const last = await draw(me, layer.layerId, '1');
    const over = await api(server.url, 'POST', DRAWINGS, { drawing: drawing(layer.layerId), expectedLayerRevision: last.layerRevision }, me.auth);
    expectProblem(over, 400, 'BAD_REQUEST');
    expect(over.body.violations[0]).toMatchObject({ fieldPath: 'drawing.layer.layerId', ruleId: 'max-drawings' });
    // Bringing back the tombstone would exceed it too; replacing a live drawing does not.
    const revive = await api(server.url, 'POST', DRAWINGS, { drawing: drawing(layer.layerId, { drawingId: 'seed-tombstone' }), expectedLayerRevision: last.layerRevision }, me.auth);
    expect(revive.body.violations[0].ruleId).toBe('max-drawings');
    expect((await draw(me, layer.layerId, last.layerRevision, { drawingId: 'seed-1' })).layerRevision).toBe(String(BigInt(last.layerRevision) + 1n));
  }, 60_000);

  it('deletes as a tombstone; delta sync returns changes since a time, tombstones included', async () => {
    const me = await user();
    const layer = await newLayer(me);
    const a = (await draw(me, layer.layerId, '1')).drawing;
    const b = (await draw(me, layer.layerId, '2')).drawing;
    const since = (await api(server.url, 'GET', `${LAYERS}/${layer.layerId}`, undefined, me.auth)).body.layer.updatedAtMs;
    const del = await api(server.url, 'DELETE', `${DRAWINGS}/${a.drawingId}?expectedLayerRevision=3`, undefined, me.auth);
    expect(del.status).toBe(200);
    expect(del.body.layerRevision).toBe('4');
    expect(del.body.drawing.deletedAtMs).not.toBe('0');
    expect(del.body.drawing.deletedAtMs).toBe(del.body.drawing.updatedAtMs);
    // Deleting again is idempotent: no new revision.
    const again = await api(server.url, 'DELETE', `${DRAWINGS}/${a.drawingId}`, undefined, me.auth);
    expect(again.body).toEqual(del.body);

    const full = await api(server.url, 'GET', `${LAYERS}/${layer.layerId}/drawings`, undefined, me.auth);
    expect(full.body).toEqual({ drawings: [b], layerRevision: '4', nextPageToken: '' });
    const delta = await api(server.url, 'GET', `${LAYERS}/${layer.layerId}/drawings?updatedSinceMs=${since}`, undefined, me.auth);
    expect(delta.body.drawings.map((d: any) => [d.drawingId, d.deletedAtMs !== '0'])).toContainEqual([a.drawingId, true]);
    expect(delta.body.layerRevision).toBe('4');
    // The tombstone is still readable by id.
    expect((await api(server.url, 'GET', `${DRAWINGS}/${a.drawingId}`, undefined, me.auth)).body.drawing.deletedAtMs).toBe(del.body.drawing.deletedAtMs);
  });

  it('pages the drawings of a layer oldest change first, with a token bound to the layer and the time', async () => {
    const me = await user();
    const layer = await newLayer(me);
    let rev = '1';
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await draw(me, layer.layerId, rev);
      rev = r.layerRevision;
      ids.push(r.drawing.drawingId);
    }
    const seen: string[] = [];
    let token = '';
    do {
      const r = await api(server.url, 'GET', `${LAYERS}/${layer.layerId}/drawings?limit=2${token ? `&pageToken=${token}` : ''}`, undefined, me.auth);
      seen.push(...r.body.drawings.map((d: any) => d.drawingId));
      token = r.body.nextPageToken;
    } while (token);
    expect(seen).toEqual(ids);
    const first = await api(server.url, 'GET', `${LAYERS}/${layer.layerId}/drawings?limit=2`, undefined, me.auth);
    const since = first.body.drawings[0].updatedAtMs;
    const reused = await api(server.url, 'GET', `${LAYERS}/${layer.layerId}/drawings?limit=2&updatedSinceMs=${since}&pageToken=${first.body.nextPageToken}`, undefined, me.auth);
    expectProblem(reused, 400, 'BAD_REQUEST');
    expect(reused.body.violations[0]).toMatchObject({ fieldPath: 'pageToken', ruleId: 'page-token' });
  });

  it('purges tombstones after the retention; an older delta sync must start over', async () => {
    let me = await user();
    const layer = await newLayer(me);
    const a = (await draw(me, layer.layerId, '1')).drawing;
    const since = a.updatedAtMs;
    await api(server.url, 'DELETE', `${DRAWINGS}/${a.drawingId}`, undefined, me.auth);
    const prisma = server.database.prisma;
    clock.skip(TOMBSTONE_RETENTION_MS + 1000);
    try {
      // The session has expired meanwhile: the same wallet signs in again.
      me = await signIn(server.url, me.wallet);
      const expired = await api(server.url, 'GET', `${LAYERS}/${layer.layerId}/drawings?updatedSinceMs=${since}`, undefined, me.auth);
      expectProblem(expired, 400, 'CHART_SYNC_WINDOW_EXPIRED');
      expect(expired.body.violations[0].fieldPath).toBe('updatedSinceMs');
      expect(await prisma.chartDrawing.count({ where: { drawingId: a.drawingId } })).toBe(1);
      // The next change of the layer purges it.
      await draw(me, layer.layerId, '3');
      expect(await prisma.chartDrawing.count({ where: { drawingId: a.drawingId } })).toBe(0);
      expectProblem(await api(server.url, 'GET', `${DRAWINGS}/${a.drawingId}`, undefined, me.auth), 404, 'CHART_DRAWING_NOT_FOUND');
    } finally {
      // Signed API-key requests carry the real time: put the server's clock back for the tests after this one.
      clock.skip(-(TOMBSTONE_RETENTION_MS + 1000));
    }
  });
});

describe('REST: concurrency', () => {
  it('concurrent layer upserts with the same expectedRevision: exactly one wins', async () => {
    const me = await user();
    const layer = await newLayer(me);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api(server.url, 'POST', LAYERS, { layer: { ...layer, name: `n${i}` }, expectedRevision: '1' }, me.auth),
      ),
    );
    const won = results.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) {
      expectProblem(r, 409, 'CONFLICT_STALE_REVISION');
      expect(r.body.currentRevision).toBe('2');
    }
    const now = (await api(server.url, 'GET', `${LAYERS}/${layer.layerId}`, undefined, me.auth)).body.layer;
    expect(now).toEqual(won[0]!.body.layer);
  });

  it('concurrent drawing upserts against the same layer revision: exactly one commits', async () => {
    const me = await user();
    const layer = await newLayer(me);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => api(server.url, 'POST', DRAWINGS, { drawing: drawing(layer.layerId), expectedLayerRevision: '1' }, me.auth)),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(7);
    const list = await api(server.url, 'GET', `${LAYERS}/${layer.layerId}/drawings`, undefined, me.auth);
    expect(list.body.drawings).toHaveLength(1);
    expect(list.body.layerRevision).toBe('2');
  });

  it('concurrent creates of one client-chosen layerId: exactly one creates it', async () => {
    const me = await user();
    const layerId = randomUUID();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => api(server.url, 'POST', LAYERS, { layer: { layerId, engineSymbolId: 1, name: `n${i}` }, expectedRevision: '0' }, me.auth)),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) expectProblem(r, 409, 'CONFLICT_STALE_REVISION');
  });
});

describe('REST: offline sync (POST /v1/chart/drawings/sync)', () => {
  it('keeps the later clientUpdatedAtMs per drawing and says which side won', async () => {
    const me = await user();
    const layer = await newLayer(me);
    const kept = randomUUID();
    const lost = randomUUID();
    const fresh = randomUUID();
    await draw(me, layer.layerId, '1', { drawingId: kept, clientUpdatedAtMs: '2000', payload: Buffer.from('server-new').toString('base64') });
    await draw(me, layer.layerId, '2', { drawingId: lost, clientUpdatedAtMs: '1000', payload: Buffer.from('server-old').toString('base64') });
    const offline = [
      drawing(layer.layerId, { drawingId: kept, clientUpdatedAtMs: '1500', payload: Buffer.from('client-old').toString('base64') }),
      drawing(layer.layerId, { drawingId: lost, clientUpdatedAtMs: '1700', payload: Buffer.from('client-new').toString('base64') }),
      drawing(layer.layerId, { drawingId: fresh, clientUpdatedAtMs: '1800' }),
    ];
    const r = await api(server.url, 'POST', `${DRAWINGS}/sync`, { layerId: layer.layerId, drawings: offline }, me.auth);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.layerRevision).toBe('4');
    const byId = Object.fromEntries(r.body.results.map((x: any) => [x.drawingId, x]));
    expect(byId[kept]).toMatchObject({ winner: 'SERVER', drawing: { payload: Buffer.from('server-new').toString('base64'), clientUpdatedAtMs: '2000' } });
    expect(byId[lost]).toMatchObject({ winner: 'CLIENT', drawing: { payload: Buffer.from('client-new').toString('base64'), clientUpdatedAtMs: '1700' } });
    expect(byId[fresh]).toMatchObject({ winner: 'CLIENT', drawing: { drawingId: fresh, deletedAtMs: '0' } });

    // Replaying the same sync changes nothing: the server wins everywhere, no new revision.
    const replay = await api(server.url, 'POST', `${DRAWINGS}/sync`, { layerId: layer.layerId, drawings: offline }, me.auth);
    expect(replay.body.layerRevision).toBe('4');
    expect(replay.body.results.map((x: any) => x.winner)).toEqual(['SERVER', 'SERVER', 'SERVER']);
  });

  it('an offline deletion (deletedAtMs non-zero) wins when later, and is a tombstone', async () => {
    const me = await user();
    const layer = await newLayer(me);
    const id = randomUUID();
    await draw(me, layer.layerId, '1', { drawingId: id, clientUpdatedAtMs: '1000' });
    const r = await api(server.url, 'POST', `${DRAWINGS}/sync`, {
      layerId: layer.layerId,
      drawings: [drawing(layer.layerId, { drawingId: id, clientUpdatedAtMs: '1001', deletedAtMs: '1' })],
    }, me.auth);
    expect(r.body.results[0].winner).toBe('CLIENT');
    expect(r.body.results[0].drawing.deletedAtMs).not.toBe('0');
    expect(r.body.results[0].drawing.deletedAtMs).not.toBe('1');
    const list = await api(server.url, 'GET', `${LAYERS}/${layer.layerId}/drawings`, undefined, me.auth);
    expect(list.body.drawings).toEqual([]);
  });

  it('refuses items without ids or clientUpdatedAtMs, or of another layer', async () => {
    const me = await user();
    const layer = await newLayer(me);
    const other = await newLayer(me, { name: 'o' });
    const sync = (drawings: unknown[]) => api(server.url, 'POST', `${DRAWINGS}/sync`, { layerId: layer.layerId, drawings }, me.auth);
    expect((await sync([drawing(layer.layerId, { clientUpdatedAtMs: '5' })])).body.violations[0].fieldPath).toBe('drawings[0].drawingId');
    expect((await sync([drawing(layer.layerId, { drawingId: 'x' })])).body.violations[0].fieldPath).toBe('drawings[0].clientUpdatedAtMs');
    expect((await sync([drawing(other.layerId, { drawingId: 'x', clientUpdatedAtMs: '5' })])).body.violations[0].fieldPath).toBe('drawings[0].layer.layerId');
    expect((await sync([])).status).toBe(400);
  });
});

describe('REST: access and quotas', () => {
  async function keyFor(owner: SignedIn, permissions: string[]): Promise<ClientKey> {
    const policy = await api(server.url, 'POST', '/v1/auth/api-policies', { name: permissions.join('+') || 'none', permissions }, owner.auth);
    const pair = newKeyPair();
    const body = { label: 'bot', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), policyId: policy.body.policy.policyId };
    const r = await api(server.url, 'POST', '/v1/auth/api-keys', body, owner.auth);
    if (r.status !== 200) throw new Error(`create key: ${r.status} ${JSON.stringify(r.body)}`);
    return { keyId: r.body.apiKey.keyId, ...pair };
  }

  it('an API key with READ works on the same layers as the session; a key with other permissions only is refused', async () => {
    const owner = await onboard(server.url);
    const reader = await keyFor(owner, ['READ']);
    const trader = await keyFor(owner, ['TRADE']);
    const created = await signed(server.url, reader, 'POST', LAYERS, { layer: { engineSymbolId: 1, name: 'by key' }, expectedRevision: '0' });
    expect(created.status).toBe(200);
    expect(created.body.layer.ownerId).toBe(owner.rootAccountId);
    const viaSession = await api(server.url, 'GET', `${LAYERS}/${created.body.layer.layerId}`, undefined, owner.auth);
    expect(viaSession.body.layer).toEqual(created.body.layer);
    expectProblem(await signed(server.url, trader, 'GET', `${LAYERS}?engineSymbolId=1`), 403, 'MISSING_PERMISSION');
    expectProblem(await api(server.url, 'GET', `${LAYERS}?engineSymbolId=1`), 401, 'CREDENTIALS_REQUIRED');
  });

  it('charges chart mutations to ACCOUNT_ADMIN (1 unit of a 30-unit burst), reads not at all', async () => {
    const me = await signIn(server.url);
    const layer = await newLayer(me);
    let rev = layer.revision as string;
    let admitted = 1;
    let rejected: { status: number; body: any } | undefined;
    const started = Date.now();
    for (let i = 0; i < 60 && !rejected; i++) {
      const r = await api(server.url, 'POST', DRAWINGS, { drawing: drawing(layer.layerId), expectedLayerRevision: rev }, me.auth);
      if (r.status === 200) {
        admitted++;
        rev = r.body.layerRevision;
      } else rejected = r;
    }
    const refilled = 2 * Math.ceil((Date.now() - started) / 1000);
    expect(admitted).toBeGreaterThanOrEqual(30);
    expect(admitted).toBeLessThanOrEqual(30 + refilled);
    expectProblem(rejected!, 429, 'RATE_LIMIT_EXCEEDED');
    expect(rejected!.body.rate_limit).toMatchObject({ operation_id: 'chart.mutate', policy_class: 'ACCOUNT_ADMIN' });
    expect((await api(server.url, 'GET', `${LAYERS}/${layer.layerId}/drawings`, undefined, me.auth)).status).toBe(200);
  });
});

describe('GraphQL', () => {
  it('runs layers and drawings through the same services, with REST field names and the same errors', async () => {
    const me = await user();
    const made = await gql(server.url, UpsertChartLayerDocument, { layer: { engineSymbolId: 1, name: 'gql', colorRgba: '4278190335' }, expectedRevision: '0' }, me.auth);
    expect(made.body.errors).toBeUndefined();
    const layer = made.body.data!.upsertChartLayer;
    const rest = await api(server.url, 'GET', `${LAYERS}/${layer.layerId}`, undefined, me.auth);
    expect({ ...rest.body.layer, colorRgba: String(rest.body.layer.colorRgba) }).toEqual(layer);
    expect(layer.colorRgba).toBe('4278190335');

    const stale = await gql(server.url, UpsertChartLayerDocument, { layer: { layerId: layer.layerId, engineSymbolId: 1, name: 'x' }, expectedRevision: '7' }, me.auth);
    expect(stale.body.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT_STALE_REVISION', currentRevision: '1', status: 409 });

    const d = await gql(server.url, UpsertChartDrawingDocument, {
      drawing: { drawingId: 'gql-1', layer: { layerId: layer.layerId }, engineSymbolId: 1, type: 1, version: 2, payload: 'AAEC', bboxPriceMin: 1.5, bboxTimeMaxMs: '9007199254740993' },
      expectedLayerRevision: '1',
    }, me.auth);
    expect(d.body.errors).toBeUndefined();
    expect(d.body.data!.upsertChartDrawing.layerRevision).toBe('2');
    const restDrawing = (await api(server.url, 'GET', `${DRAWINGS}/gql-1`, undefined, me.auth)).body.drawing;
    expect(d.body.data!.upsertChartDrawing.drawing).toEqual(restDrawing);

    const badBytes = await gql(server.url, UpsertChartDrawingDocument, {
      drawing: { layer: { layerId: layer.layerId }, engineSymbolId: 1, type: 1, version: 1, payload: 'not base64!' },
      expectedLayerRevision: '2',
    }, me.auth);
    expect(badBytes.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', violations: [{ fieldPath: 'drawing.payload', ruleId: 'base64' }] });

    const listed = await gql(server.url, ChartLayersDocument, { engineSymbolId: 1 }, me.auth);
    expect(listed.body.data!.viewer.chartLayers).toEqual([layer].map((l) => ({ ...l, revision: '2', updatedAtMs: expect.any(String) })));
    const one = await gql(server.url, ChartLayerDocument, { layerId: layer.layerId }, me.auth);
    expect(one.body.data!.viewer.chartLayer.revision).toBe('2');

    const synced = await gql(server.url, SyncChartDrawingsDocument, {
      layerId: layer.layerId,
      drawings: [{ drawingId: 'gql-2', layer: { layerId: layer.layerId }, engineSymbolId: 1, type: 1, version: 1, payload: '', clientUpdatedAtMs: '10' }],
    }, me.auth);
    expect(synced.body.data!.syncChartDrawings).toMatchObject({ layerRevision: '3', results: [{ drawingId: 'gql-2', winner: 'CLIENT' }] });

    const deleted = await gql(server.url, DeleteChartDrawingDocument, { drawingId: 'gql-1', expectedLayerRevision: '3' }, me.auth);
    expect(deleted.body.data!.deleteChartDrawing.layerRevision).toBe('4');
    const page = await gql(server.url, ChartDrawingsDocument, { layerId: layer.layerId, first: 10 }, me.auth);
    expect(page.body.data!.viewer.chartDrawings.layerRevision).toBe('4');
    expect(page.body.data!.viewer.chartDrawings.edges.map((e) => e.node.drawingId)).toEqual(['gql-2']);
    const delta = await gql(server.url, ChartDrawingsDocument, { layerId: layer.layerId, updatedSinceMs: restDrawing.updatedAtMs }, me.auth);
    expect(delta.body.data!.viewer.chartDrawings.edges.map((e) => [e.node.drawingId, e.node.deletedAtMs !== '0'])).toEqual([
      ['gql-2', false],
      ['gql-1', true],
    ]);

    const stranger = await user();
    const hidden = await gql(server.url, ChartDrawingDocument, { drawingId: 'gql-2' }, stranger.auth);
    expect(hidden.body.errors?.[0]?.extensions).toMatchObject({ code: 'CHART_DRAWING_NOT_FOUND', status: 404 });
    expect((await gql(server.url, DeleteChartLayerDocument, { layerId: layer.layerId }, stranger.auth)).body.errors?.[0]?.extensions?.code).toBe('CHART_LAYER_NOT_FOUND');
    expect((await gql(server.url, DeleteChartLayerDocument, { layerId: layer.layerId, expectedRevision: '4' }, me.auth)).body.data!.deleteChartLayer).toBe(layer.layerId);
  });

  it('chartLayerChanges: a second device of the same account sees a drawing appear, after commit; other accounts see nothing', async () => {
    const me = await user();
    const secondDevice = await signIn(server.url, me.wallet);
    const stranger = await user();
    const layer = await newLayer(me);

    type Change = ChartLayerChangesSubscription['chartLayerChanges'];
    const seen: Change[] = [];
    const strangerSaw: Change[] = [];
    const device = wsClient(server.url, { authorization: secondDevice.auth.authorization as string });
    const other = wsClient(server.url, { authorization: stranger.auth.authorization as string });
    try {
      device.subscribe({ query: ChartLayerChangesDocument.toString(), variables: { engineSymbolId: 1 } }, {
        next: (r) => void seen.push((r.data as ChartLayerChangesSubscription).chartLayerChanges),
        error: () => undefined,
        complete: () => undefined,
      });
      other.subscribe({ query: ChartLayerChangesDocument.toString(), variables: {} }, {
        next: (r) => void strangerSaw.push((r.data as ChartLayerChangesSubscription).chartLayerChanges),
        error: () => undefined,
        complete: () => undefined,
      });
      // Until the subscription is live, layer renames are the probe; then the scenario starts from a known revision.
      let revision = layer.revision as string;
      await pollUntil(async () => {
        const r = await api(server.url, 'POST', LAYERS, { layer: { ...layer, name: `probe ${revision}` }, expectedRevision: revision }, me.auth);
        revision = r.body.layer.revision;
        return seen.length > 0;
      }, 5000, 100);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen[0]).toMatchObject({ change: 'LAYER_UPSERTED', layerId: layer.layerId, layer: { name: expect.stringMatching(/^probe/) } });

      const made = await draw(me, layer.layerId, revision, { drawingId: 'seen-1', payload: Buffer.from('hello').toString('base64') });
      // A refused write publishes nothing.
      const stale = await api(server.url, 'POST', DRAWINGS, { drawing: drawing(layer.layerId), expectedLayerRevision: revision }, me.auth);
      expect(stale.status).toBe(409);
      // Another market's layer is filtered out of this subscription.
      await newLayer(me, { engineSymbolId: 2 });
      const removed = await api(server.url, 'DELETE', `${DRAWINGS}/seen-1`, undefined, me.auth);

      const drawings = () => seen.filter((c) => c.change === 'DRAWINGS_CHANGED');
      await pollUntil(() => drawings().length >= 2, 3000);
      expect(drawings()).toHaveLength(2);
      expect(seen.filter((c) => c.engineSymbolId !== 1)).toEqual([]);
      expect(drawings()[0]).toMatchObject({
        change: 'DRAWINGS_CHANGED',
        layerId: layer.layerId,
        engineSymbolId: 1,
        revision: made.layerRevision,
        layer: { layerId: layer.layerId, revision: made.layerRevision },
        drawings: [{ ...made.drawing }],
      });
      expect(drawings()[1]).toMatchObject({
        change: 'DRAWINGS_CHANGED',
        revision: removed.body.layerRevision,
        drawings: [{ drawingId: 'seen-1', deletedAtMs: removed.body.drawing.deletedAtMs }],
      });
      // The stranger's subscription is live (it sees its own layer), yet saw none of ours.
      const theirs = await newLayer(stranger);
      await pollUntil(() => strangerSaw.length > 0, 3000);
      expect(strangerSaw.map((c) => c.layerId)).toEqual([theirs.layerId]);
    } finally {
      await device.dispose();
      await other.dispose();
    }
  });
});
