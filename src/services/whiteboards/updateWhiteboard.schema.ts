import { z } from 'zod';
import { textInput } from './createWhiteboard.schema.ts';

export { boardParams as updateWhiteboardParams } from './getWhiteboard.schema.ts';

export const updateWhiteboardBody = z.strictObject({
  title: textInput().optional(),
  audience: textInput().optional(),
  defaultRole: textInput().optional(),
  archived: z.boolean().optional(),
});
export type UpdateWhiteboardBody = z.output<typeof updateWhiteboardBody>;
