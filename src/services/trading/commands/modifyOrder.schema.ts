import { z } from 'zod';
import { decimal, orderRef } from './shared.schema.ts';

export const modifyOrderBody = z.strictObject({ ...orderRef, newQty: decimal.optional(), newPrice: decimal.optional() });
export type ModifyOrderBody = z.output<typeof modifyOrderBody>;
