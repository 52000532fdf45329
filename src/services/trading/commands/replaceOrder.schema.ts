import { z } from 'zod';
import { orderBody, orderRef } from './shared.schema.ts';

export const replaceOrderBody = z.strictObject({ ...orderRef, order: orderBody });
export type ReplaceOrderBody = z.output<typeof replaceOrderBody>;
