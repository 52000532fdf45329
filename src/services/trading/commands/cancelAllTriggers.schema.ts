import { z } from 'zod';
import { subaccountIdField, symbolField } from './shared.schema.ts';

export const cancelAllTriggersBody = z.strictObject({ subaccountId: subaccountIdField.optional(), symbol: symbolField.optional(), includeAttached: z.boolean().optional() });
export type CancelAllTriggersBody = z.output<typeof cancelAllTriggersBody>;
