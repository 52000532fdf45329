import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LAYOUTS_PER_VIEWER, MAX_PANEL_VIEW_STATE_BYTES, MAX_WIDGET_CONFIG_BYTES, MAX_WIDGETS_PER_LAYOUT } from '../../src/services/layouts/index.ts';
import {
  DeleteLayoutDocument,
  LayoutDocument,
  LayoutsDocument,
  LayoutTemplateDocument,
  LayoutTemplatesDocument,
  LayoutTemplateVersionDocument,
  PublishLayoutDocument,
  UpsertLayoutDocument,
  UseLayoutTemplateDocument,
} from '../generated/graphql/graphql.ts';
import { api, liftLimits, newKeyPair, onboard, signed, signIn, type ClientKey, type SignedIn } from '../helpers/auth.ts';
import { gql } from '../helpers/graphql.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';

const LAYOUTS = '/v1/layouts';
const PUBLISHED = '/v1/layouts/published';

let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
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

const b64 = (s: string) => Buffer.from(s).toString('base64');
const chartWidget = { widgetId: 'w1', widgetType: 'CHART', widgetConfig: b64('{"interval":"1h"}') };

async function save(who: SignedIn, layout: Record<string, unknown>) {
  const r = await api(server.url, 'POST', LAYOUTS, { layout: { layoutId: '0', name: 'desk', ...layout } }, who.auth);
  if (r.status !== 200) throw new Error(`layout: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.layout;
}

async function publish(who: SignedIn, body: Record<string, unknown>) {
  const r = await api(server.url, 'POST', PUBLISHED, { title: 'Scalper', description: '', tags: [], isListed: true, ...body }, who.auth);
  if (r.status !== 200) throw new Error(`publish: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { template: any; version: number };
}

describe('REST: layouts', () => {
  it('creates with layoutId "0", renders spec 2.5, gets, updates in place and lists', async () => {
    const me = await user();
    const layout = await save(me, { panelViewState: b64('panels'), widgets: [chartWidget, { widgetId: 'ob', widgetType: 'ORDERBOOK', widgetConfig: '' }] });
    expect(layout).toEqual({
      viewerId: expect.stringMatching(/^[1-9][0-9]*$/),
      layoutId: expect.stringMatching(/^[1-9][0-9]*$/),
      name: 'desk',
      isDefault: false,
      panelViewState: b64('panels'),
      widgets: [chartWidget, { widgetId: 'ob', widgetType: 'ORDERBOOK', widgetConfig: '' }],
      updatedAtMs: expect.stringMatching(/^[1-9][0-9]*$/),
    });
    expect(BigInt(layout.layoutId) < 2n ** 63n).toBe(true);
    expect((await api(server.url, 'GET', `${LAYOUTS}/${layout.layoutId}`, undefined, me.auth)).body).toEqual({ layout });

    const updated = await save(me, { ...layout, name: 'desk 2', widgets: [{ ...chartWidget, widgetType: 'TRADES' }] });
    expect(updated).toMatchObject({ layoutId: layout.layoutId, viewerId: layout.viewerId, name: 'desk 2', widgets: [{ widgetId: 'w1', widgetType: 'TRADES' }] });
    // An empty layoutId creates too.
    const second = await save(me, { layoutId: '', name: 'other' });
    expect(second.layoutId).not.toBe(layout.layoutId);
    const list = await api(server.url, 'GET', LAYOUTS, undefined, me.auth);
    expect(list.body).toEqual({ layouts: [second, updated], nextPageToken: '' });
  });

  it("another viewer's layout ids are 404 for get, update and delete; an unknown id is 404 too", async () => {
    const me = await user();
    const stranger = await user();
    const layout = await save(me, {});
    expectProblem(await api(server.url, 'GET', `${LAYOUTS}/${layout.layoutId}`, undefined, stranger.auth), 404, 'LAYOUT_NOT_FOUND');
    expectProblem(await api(server.url, 'POST', LAYOUTS, { layout: { ...layout, name: 'mine now' } }, stranger.auth), 404, 'LAYOUT_NOT_FOUND');
    expectProblem(await api(server.url, 'DELETE', `${LAYOUTS}/${layout.layoutId}`, undefined, stranger.auth), 404, 'LAYOUT_NOT_FOUND');
    expectProblem(await api(server.url, 'POST', PUBLISHED, { layoutId: layout.layoutId, title: 't' }, stranger.auth), 404, 'LAYOUT_NOT_FOUND');
    expectProblem(await api(server.url, 'GET', `${LAYOUTS}/12345`, undefined, me.auth), 404, 'LAYOUT_NOT_FOUND');
    expect((await api(server.url, 'GET', `${LAYOUTS}/${layout.layoutId}`, undefined, me.auth)).body.layout.name).toBe('desk');
    expect((await api(server.url, 'GET', LAYOUTS, undefined, stranger.auth)).body.layouts).toEqual([]);
  });

  it('validates: widget types of the spec enum, unique widget ids, byte limits, name', async () => {
    const me = await user();
    const bad = async (layout: Record<string, unknown>, field: string) => {
      const r = await api(server.url, 'POST', LAYOUTS, { layout: { layoutId: '0', name: 'n', ...layout } }, me.auth);
      expectProblem(r, 400, 'BAD_REQUEST');
      expect(r.body.violations[0].fieldPath).toBe(field);
    };
    await bad({ widgets: [{ ...chartWidget, widgetType: 'HEATMAP' }] }, 'layout.widgets[0].widgetType');
    await bad({ widgets: [chartWidget, chartWidget] }, 'layout.widgets[1].widgetId');
    await bad({ widgets: [{ ...chartWidget, widgetConfig: Buffer.alloc(MAX_WIDGET_CONFIG_BYTES + 1).toString('base64') }] }, 'layout.widgets[0].widgetConfig');
    await bad({ panelViewState: Buffer.alloc(MAX_PANEL_VIEW_STATE_BYTES + 1).toString('base64') }, 'layout.panelViewState');
    await bad({ panelViewState: 'not base64!' }, 'layout.panelViewState');
    await bad({ name: '' }, 'layout.name');
    await bad({ layoutId: 'abc' }, 'layout.layoutId');
    // At the limits exactly: accepted.
    await save(me, {
      panelViewState: Buffer.alloc(MAX_PANEL_VIEW_STATE_BYTES).toString('base64'),
      widgets: [{ ...chartWidget, widgetConfig: Buffer.alloc(MAX_WIDGET_CONFIG_BYTES).toString('base64') }],
    });
  });

  it('limits: widgets per layout and layouts per viewer', async () => {
    const me = await user();
    const widgets = (n: number) => Array.from({ length: n }, (_, i) => ({ widgetId: `w${i}`, widgetType: 'TRADES', widgetConfig: '' }));
    await save(me, { widgets: widgets(MAX_WIDGETS_PER_LAYOUT) });
    const many = await api(server.url, 'POST', LAYOUTS, { layout: { layoutId: '0', name: 'n', widgets: widgets(MAX_WIDGETS_PER_LAYOUT + 1) } }, me.auth);
    expect(many.body.violations[0]).toMatchObject({ fieldPath: 'layout.widgets', ruleId: 'max-widgets' });

    const prisma = server.database.prisma;
    const viewer = await prisma.account.findUniqueOrThrow({ where: { publicId: me.rootAccountId } });
    await prisma.layout.createMany({
      data: Array.from({ length: MAX_LAYOUTS_PER_VIEWER - 2 }, (_, i) => ({ viewerAccountId: viewer.id, layoutId: BigInt(i + 1), name: 's', panelViewState: new Uint8Array() })),
    });
    const last = await save(me, {});
    const over = await api(server.url, 'POST', LAYOUTS, { layout: { layoutId: '0', name: 'over' } }, me.auth);
    expectProblem(over, 400, 'BAD_REQUEST');
    expect(over.body.violations[0].ruleId).toBe('max-layouts');
    // Updating one is still fine.
    expect((await save(me, { ...last, name: 'renamed' })).name).toBe('renamed');
  });

  it('one default per viewer: setting it clears the previous one', async () => {
    const me = await user();
    const a = await save(me, { name: 'a', isDefault: true });
    const b = await save(me, { name: 'b', isDefault: true });
    const get = async (id: string) => (await api(server.url, 'GET', `${LAYOUTS}/${id}`, undefined, me.auth)).body.layout;
    expect((await get(a.layoutId)).isDefault).toBe(false);
    expect((await get(b.layoutId)).isDefault).toBe(true);
    // Another viewer's default is theirs alone.
    const other = await user();
    await save(other, { isDefault: true });
    expect((await get(b.layoutId)).isDefault).toBe(true);
  });

  it('one default per viewer under concurrent updates', async () => {
    const me = await user();
    const layouts = [];
    for (let i = 0; i < 8; i++) layouts.push(await save(me, { name: `l${i}` }));
    const results = await Promise.all(
      layouts.map((l) => api(server.url, 'POST', LAYOUTS, { layout: { ...l, isDefault: true } }, me.auth)),
    );
    expect(results.map((r) => r.status)).toEqual(layouts.map(() => 200));
    const list = (await api(server.url, 'GET', LAYOUTS, undefined, me.auth)).body.layouts;
    expect(list.filter((l: any) => l.isDefault)).toHaveLength(1);
    expect(await server.database.prisma.layout.count({ where: { viewerAccount: { publicId: me.rootAccountId }, isDefault: true } })).toBe(1);
  });

  it('deletes a layout; its templates keep their versions', async () => {
    const me = await user();
    const layout = await save(me, { widgets: [chartWidget] });
    const { template } = await publish(me, { layoutId: layout.layoutId });
    expect((await api(server.url, 'DELETE', `${LAYOUTS}/${layout.layoutId}`, undefined, me.auth)).body).toEqual({});
    expectProblem(await api(server.url, 'GET', `${LAYOUTS}/${layout.layoutId}`, undefined, me.auth), 404, 'LAYOUT_NOT_FOUND');
    const v1 = await api(server.url, 'GET', `${PUBLISHED}/${template.template.ownerId}/${template.template.templateId}/versions/1`, undefined, me.auth);
    expect(v1.body.templateVersion.layout.widgets).toEqual([chartWidget]);
  });

  it('pages layouts with a token bound to the viewer', async () => {
    const me = await user();
    for (let i = 0; i < 3; i++) await save(me, { name: `p${i}` });
    const first = await api(server.url, 'GET', `${LAYOUTS}?limit=2`, undefined, me.auth);
    expect(first.body.layouts.map((l: any) => l.name)).toEqual(['p2', 'p1']);
    const rest = await api(server.url, 'GET', `${LAYOUTS}?limit=2&pageToken=${first.body.nextPageToken}`, undefined, me.auth);
    expect(rest.body).toMatchObject({ layouts: [{ name: 'p0' }], nextPageToken: '' });
    const stranger = await user();
    expectProblem(await api(server.url, 'GET', `${LAYOUTS}?limit=2&pageToken=${first.body.nextPageToken}`, undefined, stranger.auth), 400, 'BAD_REQUEST');
  });
});

describe('REST: templates', () => {
  it('publishing twice gives versions 1 and 2 of one template; version 1 stays byte-identical', async () => {
    const me = await user();
    const layout = await save(me, { name: 'v1 layout', panelViewState: b64('p1'), widgets: [chartWidget] });
    const first = await publish(me, { layoutId: layout.layoutId, title: 'Scalper', description: 'fast', tags: ['Scalping', 'btc'], changelog: 'first' });
    expect(first).toEqual({
      template: {
        template: { ownerId: me.rootAccountId, templateId: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]+$/) },
        title: 'Scalper',
        description: 'fast',
        tags: ['scalping', 'btc'],
        isListed: true,
        latestVersion: 1,
        publishedAtMs: expect.stringMatching(/^[1-9][0-9]*$/),
        updatedAtMs: expect.stringMatching(/^[1-9][0-9]*$/),
      },
      version: 1,
    });
    const { ownerId, templateId } = first.template.template;
    const v1Path = `${PUBLISHED}/${ownerId}/${templateId}/versions/1`;
    const v1 = await fetch(`${server.url}${v1Path}`, { headers: me.auth });
    const v1Bytes = Buffer.from(await v1.arrayBuffer());
    expect(JSON.parse(v1Bytes.toString())).toMatchObject({
      templateVersion: { version: 1, changelog: 'first', title: 'Scalper', layout: { name: 'v1 layout', panelViewState: b64('p1'), widgets: [chartWidget] } },
    });

    await save(me, { ...layout, name: 'v2 layout', panelViewState: b64('p2'), widgets: [] });
    const second = await publish(me, { layoutId: layout.layoutId, title: 'Scalper II', changelog: 'second', isListed: false });
    expect(second.version).toBe(2);
    expect(second.template).toMatchObject({ template: { ownerId, templateId }, title: 'Scalper II', latestVersion: 2, isListed: false, publishedAtMs: first.template.publishedAtMs });

    const again = Buffer.from(await (await fetch(`${server.url}${v1Path}`, { headers: me.auth })).arrayBuffer());
    expect(again.equals(v1Bytes)).toBe(true);
    const v2 = await api(server.url, 'GET', `${PUBLISHED}/${ownerId}/${templateId}/versions/2`, undefined, me.auth);
    expect(v2.body.templateVersion).toMatchObject({ version: 2, changelog: 'second', title: 'Scalper II', layout: { name: 'v2 layout', widgets: [] } });
    expectProblem(await api(server.url, 'GET', `${PUBLISHED}/${ownerId}/${templateId}/versions/3`, undefined, me.auth), 404, 'LAYOUT_TEMPLATE_VERSION_NOT_FOUND');
  });

  it('concurrent publishes of one layout make consecutive versions, none lost', async () => {
    const me = await user();
    const layout = await save(me, {});
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => publish(me, { layoutId: layout.layoutId, changelog: `c${i}` })));
    expect(results.map((r) => r.version).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(new Set(results.map((r) => r.template.template.templateId)).size).toBe(1);
  });

  it('discovery: listed templates by tag or title, newest or most used; unlisted ones only by id', async () => {
    const owner = await user();
    const finder = await user();
    const tag = `t${Date.now().toString(36)}`;
    const a = await publish(owner, { layoutId: (await save(owner, {})).layoutId, title: `Alpha ${tag}`, tags: [tag] });
    const b = await publish(owner, { layoutId: (await save(owner, {})).layoutId, title: `Beta ${tag}`, tags: [tag, 'swing'] });
    const hidden = await publish(owner, { layoutId: (await save(owner, {})).layoutId, title: `Hidden ${tag}`, tags: [tag], isListed: false });
    const ids = (r: any) => r.body.templates.map((t: any) => t.template.templateId);

    const byTag = await api(server.url, 'GET', `${PUBLISHED}?tag=${tag}`, undefined, finder.auth);
    expect(ids(byTag)).toEqual([b.template.template.templateId, a.template.template.templateId]);
    const byTitle = await api(server.url, 'GET', `${PUBLISHED}?query=${encodeURIComponent(`alpha ${tag}`)}`, undefined, finder.auth);
    expect(ids(byTitle)).toEqual([a.template.template.templateId]);

    // Use Alpha twice: it becomes the most used.
    const { ownerId, templateId } = a.template.template;
    for (let i = 0; i < 2; i++) {
      const used = await api(server.url, 'POST', `${PUBLISHED}/${ownerId}/${templateId}/use`, {}, finder.auth);
      expect(used.status).toBe(200);
    }
    const mostUsed = await api(server.url, 'GET', `${PUBLISHED}?tag=${tag}&orderBy=MOST_USED`, undefined, finder.auth);
    expect(ids(mostUsed)).toEqual([a.template.template.templateId, b.template.template.templateId]);

    // Unlisted: never in discovery for others, but reachable by its id.
    const hid = hidden.template.template;
    expect(ids(await api(server.url, 'GET', `${PUBLISHED}?query=hidden`, undefined, finder.auth))).not.toContain(hid.templateId);
    expect(ids(await api(server.url, 'GET', `${PUBLISHED}?ownerId=${owner.rootAccountId}`, undefined, finder.auth))).not.toContain(hid.templateId);
    expect((await api(server.url, 'GET', `${PUBLISHED}/${hid.ownerId}/${hid.templateId}`, undefined, finder.auth)).body.template).toEqual(hidden.template);
    // Its owner sees it among their own.
    expect(ids(await api(server.url, 'GET', `${PUBLISHED}?ownerId=${owner.rootAccountId}`, undefined, owner.auth))).toContain(hid.templateId);
    expectProblem(await api(server.url, 'GET', `${PUBLISHED}/${hid.ownerId}/nope`, undefined, finder.auth), 404, 'LAYOUT_TEMPLATE_NOT_FOUND');
    expectProblem(await api(server.url, 'GET', `${PUBLISHED}/${finder.rootAccountId}/${hid.templateId}`, undefined, finder.auth), 404, 'LAYOUT_TEMPLATE_NOT_FOUND');
  });

  it('pages discovery with a token bound to the filters', async () => {
    const owner = await user();
    const tag = `p${Date.now().toString(36)}`;
    for (let i = 0; i < 3; i++) await publish(owner, { layoutId: (await save(owner, {})).layoutId, title: `T${i}`, tags: [tag] });
    const first = await api(server.url, 'GET', `${PUBLISHED}?tag=${tag}&limit=2`, undefined, owner.auth);
    expect(first.body.templates.map((t: any) => t.title)).toEqual(['T2', 'T1']);
    const rest = await api(server.url, 'GET', `${PUBLISHED}?tag=${tag}&limit=2&pageToken=${first.body.nextPageToken}`, undefined, owner.auth);
    expect(rest.body.templates.map((t: any) => t.title)).toEqual(['T0']);
    expectProblem(await api(server.url, 'GET', `${PUBLISHED}?tag=other&limit=2&pageToken=${first.body.nextPageToken}`, undefined, owner.auth), 400, 'BAD_REQUEST');
  });

  it("using a template copies a version into the caller's layouts", async () => {
    const owner = await user();
    const user2 = await user();
    const layout = await save(owner, { name: 'pro', panelViewState: b64('grid'), widgets: [chartWidget] });
    const t = await publish(owner, { layoutId: layout.layoutId, isListed: false });
    await save(owner, { ...layout, widgets: [] });
    await publish(owner, { layoutId: layout.layoutId });
    const { ownerId, templateId } = t.template.template;
    const v1 = await api(server.url, 'POST', `${PUBLISHED}/${ownerId}/${templateId}/use`, { version: 1, isDefault: true }, user2.auth);
    expect(v1.body.layout).toMatchObject({ name: 'pro', isDefault: true, panelViewState: b64('grid'), widgets: [chartWidget] });
    expect(v1.body.layout.viewerId).not.toBe(layout.viewerId);
    const latest = await api(server.url, 'POST', `${PUBLISHED}/${ownerId}/${templateId}/use`, { name: 'mine' }, user2.auth);
    expect(latest.body.layout).toMatchObject({ name: 'mine', isDefault: false, widgets: [] });
    const mine = await api(server.url, 'GET', LAYOUTS, undefined, user2.auth);
    expect(mine.body.layouts).toHaveLength(2);
    // The owner's layout is untouched.
    expect((await api(server.url, 'GET', LAYOUTS, undefined, owner.auth)).body.layouts).toHaveLength(1);
  });

  it('validates publish input: title, tags', async () => {
    const me = await user();
    const layout = await save(me, {});
    const bad = async (body: Record<string, unknown>, field: string) => {
      const r = await api(server.url, 'POST', PUBLISHED, { layoutId: layout.layoutId, title: 'ok', ...body }, me.auth);
      expectProblem(r, 400, 'BAD_REQUEST');
      expect(r.body.violations[0].fieldPath).toBe(field);
    };
    await bad({ title: ' ' }, 'title');
    await bad({ tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, 'tags');
    await bad({ tags: ['has space'] }, 'tags');
  });
});

describe('REST: access and quotas', () => {
  async function keyFor(owner: SignedIn, permissions: string[]): Promise<ClientKey> {
    const policy = await api(server.url, 'POST', '/v1/auth/api-policies', { name: permissions.join('+'), permissions }, owner.auth);
    const pair = newKeyPair();
    const body = { label: 'bot', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), policyId: policy.body.policy.policyId };
    const r = await api(server.url, 'POST', '/v1/auth/api-keys', body, owner.auth);
    if (r.status !== 200) throw new Error(`create key: ${r.status} ${JSON.stringify(r.body)}`);
    return { keyId: r.body.apiKey.keyId, ...pair };
  }

  it('session token or API key (READ), no MFA; the key acts on the same viewer', async () => {
    const owner = await onboard(server.url);
    const key = await keyFor(owner, ['READ']);
    const created = await signed(server.url, key, 'POST', LAYOUTS, { layout: { layoutId: '0', name: 'by key' } });
    expect(created.status).toBe(200);
    const got = await api(server.url, 'GET', `${LAYOUTS}/${created.body.layout.layoutId}`, undefined, owner.auth);
    expect(got.body.layout).toEqual(created.body.layout);
    expect((await signed(server.url, key, 'GET', `${LAYOUTS}/${created.body.layout.layoutId}`)).body.layout).toEqual(created.body.layout);
    const trader = await keyFor(owner, ['TRADE']);
    expectProblem(await signed(server.url, trader, 'GET', LAYOUTS), 403, 'MISSING_PERMISSION');
    expectProblem(await api(server.url, 'GET', LAYOUTS), 401, 'CREDENTIALS_REQUIRED');
  });

  it('charges layout mutations to ACCOUNT_ADMIN (2 units), reads not at all', async () => {
    const me = await signIn(server.url);
    let admitted = 0;
    let rejected: { status: number; body: any } | undefined;
    const started = Date.now();
    for (let i = 0; i < 40 && !rejected; i++) {
      const r = await api(server.url, 'POST', LAYOUTS, { layout: { layoutId: '0', name: `q${i}` } }, me.auth);
      if (r.status === 200) admitted++;
      else rejected = r;
    }
    const refilled = Math.ceil((Date.now() - started) / 1000);
    expect(admitted).toBeGreaterThanOrEqual(15);
    expect(admitted).toBeLessThanOrEqual(15 + refilled);
    expectProblem(rejected!, 429, 'RATE_LIMIT_EXCEEDED');
    expect(rejected!.body.rate_limit).toMatchObject({ operation_id: 'layout.mutate', policy_class: 'ACCOUNT_ADMIN' });
    expect((await api(server.url, 'GET', LAYOUTS, undefined, me.auth)).body.layouts).toHaveLength(admitted);
  });
});

describe('GraphQL', () => {
  it('runs layouts and templates through the same services, with REST field names and the same errors', async () => {
    const me = await user();
    const made = await gql(server.url, UpsertLayoutDocument, {
      layout: { name: 'gql', isDefault: true, panelViewState: b64('p'), widgets: [{ widgetId: 'w1', widgetType: 'CHART', widgetConfig: b64('c') }] },
    }, me.auth);
    expect(made.body.errors).toBeUndefined();
    const layout = made.body.data!.upsertLayout;
    const rest = await api(server.url, 'GET', `${LAYOUTS}/${layout.layoutId}`, undefined, me.auth);
    expect(rest.body.layout).toEqual(layout);
    expect((await gql(server.url, LayoutDocument, { layoutId: layout.layoutId }, me.auth)).body.data!.viewer.layout).toEqual(layout);

    const bad = await gql(server.url, UpsertLayoutDocument, { layout: { name: 'x', panelViewState: '***' } }, me.auth);
    expect(bad.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', violations: [{ fieldPath: 'layout.panelViewState', ruleId: 'base64' }] });

    const published = await gql(server.url, PublishLayoutDocument, { input: { layoutId: layout.layoutId, title: 'GQL template', tags: ['gql'], isListed: true, changelog: 'one' } }, me.auth);
    expect(published.body.errors).toBeUndefined();
    const { template, version } = published.body.data!.publishLayout;
    expect(version).toBe(1);
    const again = await gql(server.url, PublishLayoutDocument, { input: { layoutId: layout.layoutId, title: 'GQL template', changelog: 'two' } }, me.auth);
    expect(again.body.data!.publishLayout.version).toBe(2);

    const ref = template.template;
    const restTemplate = (await api(server.url, 'GET', `${PUBLISHED}/${ref.ownerId}/${ref.templateId}`, undefined, me.auth)).body.template;
    expect((await gql(server.url, LayoutTemplateDocument, ref, me.auth)).body.data!.viewer.layoutTemplate).toEqual(restTemplate);
    const v1 = await gql(server.url, LayoutTemplateVersionDocument, { ...ref, version: 1 }, me.auth);
    const restV1 = (await api(server.url, 'GET', `${PUBLISHED}/${ref.ownerId}/${ref.templateId}/versions/1`, undefined, me.auth)).body.templateVersion;
    expect(v1.body.data!.viewer.layoutTemplateVersion).toEqual(restV1);
    expect((await gql(server.url, LayoutTemplateVersionDocument, ref, me.auth)).body.data!.viewer.layoutTemplateVersion.changelog).toBe('two');

    const found = await gql(server.url, LayoutTemplatesDocument, { ownerId: me.rootAccountId, orderBy: 'MOST_USED', first: 5 }, me.auth);
    expect(found.body.data!.viewer.layoutTemplates.edges.map((e) => e.node.template.templateId)).toEqual([ref.templateId]);

    const other = await user();
    const used = await gql(server.url, UseLayoutTemplateDocument, { ...ref, version: 1, name: 'copied' }, other.auth);
    expect(used.body.data!.useLayoutTemplate).toMatchObject({ name: 'copied', isDefault: false, widgets: layout.widgets });
    const theirs = await gql(server.url, LayoutsDocument, {}, other.auth);
    expect(theirs.body.data!.viewer.layouts.edges).toHaveLength(1);

    const foreign = await gql(server.url, LayoutDocument, { layoutId: layout.layoutId }, other.auth);
    expect(foreign.body.errors?.[0]?.extensions).toMatchObject({ code: 'LAYOUT_NOT_FOUND', status: 404 });
    expect((await gql(server.url, DeleteLayoutDocument, { layoutId: layout.layoutId }, me.auth)).body.data!.deleteLayout).toBe(layout.layoutId);
    expect((await gql(server.url, LayoutsDocument, {}, me.auth)).body.data!.viewer.layouts.edges).toEqual([]);
  });
});
