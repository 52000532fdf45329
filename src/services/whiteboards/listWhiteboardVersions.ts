import type { Caller } from '../../auth/caller.ts';
import { requirePermission } from '../access.ts';
import { findBoard } from './access.ts';
import type { WhiteboardsContext } from './context.ts';
import type { BoardParams } from './getWhiteboard.schema.ts';
import { VERSIONS_KEPT } from './versions.ts';
import type { WhiteboardVersion } from './views.ts';

/** The board's versions, newest first (at most VERSIONS_KEPT); anyone with a role reads them. */
export async function listWhiteboardVersions(ctx: WhiteboardsContext, caller: Caller, input: BoardParams): Promise<WhiteboardVersion[]> {
  requirePermission(caller, 'READ');
  const { row } = await findBoard(ctx.db, caller, input.boardId);
  const rows = await ctx.db.$queryRaw<{ versionId: string; createdAt: Date; sizeBytes: number }[]>`
    SELECT "versionId"::text AS "versionId", "createdAt", octet_length("yjsState")::int AS "sizeBytes"
    FROM "WhiteboardVersion" WHERE "whiteboardId" = ${row.id}
    ORDER BY "createdAt" DESC, id DESC LIMIT ${VERSIONS_KEPT}`;
  return rows.map((r) => ({ versionId: r.versionId, createdAt: r.createdAt, sizeBytes: Number(r.sizeBytes) }));
}
