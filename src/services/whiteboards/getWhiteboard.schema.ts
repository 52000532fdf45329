import { z } from 'zod';

/** Room for the spellings clients send (a canonical UUID is 36 characters): the service answers every one but the canonical 404. */
export const BOARD_ID_INPUT_MAX = 64;

export const boardParams = z.strictObject({ boardId: z.string().max(BOARD_ID_INPUT_MAX) });
export type BoardParams = z.output<typeof boardParams>;
export { boardParams as getWhiteboardParams };
