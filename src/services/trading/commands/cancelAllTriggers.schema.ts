import { z } from 'zod';
import { subaccountIdField } from '../../inputCodec.ts';
import { symbolField } from './shared.schema.ts';

export const cancelAllTriggersBody = z.strictObject({ subaccountId: subaccountIdField, symbol: symbolField.optional(), includeAttached: z.boolean().optional() });
export type CancelAllTriggersBody = z.output<typeof cancelAllTriggersBody>;
