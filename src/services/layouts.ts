import { createHash, randomBytes } from 'node:crypto';
import type { Caller } from '../auth/caller.ts';
import { ApiError, invalidArgument } from '../domain/errors.ts';
import { newPublicId, PUBLIC_ID } from '../domain/ids.ts';
import { Prisma, type WidgetType } from '../generated/prisma/client.ts';
import type { Clock } from '../infra/clock.ts';
import type { Db } from '../infra/database.ts';
import { requirePermission } from './access.ts';
import { PageTokens, pageLimit, toPage } from './pageTokens.ts';
import type { RateLimiter } from './rateLimits.ts';

/**
 * Saved UI layouts and the templates published from them (spec 2.5, 4.3). A layout
 * belongs to the caller's root account (the viewer). At most one is the default: every
 * change of a viewer's layouts runs under one advisory lock, so setting a default and
 * clearing the previous one happen together. Publishing appends an immutable version to
 * the layout's template; versions are snapshots, never rewritten.
 */

export const WIDGET_TYPES = ['CHART', 'ORDERBOOK', 'TRADES', 'POSITIONS', 'ORDERS'] as const satisfies readonly WidgetType[];
export const LAYOUT_NAME_MAX = 100;
export const MAX_LAYOUTS_PER_VIEWER = 100;
export const MAX_WIDGETS_PER_LAYOUT = 50;
export const MAX_PANEL_VIEW_STATE_BYTES = 64 * 1024;
export const MAX_WIDGET_CONFIG_BYTES = 16 * 1024;
export const LAYOUTS_LIST_DEFAULT = 100;
export const LAYOUTS_LIST_MAX = 100;
export const TEMPLATE_TITLE_MAX = 100;
export const TEMPLATE_DESCRIPTION_MAX = 2000;
export const TEMPLATE_CHANGELOG_MAX = 2000;
export const MAX_TEMPLATE_TAGS = 10;
export const TEMPLATE_TAG_MAX = 32;
export const TEMPLATES_LIST_DEFAULT = 50;
export const TEMPLATES_LIST_MAX = 100;
export const TEMPLATE_SEARCH_MAX = 100;
/** Growth caps (docs/scaling.md): a version holds up to about 0.9 MB of layout, and is never deleted. */
export const MAX_VERSIONS_PER_TEMPLATE = 50;
export const MAX_TEMPLATES_PER_ACCOUNT = 20;

const WIDGET_ID = /^[A-Za-z0-9_-]{1,64}$/;
const TAG = /^[a-z0-9][a-z0-9_-]*$/;
const INT64_MAX = 2n ** 63n - 1n;

export interface WidgetView {
  widgetId: string;
  widgetType: WidgetType;
  widgetConfig: Uint8Array;
}

export interface LayoutView {
  viewerId: bigint;
  layoutId: bigint;
  name: string;
  isDefault: boolean;
  panelViewState: Uint8Array;
  widgets: WidgetView[];
  updatedAtMs: bigint;
}

export interface LayoutInput {
  layoutId?: bigint;
  name: string;
  isDefault?: boolean;
  panelViewState?: Uint8Array;
  widgets?: WidgetView[];
}

export interface TemplateRef {
  ownerId: string;
  templateId: string;
}

export interface LayoutTemplateView {
  template: TemplateRef;
  title: string;
  description: string;
  tags: string[];
  isListed: boolean;
  latestVersion: number;
  publishedAtMs: bigint;
  updatedAtMs: bigint;
}

/** One immutable publish: the template's words then, and the layout as it was. */
export interface LayoutTemplateVersionView {
  template: TemplateRef;
  version: number;
  changelog: string;
  title: string;
  description: string;
  tags: string[];
  layout: { name: string; panelViewState: Uint8Array; widgets: WidgetView[] };
  publishedAtMs: bigint;
}

export interface PublishInput {
  layoutId: bigint;
  title: string;
  description?: string;
  tags?: string[];
  isListed?: boolean;
  changelog?: string;
}

export type TemplateOrder = 'NEWEST' | 'MOST_USED';

type Tx = Prisma.TransactionClient;
const LAYOUT_INCLUDE = { widgets: { orderBy: { position: 'asc' } } } satisfies Prisma.LayoutInclude;
type LayoutRow = Prisma.LayoutGetPayload<{ include: typeof LAYOUT_INCLUDE }>;
type TemplateRow = Prisma.LayoutTemplateGetPayload<true>;
type VersionRow = Prisma.LayoutTemplateVersionGetPayload<true>;
const TEMPLATE_INCLUDE = { ownerAccount: { select: { publicId: true } } } satisfies Prisma.LayoutTemplateInclude;
type TemplateWithOwner = Prisma.LayoutTemplateGetPayload<{ include: typeof TEMPLATE_INCLUDE }>;

const layoutNotFound = () => new ApiError('not-found', 'layout not found', { code: 'LAYOUT_NOT_FOUND' });
const templateNotFound = () => new ApiError('not-found', 'layout template not found', { code: 'LAYOUT_TEMPLATE_NOT_FOUND' });

const ms = (d: Date): bigint => BigInt(d.getTime());
const chars = (s: string) => [...s].length;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const TEXT_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

function checkLine(raw: string, fieldPath: string, max: number): string {
  const v = raw.trim();
  if (chars(v) < 1 || chars(v) > max) throw invalidArgument(fieldPath, `must be 1 to ${max} characters`, 'length');
  if (CONTROL.test(v)) throw invalidArgument(fieldPath, 'must not contain control characters', 'control-characters');
  return v;
}

function checkText(v: string, fieldPath: string, max: number): string {
  if (chars(v) > max) throw invalidArgument(fieldPath, `must be at most ${max} characters`, 'length');
  if (TEXT_CONTROL.test(v)) throw invalidArgument(fieldPath, 'must not contain control characters', 'control-characters');
  return v;
}

function checkWidgets(widgets: WidgetView[]): WidgetView[] {
  if (widgets.length > MAX_WIDGETS_PER_LAYOUT) {
    throw invalidArgument('layout.widgets', `a layout holds at most ${MAX_WIDGETS_PER_LAYOUT} widgets`, 'max-widgets');
  }
  const seen = new Set<string>();
  widgets.forEach((w, i) => {
    const path = `layout.widgets[${i}]`;
    if (!WIDGET_ID.test(w.widgetId)) throw invalidArgument(`${path}.widgetId`, 'must be 1 to 64 letters, digits, "_" or "-"', 'widget-id');
    if (seen.has(w.widgetId)) throw invalidArgument(`${path}.widgetId`, 'is used by another widget of the layout', 'unique');
    seen.add(w.widgetId);
    if (!(WIDGET_TYPES as readonly string[]).includes(w.widgetType)) {
      throw invalidArgument(`${path}.widgetType`, `must be one of ${WIDGET_TYPES.join(', ')}`, 'enum');
    }
    if (w.widgetConfig.length > MAX_WIDGET_CONFIG_BYTES) {
      throw invalidArgument(`${path}.widgetConfig`, `must be at most ${MAX_WIDGET_CONFIG_BYTES} bytes`, 'max-bytes');
    }
  });
  return widgets;
}

function checkTags(tags: string[]): string[] {
  const out = [...new Set(tags.map((t) => t.trim().toLowerCase()))];
  if (out.length > MAX_TEMPLATE_TAGS) throw invalidArgument('tags', `at most ${MAX_TEMPLATE_TAGS} tags`, 'max-tags');
  out.forEach((t) => {
    if (chars(t) < 1 || chars(t) > TEMPLATE_TAG_MAX || !TAG.test(t)) {
      throw invalidArgument('tags', `each tag is 1 to ${TEMPLATE_TAG_MAX} of a-z, 0-9, "_" or "-", starting with a letter or digit`, 'tag');
    }
  });
  return out;
}

/**
 * The spec's `viewerId` is a fixed64, while accounts are known by base58 public ids: it
 * is derived from the public id (SHA-256, first 63 bits), so it is stable and reveals
 * nothing about internal row ids. The server never takes it as input: the viewer is
 * always the caller.
 */
export function viewerIdOf(rootPublicId: string): bigint {
  return createHash('sha256').update(`viewer:${rootPublicId}`).digest().readBigUInt64BE() & INT64_MAX;
}

function layoutView(row: LayoutRow, viewerId: bigint): LayoutView {
  return {
    viewerId,
    layoutId: row.layoutId,
    name: row.name,
    isDefault: row.isDefault,
    panelViewState: new Uint8Array(row.panelViewState),
    widgets: row.widgets.map((w) => ({ widgetId: w.widgetId, widgetType: w.widgetType, widgetConfig: new Uint8Array(w.widgetConfig) })),
    updatedAtMs: ms(row.updatedAt),
  };
}

function templateView(row: TemplateRow, ownerId: string): LayoutTemplateView {
  return {
    template: { ownerId, templateId: row.templateId },
    title: row.title,
    description: row.description,
    tags: row.tags,
    isListed: row.isListed,
    latestVersion: row.latestVersion,
    publishedAtMs: ms(row.publishedAt),
    updatedAtMs: ms(row.updatedAt),
  };
}

/** Widgets of a version, stored as JSON with base64 configs (the snapshot's exact bytes). */
interface StoredWidget {
  widgetId: string;
  widgetType: WidgetType;
  widgetConfig: string;
}

function versionView(row: VersionRow, ownerId: string): LayoutTemplateVersionView {
  const widgets = (row.widgets as unknown as StoredWidget[]).map((w) => ({
    widgetId: w.widgetId,
    widgetType: w.widgetType,
    widgetConfig: new Uint8Array(Buffer.from(w.widgetConfig, 'base64')),
  }));
  return {
    template: { ownerId, templateId: row.templateId },
    version: row.version,
    changelog: row.changelog ?? '',
    title: row.title,
    description: row.description,
    tags: row.tags,
    layout: { name: row.layoutName, panelViewState: new Uint8Array(row.panelViewState), widgets },
    publishedAtMs: ms(row.publishedAt),
  };
}

/** A fresh layout id: random, positive, within int64 (the spec's fixed64 as a decimal string). */
function newLayoutId(): bigint {
  const v = randomBytes(8).readBigUInt64BE() & INT64_MAX;
  return v === 0n ? 1n : v;
}

export function createLayoutService(deps: { db: Db; clock: Clock; pageTokens: PageTokens; limiter: Pick<RateLimiter, 'admit'> }) {
  const { db, clock, pageTokens, limiter } = deps;

  /** Layouts are the viewer's own UI data: READ is the least a key needs, for reads and writes alike. */
  function viewer(caller: Caller) {
    requirePermission(caller, 'READ');
    return { id: caller.rootAccountId, publicId: caller.rootPublicId, viewerId: viewerIdOf(caller.rootPublicId) };
  }

  async function metered(caller: Caller, operation: 'layout.mutate' | 'layout.publish' | 'layout.search') {
    const v = viewer(caller);
    await limiter.admit(operation, { caller, account: { id: v.id, publicId: v.publicId, kind: 'ROOT', rootAccountId: v.id } });
    return v;
  }

  async function lockViewer(tx: Tx, viewerId: bigint): Promise<void> {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`layouts:${viewerId}`}, 0))`;
  }

  async function findLayout(tx: Tx | Db, viewerId: bigint, layoutId: bigint, include: Prisma.LayoutInclude = {}): Promise<LayoutRow> {
    const row = await tx.layout.findUnique({ where: { viewerAccountId_layoutId: { viewerAccountId: viewerId, layoutId } }, include: { ...LAYOUT_INCLUDE, ...include } });
    if (!row) throw layoutNotFound();
    return row;
  }

  /** Writes a layout (new or existing) with its widgets; clears the previous default when it becomes one. */
  async function saveLayout(
    tx: Tx,
    viewerId: bigint,
    layoutId: bigint | undefined,
    fields: { name: string; isDefault: boolean; panelViewState: Uint8Array; widgets: WidgetView[] },
  ): Promise<LayoutRow> {
    await lockViewer(tx, viewerId);
    const now = clock.now();
    if (layoutId === undefined) {
      const count = await tx.layout.count({ where: { viewerAccountId: viewerId } });
      if (count >= MAX_LAYOUTS_PER_VIEWER) throw invalidArgument('layout', `a viewer keeps at most ${MAX_LAYOUTS_PER_VIEWER} layouts`, 'max-layouts');
    } else {
      await findLayout(tx, viewerId, layoutId);
    }
    const id = layoutId ?? newLayoutId();
    if (fields.isDefault) {
      await tx.layout.updateMany({
        where: { viewerAccountId: viewerId, isDefault: true, layoutId: { not: id } },
        data: { isDefault: false, updatedAt: now },
      });
    }
    const data = { name: fields.name, isDefault: fields.isDefault, panelViewState: new Uint8Array(fields.panelViewState), updatedAt: now };
    if (layoutId === undefined) {
      await tx.layout.create({ data: { viewerAccountId: viewerId, layoutId: id, ...data, createdAt: now } });
    } else {
      await tx.layout.update({ where: { viewerAccountId_layoutId: { viewerAccountId: viewerId, layoutId: id } }, data });
      await tx.layoutWidget.deleteMany({ where: { viewerAccountId: viewerId, layoutId: id } });
    }
    await tx.layoutWidget.createMany({
      data: fields.widgets.map((w, position) => ({
        viewerAccountId: viewerId,
        layoutId: id,
        widgetId: w.widgetId,
        widgetType: w.widgetType,
        widgetConfig: new Uint8Array(w.widgetConfig),
        position,
      })),
    });
    return findLayout(tx, viewerId, id);
  }

  async function findTemplate(tx: Tx | Db, ref: TemplateRef): Promise<TemplateWithOwner> {
    if (!PUBLIC_ID.test(ref.ownerId) || !PUBLIC_ID.test(ref.templateId)) throw templateNotFound();
    const row = await tx.layoutTemplate.findFirst({
      where: { templateId: ref.templateId, ownerAccount: { publicId: ref.ownerId } },
      include: TEMPLATE_INCLUDE,
    });
    if (!row) throw templateNotFound();
    return row;
  }

  return {
    /**
     * Most recently updated first. `include` adds the relations a GraphQL selection reads
     * (Pothos' query for the Layout type), read with the page; the rows are answered too.
     */
    async listLayouts(caller: Caller, input: { limit?: number; pageToken?: string }, include: Prisma.LayoutInclude = {}) {
      const v = viewer(caller);
      const limit = pageLimit(input.limit, LAYOUTS_LIST_MAX, LAYOUTS_LIST_DEFAULT);
      const binding = { operation: 'listLayouts', caller: v.publicId, filters: { order: 'updatedAt desc' } };
      const cursor = pageTokens.decode<{ updatedAt: string; id: string }>(input.pageToken, binding);
      const rows = await db.layout.findMany({
        where: {
          viewerAccountId: v.id,
          ...(cursor
            ? { OR: [{ updatedAt: { lt: new Date(cursor.updatedAt) } }, { updatedAt: new Date(cursor.updatedAt), id: { lt: BigInt(cursor.id) } }] }
            : {}),
        },
        include: { ...LAYOUT_INCLUDE, ...include },
        orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }],
        take: limit + 1,
      });
      const page = toPage(rows as LayoutRow[], limit, pageTokens, binding, (r) => ({ updatedAt: r.updatedAt.toISOString(), id: r.id.toString() }));
      return { layouts: page.items.map((r) => layoutView(r, v.viewerId)), rows: page.items, nextPageToken: page.nextPageToken };
    },

    /** `include` as for listLayouts. */
    async getLayout(caller: Caller, input: { layoutId: bigint }, include: Prisma.LayoutInclude = {}) {
      const v = viewer(caller);
      const row = await findLayout(db, v.id, input.layoutId, include);
      return { layout: layoutView(row, v.viewerId), row };
    },

    /**
     * Creates when `layoutId` is 0 or absent, else replaces the caller's layout of that id
     * (name, default flag, panel state and the whole widget list). `viewerId` and
     * `updatedAtMs` are the server's.
     */
    async upsertLayout(caller: Caller, input: { layout: LayoutInput }) {
      const v = await metered(caller, 'layout.mutate');
      const l = input.layout;
      const layoutId = l.layoutId === undefined || l.layoutId === 0n ? undefined : l.layoutId;
      if (layoutId !== undefined && layoutId < 0n) throw layoutNotFound();
      const name = checkLine(l.name, 'layout.name', LAYOUT_NAME_MAX);
      const panelViewState = l.panelViewState ?? new Uint8Array();
      if (panelViewState.length > MAX_PANEL_VIEW_STATE_BYTES) {
        throw invalidArgument('layout.panelViewState', `must be at most ${MAX_PANEL_VIEW_STATE_BYTES} bytes`, 'max-bytes');
      }
      const widgets = checkWidgets(l.widgets ?? []);
      const row = await db.$transaction((tx) => saveLayout(tx, v.id, layoutId, { name, isDefault: l.isDefault ?? false, panelViewState, widgets }));
      return { layout: layoutView(row, v.viewerId) };
    },

    /** Published templates keep their versions: they are snapshots. */
    async deleteLayout(caller: Caller, input: { layoutId: bigint }) {
      const v = await metered(caller, 'layout.mutate');
      await db.$transaction(async (tx) => {
        await lockViewer(tx, v.id);
        const row = await findLayout(tx, v.id, input.layoutId);
        await tx.layout.delete({ where: { id: row.id } });
      });
      return {};
    },

    /**
     * Publishes the caller's layout: the first publish creates its template at version 1,
     * each later one appends the next immutable version and updates the template's
     * title, description, tags and listing.
     */
    async publishLayout(caller: Caller, input: PublishInput) {
      // Publishing speaks to everyone: a read-only key may keep its own layouts, not publish them.
      requirePermission(caller, 'TRADE');
      const v = await metered(caller, 'layout.publish');
      const title = checkLine(input.title, 'title', TEMPLATE_TITLE_MAX);
      const description = checkText(input.description ?? '', 'description', TEMPLATE_DESCRIPTION_MAX);
      const changelog = checkText(input.changelog ?? '', 'changelog', TEMPLATE_CHANGELOG_MAX);
      const tags = checkTags(input.tags ?? []);
      const isListed = input.isListed ?? false;
      const out = await db.$transaction(async (tx) => {
        await lockViewer(tx, v.id);
        const layout = await findLayout(tx, v.id, input.layoutId);
        const now = clock.now();
        const existing = await tx.layoutTemplate.findUnique({
          where: { ownerAccountId_sourceLayoutId: { ownerAccountId: v.id, sourceLayoutId: layout.layoutId } },
        });
        if (existing && existing.latestVersion >= MAX_VERSIONS_PER_TEMPLATE) {
          throw invalidArgument('layoutId', `a template keeps at most ${MAX_VERSIONS_PER_TEMPLATE} versions`, 'max-versions');
        }
        if (!existing && (await tx.layoutTemplate.count({ where: { ownerAccountId: v.id } })) >= MAX_TEMPLATES_PER_ACCOUNT) {
          throw invalidArgument('layoutId', `an account publishes at most ${MAX_TEMPLATES_PER_ACCOUNT} templates`, 'max-templates');
        }
        const template = existing
          ? await tx.layoutTemplate.update({
              where: { id: existing.id },
              data: { title, description, tags, isListed, latestVersion: existing.latestVersion + 1, updatedAt: now },
            })
          : await tx.layoutTemplate.create({
              data: {
                ownerAccountId: v.id,
                templateId: newPublicId(),
                sourceLayoutId: layout.layoutId,
                title,
                description,
                tags,
                isListed,
                latestVersion: 1,
                publishedAt: now,
                updatedAt: now,
              },
            });
        const widgets: StoredWidget[] = layout.widgets.map((w) => ({
          widgetId: w.widgetId,
          widgetType: w.widgetType,
          widgetConfig: Buffer.from(w.widgetConfig).toString('base64'),
        }));
        await tx.layoutTemplateVersion.create({
          data: {
            ownerAccountId: v.id,
            templateId: template.templateId,
            version: template.latestVersion,
            changelog: changelog === '' ? null : changelog,
            title,
            description,
            tags,
            layoutName: layout.name,
            panelViewState: new Uint8Array(layout.panelViewState),
            widgets: widgets as unknown as Prisma.InputJsonValue,
            publishedAt: now,
          },
        });
        return template;
      });
      return { template: templateView(out, v.publicId), version: out.latestVersion };
    },

    /**
     * Discovery: listed templates of everyone, filtered by tag and/or a title fragment,
     * newest publish first or most used first. With `ownerId` set to the caller's own id
     * the caller's unlisted templates are included; anyone else's unlisted ones never are.
     */
    async listLayoutTemplates(
      caller: Caller,
      input: { tag?: string; query?: string; ownerId?: string; orderBy?: TemplateOrder; limit?: number; pageToken?: string },
    ) {
      const v = await metered(caller, 'layout.search');
      const limit = pageLimit(input.limit, TEMPLATES_LIST_MAX, TEMPLATES_LIST_DEFAULT);
      const orderBy = input.orderBy ?? 'NEWEST';
      if (orderBy !== 'NEWEST' && orderBy !== 'MOST_USED') throw invalidArgument('orderBy', 'must be NEWEST or MOST_USED', 'enum');
      const tag = input.tag === undefined || input.tag === '' ? undefined : input.tag.trim().toLowerCase();
      const query = input.query === undefined || input.query === '' ? undefined : input.query.trim();
      if (query !== undefined && chars(query) > TEMPLATE_SEARCH_MAX) throw invalidArgument('query', `must be at most ${TEMPLATE_SEARCH_MAX} characters`, 'length');
      const ownerId = input.ownerId === undefined || input.ownerId === '' ? undefined : input.ownerId;
      const binding = {
        operation: 'listLayoutTemplates',
        caller: v.publicId,
        filters: { tag: tag ?? null, query: query ?? null, ownerId: ownerId ?? null, orderBy },
      };
      const cursor = pageTokens.decode<{ key: string; id: string }>(input.pageToken, binding);
      const where: Prisma.LayoutTemplateWhereInput = {
        ...(ownerId === v.publicId ? { ownerAccountId: v.id } : { isListed: true, ...(ownerId ? { ownerAccount: { publicId: ownerId } } : {}) }),
        ...(tag ? { tags: { has: tag } } : {}),
        ...(query ? { title: { contains: query, mode: 'insensitive' } } : {}),
      };
      const after: Prisma.LayoutTemplateWhereInput = !cursor
        ? {}
        : orderBy === 'NEWEST'
          ? { OR: [{ updatedAt: { lt: new Date(cursor.key) } }, { updatedAt: new Date(cursor.key), id: { lt: BigInt(cursor.id) } }] }
          : { OR: [{ useCount: { lt: Number(cursor.key) } }, { useCount: Number(cursor.key), id: { lt: BigInt(cursor.id) } }] };
      const rows = await db.layoutTemplate.findMany({
        where: { AND: [where, after] },
        include: TEMPLATE_INCLUDE,
        orderBy: orderBy === 'NEWEST' ? [{ updatedAt: 'desc' }, { id: 'desc' }] : [{ useCount: 'desc' }, { id: 'desc' }],
        take: limit + 1,
      });
      const page = toPage(rows, limit, pageTokens, binding, (r) => ({
        key: orderBy === 'NEWEST' ? r.updatedAt.toISOString() : String(r.useCount),
        id: r.id.toString(),
      }));
      return { templates: page.items.map((r) => templateView(r, r.ownerAccount.publicId)), nextPageToken: page.nextPageToken };
    },

    /** Any template, listed or not, by its full id: knowing the id is what sharing an unlisted one means. */
    async getLayoutTemplate(caller: Caller, input: TemplateRef) {
      viewer(caller);
      const row = await findTemplate(db, input);
      return { template: templateView(row, row.ownerAccount.publicId) };
    },

    /** One immutable version; `version` 0 or absent means the latest. */
    async getLayoutTemplateVersion(caller: Caller, input: TemplateRef & { version?: number }) {
      viewer(caller);
      const template = await findTemplate(db, input);
      const version = input.version === undefined || input.version === 0 ? template.latestVersion : input.version;
      const row = await db.layoutTemplateVersion.findUnique({
        where: { ownerAccountId_templateId_version: { ownerAccountId: template.ownerAccountId, templateId: template.templateId, version } },
      });
      if (!row) throw new ApiError('not-found', 'layout template version not found', { code: 'LAYOUT_TEMPLATE_VERSION_NOT_FOUND' });
      return { version: versionView(row, template.ownerAccount.publicId) };
    },

    /**
     * Copies a template version (the latest by default) into the caller's layouts as a new
     * layout, and counts the use for discovery. Unlisted templates can be used by id.
     */
    async useLayoutTemplate(caller: Caller, input: TemplateRef & { version?: number; name?: string; isDefault?: boolean }) {
      const v = await metered(caller, 'layout.mutate');
      const name = input.name === undefined || input.name === '' ? undefined : checkLine(input.name, 'name', LAYOUT_NAME_MAX);
      const row = await db.$transaction(async (tx) => {
        const template = await findTemplate(tx, input);
        const version = input.version === undefined || input.version === 0 ? template.latestVersion : input.version;
        const snapshot = await tx.layoutTemplateVersion.findUnique({
          where: { ownerAccountId_templateId_version: { ownerAccountId: template.ownerAccountId, templateId: template.templateId, version } },
        });
        if (!snapshot) throw new ApiError('not-found', 'layout template version not found', { code: 'LAYOUT_TEMPLATE_VERSION_NOT_FOUND' });
        const copy = versionView(snapshot, template.ownerAccount.publicId).layout;
        const layout = await saveLayout(tx, v.id, undefined, {
          name: name ?? copy.name,
          isDefault: input.isDefault ?? false,
          panelViewState: copy.panelViewState,
          widgets: copy.widgets,
        });
        await tx.layoutTemplate.update({ where: { id: template.id }, data: { useCount: { increment: 1 } } });
        return layout;
      });
      return { layout: layoutView(row, v.viewerId) };
    },
  };
}

export type LayoutService = ReturnType<typeof createLayoutService>;
