import { z } from 'zod';

export const SUBACCOUNT_LABEL_MAX = 64;
export const MAX_SUBACCOUNTS = 200;
/** What the transports let through: longer than SUBACCOUNT_LABEL_MAX until trimmed, so the service names the rule. */
const LABEL_INPUT_MAX = 256;

export const createSubaccountBody = z.strictObject({ label: z.string().max(LABEL_INPUT_MAX) });
export type CreateSubaccountBody = z.output<typeof createSubaccountBody>;
