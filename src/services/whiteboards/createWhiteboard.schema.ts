import { z } from 'zod';

/** Boards one account owns, archived ones included: each may hold a 16 MiB document. */
export const MAX_BOARDS_PER_ACCOUNT = 1_000;
/**
 * What the transports let through for a text field: generous bounds only stop absurd
 * input; the service holds the real rules (title, audience, role) and names the one that failed.
 */
export const TEXT_INPUT_MAX = 4096;

export const textInput = () => z.string().max(TEXT_INPUT_MAX);

export const createWhiteboardBody = z.strictObject({
  title: textInput(),
  audience: textInput().optional(),
  defaultRole: textInput().optional(),
  /** Checked by the service (scene.ts), which names the element and the rule. */
  initialSnapshot: z.unknown().optional(),
});
export type CreateWhiteboardBody = z.output<typeof createWhiteboardBody>;
