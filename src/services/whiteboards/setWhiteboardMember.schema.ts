import { z } from 'zod';
import { textInput } from './createWhiteboard.schema.ts';
import { BOARD_ID_INPUT_MAX } from './getWhiteboard.schema.ts';

export const MAX_MEMBERS_PER_BOARD = 200;
/** Longer than any account public id; the service answers an unknown one 404. */
export const ACCOUNT_ID_INPUT_MAX = 64;

export const memberParams = z.strictObject({ boardId: z.string().max(BOARD_ID_INPUT_MAX), accountId: z.string().max(ACCOUNT_ID_INPUT_MAX) });
export type MemberParams = z.output<typeof memberParams>;
export { memberParams as setWhiteboardMemberParams };

export const setWhiteboardMemberBody = z.strictObject({ role: textInput() });
export type SetWhiteboardMemberBody = z.output<typeof setWhiteboardMemberBody>;
