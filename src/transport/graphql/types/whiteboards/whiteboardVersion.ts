import type { WhiteboardVersion } from '../../../../services/whiteboards/index.ts';
import { listWhiteboardVersionsParams } from '../../../../services/whiteboards/listWhiteboardVersions.schema.ts';
import { builder } from '../../builder.ts';
import { parseArgs } from '../../validate.ts';
import { ViewerRef } from '../viewer.ts';

/** As GET /v1/collab/whiteboards/{boardId}/versions answers it, the same field names. */
const VersionRef = builder.objectRef<WhiteboardVersion>('WhiteboardVersion').implement({
  description: 'A snapshot of a board’s content, taken at most every 5 minutes of editing',
  fields: (t) => ({
    versionId: t.exposeString('versionId'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    sizeBytes: t.exposeInt('sizeBytes', { description: 'The snapshot as one Yjs update, in bytes' }),
  }),
});

builder.objectField(ViewerRef, 'whiteboardVersions', (t) =>
  t.field({
    type: [VersionRef],
    description: 'The board’s versions, newest first (at most 20); anyone with a role on the board reads them',
    args: { boardId: t.arg.string({ required: true }) },
    resolve: (caller, args, ctx) => ctx.services.whiteboards.listWhiteboardVersions(caller, parseArgs(listWhiteboardVersionsParams, args)),
  }),
);
