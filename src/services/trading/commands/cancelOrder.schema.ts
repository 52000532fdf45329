import { z } from 'zod';
import { orderRef, symbolField } from './shared.schema.ts';

export const cancelOrderBody = z.strictObject({ ...orderRef, symbol: symbolField.optional() });
export type CancelOrderBody = z.output<typeof cancelOrderBody>;
