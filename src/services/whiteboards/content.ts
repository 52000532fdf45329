import * as Y from 'yjs';
import { isCanonicalBoardId } from '../../domain/whiteboard.ts';
import type { WhiteboardsContext } from './context.ts';
import { boardNotFound } from './access.ts';
import { compactState, MAX_DOCUMENT_BYTES, VERSION_INTERVAL_MS, VERSIONS_KEPT } from './versions.ts';

type ContentContext = Pick<WhiteboardsContext, 'db' | 'clock'>;

/** The stored Y.Doc of a board (one Yjs update), or undefined when there is no board. */
export async function loadContent(ctx: ContentContext, boardId: string): Promise<Uint8Array | undefined> {
  if (!isCanonicalBoardId(boardId)) return undefined;
  const row = await ctx.db.whiteboard.findUnique({ where: { boardId: boardId }, select: { yjsState: true } });
  if (!row) return undefined;
  return row.yjsState ?? new Uint8Array(0);
}

/**
 * Stores a board's Y.Doc, merged with what is stored: a process holding an older copy can
 * never drop updates another process stored first. Merged under the board's row lock,
 * re-encoded from a garbage-collected document (compaction), and a version is taken when
 * the newest is VERSION_INTERVAL_MS old or there is none, keeping the newest VERSIONS_KEPT.
 * Content edits make the board "recently updated" for the list.
 */
export async function storeContent(ctx: ContentContext, boardId: string, state: Uint8Array): Promise<void> {
  if (!isCanonicalBoardId(boardId)) return;
  await ctx.db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ id: bigint; yjsState: Uint8Array | null }[]>`
      SELECT id, "yjsState" FROM "Whiteboard" WHERE "boardId" = ${boardId}::uuid FOR UPDATE`;
    const row = rows[0];
    if (!row) return;
    const compacted = compactState(row.yjsState ? [row.yjsState, state] : [state]);
    const now = ctx.clock.now();
    await tx.whiteboard.update({ where: { id: row.id }, data: { yjsState: Buffer.from(compacted), updatedAt: now } });
    const newest = await tx.whiteboardVersion.findFirst({
      where: { whiteboardId: row.id },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      select: { createdAt: true },
    });
    if (newest && now.getTime() - newest.createdAt.getTime() < VERSION_INTERVAL_MS) return;
    await tx.whiteboardVersion.create({ data: { whiteboardId: row.id, yjsState: Buffer.from(compacted), createdAt: now } });
    const stale = await tx.whiteboardVersion.findMany({
      where: { whiteboardId: row.id },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: VERSIONS_KEPT,
      select: { id: true },
    });
    if (stale.length > 0) await tx.whiteboardVersion.deleteMany({ where: { id: { in: stale.map((v) => v.id) } } });
  });
}

/** Without rooms in this process, an edit goes to the stored state (merged like a room's store). */
export async function editStored(ctx: ContentContext, boardId: string, edit: (doc: Y.Doc, maxDocumentBytes: number) => void): Promise<void> {
  const stored = await loadContent(ctx, boardId);
  if (stored === undefined) throw boardNotFound();
  const doc = new Y.Doc();
  try {
    if (stored.length > 0) Y.applyUpdate(doc, stored);
    edit(doc, MAX_DOCUMENT_BYTES);
    await storeContent(ctx, boardId, Y.encodeStateAsUpdate(doc));
  } finally {
    doc.destroy();
  }
}
