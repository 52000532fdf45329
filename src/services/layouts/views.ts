import { createHash } from 'node:crypto';
import type { Prisma, WidgetType } from '../../generated/prisma/client.ts';

/** Layouts, templates and versions as the transports render them, and the rows they are read from. */

export const INT64_MAX = 2n ** 63n - 1n;

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

export type Tx = Prisma.TransactionClient;
export const LAYOUT_INCLUDE = { widgets: { orderBy: { position: 'asc' } } } satisfies Prisma.LayoutInclude;
export type LayoutRow = Prisma.LayoutGetPayload<{ include: typeof LAYOUT_INCLUDE }>;
type TemplateRow = Prisma.LayoutTemplateGetPayload<true>;
type VersionRow = Prisma.LayoutTemplateVersionGetPayload<true>;
export const TEMPLATE_INCLUDE = { ownerAccount: { select: { publicId: true } } } satisfies Prisma.LayoutTemplateInclude;
export type TemplateWithOwner = Prisma.LayoutTemplateGetPayload<{ include: typeof TEMPLATE_INCLUDE }>;

const ms = (d: Date): bigint => BigInt(d.getTime());

/**
 * The spec's `viewerId` is a fixed64, while accounts are known by base58 public ids: it
 * is derived from the public id (SHA-256, first 63 bits), so it is stable and reveals
 * nothing about internal row ids. The server never takes it as input: the viewer is
 * always the caller.
 */
export function viewerIdOf(rootPublicId: string): bigint {
  return createHash('sha256').update(`viewer:${rootPublicId}`).digest().readBigUInt64BE() & INT64_MAX;
}

export function layoutView(row: LayoutRow, viewerId: bigint): LayoutView {
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

export function templateView(row: TemplateRow, ownerId: string): LayoutTemplateView {
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
export interface StoredWidget {
  widgetId: string;
  widgetType: WidgetType;
  widgetConfig: string;
}

/** A version row's snapshot of the layout, its widgets decoded. */
export function versionSnapshot(row: Pick<VersionRow, 'layoutName' | 'panelViewState' | 'widgets'>): LayoutTemplateVersionView['layout'] {
  const widgets = (row.widgets as unknown as StoredWidget[]).map((w) => ({
    widgetId: w.widgetId,
    widgetType: w.widgetType,
    widgetConfig: new Uint8Array(Buffer.from(w.widgetConfig, 'base64')),
  }));
  return { name: row.layoutName, panelViewState: new Uint8Array(row.panelViewState), widgets };
}

export function versionView(row: VersionRow, ownerId: string): LayoutTemplateVersionView {
  return {
    template: { ownerId, templateId: row.templateId },
    version: row.version,
    changelog: row.changelog ?? '',
    title: row.title,
    description: row.description,
    tags: row.tags,
    layout: versionSnapshot(row),
    publishedAtMs: ms(row.publishedAt),
  };
}

