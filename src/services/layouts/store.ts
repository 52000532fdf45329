import { randomBytes } from 'node:crypto';
import { PUBLIC_ID } from '../../domain/ids.ts';
import { invalidArgument } from '../../domain/errors.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { Db } from '../../infra/database.ts';
import { layoutNotFound, templateNotFound } from './checks.ts';
import type { LayoutsContext } from './context.ts';
import { MAX_LAYOUTS_PER_VIEWER } from './upsertLayout.schema.ts';
import { INT64_MAX, LAYOUT_INCLUDE, TEMPLATE_INCLUDE, type LayoutRow, type TemplateRef, type TemplateWithOwner, type Tx, type WidgetView } from './views.ts';

/**
 * Reads and writes the layout operations share. At most one layout of a viewer is the
 * default: every change of a viewer's layouts runs under one advisory lock, so setting a
 * default and clearing the previous one happen together.
 */

/** A fresh layout id: random, positive, within int64 (the spec's fixed64 as a decimal string). */
function newLayoutId(): bigint {
  const v = randomBytes(8).readBigUInt64BE() & INT64_MAX;
  return v === 0n ? 1n : v;
}

export async function lockViewer(tx: Tx, viewerId: bigint): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`layouts:${viewerId}`}, 0))`;
}

export async function findLayout(tx: Tx | Db, viewerId: bigint, layoutId: bigint, include: Prisma.LayoutInclude = {}): Promise<LayoutRow> {
  const row = await tx.layout.findUnique({ where: { viewerAccountId_layoutId: { viewerAccountId: viewerId, layoutId } }, include: { ...LAYOUT_INCLUDE, ...include } });
  if (!row) throw layoutNotFound();
  return row;
}

/** Writes a layout (new or existing) with its widgets; clears the previous default when it becomes one. */
export async function saveLayout(
  ctx: LayoutsContext,
  tx: Tx,
  viewerId: bigint,
  layoutId: bigint | undefined,
  fields: { name: string; isDefault: boolean; panelViewState: Uint8Array; widgets: WidgetView[] },
): Promise<LayoutRow> {
  await lockViewer(tx, viewerId);
  const now = ctx.clock.now();
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

export async function findTemplate(tx: Tx | Db, ref: TemplateRef, include: Prisma.LayoutTemplateInclude = {}): Promise<TemplateWithOwner> {
  if (!PUBLIC_ID.test(ref.ownerId) || !PUBLIC_ID.test(ref.templateId)) throw templateNotFound();
  const row = await tx.layoutTemplate.findFirst({
    where: { templateId: ref.templateId, ownerAccount: { publicId: ref.ownerId } },
    include: { ...include, ...TEMPLATE_INCLUDE },
  });
  if (!row) throw templateNotFound();
  return row;
}

