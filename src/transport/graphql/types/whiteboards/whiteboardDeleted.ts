import { deleteWhiteboardParams } from '../../../../services/whiteboards/deleteWhiteboard.schema.ts';
import { builder } from '../../builder.ts';
import { callerOf } from '../../connections.ts';
import { parseArgs } from '../../validate.ts';

const Deleted = builder.objectRef<{ boardId: string }>('WhiteboardDeleted').implement({
  fields: (t) => ({ boardId: t.exposeString('boardId') }),
});

builder.mutationField('deleteWhiteboard', (t) =>
  t.field({
    type: Deleted,
    description: 'Deletes the board, its members and its content (owner only); its open rooms close (BOARD_DELETED)',
    args: { boardId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.whiteboards.deleteWhiteboard(callerOf(ctx), parseArgs(deleteWhiteboardParams, args)),
  }),
);
