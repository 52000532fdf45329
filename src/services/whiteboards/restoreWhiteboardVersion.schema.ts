import { z } from 'zod';
import { BOARD_ID_INPUT_MAX } from './getWhiteboard.schema.ts';

/** Version ids are UUIDs like board ids: the same bound, the same 404 for any other spelling. */
export const restoreWhiteboardVersionParams = z.strictObject({ boardId: z.string().max(BOARD_ID_INPUT_MAX), versionId: z.string().max(BOARD_ID_INPUT_MAX) });
export type RestoreWhiteboardVersionParams = z.output<typeof restoreWhiteboardVersionParams>;
