import type { WhiteboardRestored, WhiteboardVersion } from '../../../services/whiteboards/index.ts';
import { listWhiteboardVersionsParams } from '../../../services/whiteboards/listWhiteboardVersions.schema.ts';
import { restoreWhiteboardVersionParams } from '../../../services/whiteboards/restoreWhiteboardVersion.schema.ts';
import { builder } from '../builder.ts';
import { callerOf } from '../connections.ts';
import { parseArgs } from '../validate.ts';
import { ViewerRef } from './viewer.ts';

/**
 * Whiteboard version snapshots over GraphQL: the service calls of
 * GET /v1/collab/whiteboards/{boardId}/versions and POST .../versions/{versionId}/restore,
 * the same field names.
 */

const VersionRef = builder.objectRef<WhiteboardVersion>('WhiteboardVersion').implement({
  description: 'A snapshot of a board’s content, taken at most every 5 minutes of editing',
  fields: (t) => ({
    versionId: t.exposeString('versionId'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    sizeBytes: t.exposeInt('sizeBytes', { description: 'The snapshot as one Yjs update, in bytes' }),
  }),
});

const RestoredRef = builder.objectRef<WhiteboardRestored>('WhiteboardVersionRestored').implement({
  fields: (t) => ({
    boardId: t.exposeString('boardId'),
    versionId: t.exposeString('versionId'),
    restoredAt: t.expose('restoredAt', { type: 'DateTime' }),
  }),
});

builder.objectFields(ViewerRef, (t) => ({
  whiteboardVersions: t.field({
    type: [VersionRef],
    description: 'The board’s versions, newest first (at most 20); anyone with a role on the board reads them',
    args: { boardId: t.arg.string({ required: true }) },
    resolve: (caller, args, ctx) => ctx.services.whiteboards.listWhiteboardVersions(caller, parseArgs(listWhiteboardVersionsParams, args)),
  }),
}));

builder.mutationFields((t) => ({
  restoreWhiteboardVersion: t.field({
    type: RestoredRef,
    description: 'Makes the board’s content that of one of its versions, as a new edit every open room receives (needs canEdit)',
    args: { boardId: t.arg.string({ required: true }), versionId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.whiteboards.restoreWhiteboardVersion(callerOf(ctx), parseArgs(restoreWhiteboardVersionParams, args)),
  }),
}));
