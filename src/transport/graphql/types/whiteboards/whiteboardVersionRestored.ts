import type { WhiteboardRestored } from '../../../../services/whiteboards/index.ts';
import { restoreWhiteboardVersionParams } from '../../../../services/whiteboards/restoreWhiteboardVersion.schema.ts';
import { builder } from '../../builder.ts';
import { callerOf } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';

/** As POST /v1/collab/whiteboards/{boardId}/versions/{versionId}/restore answers it. */
const RestoredRef = builder.objectRef<WhiteboardRestored>('WhiteboardVersionRestored').implement({
  fields: (t) => ({
    boardId: t.exposeString('boardId'),
    versionId: t.exposeString('versionId'),
    restoredAt: t.expose('restoredAt', { type: 'DateTime' }),
  }),
});

builder.mutationField('restoreWhiteboardVersion', (t) =>
  t.field({
    type: RestoredRef,
    description: 'Makes the board’s content that of one of its versions, as a new edit every open room receives (needs canEdit)',
    args: { boardId: t.arg.string({ required: true }), versionId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.whiteboards.restoreWhiteboardVersion(callerOf(ctx), parseArgs(restoreWhiteboardVersionParams, args)),
  }),
);
