import { z } from 'zod';
import { SIDE, subaccountIdField, symbolField } from './shared.schema.ts';

export const cancelAllOrdersBody = z.strictObject({ subaccountId: subaccountIdField.optional(), symbol: symbolField.optional(), side: SIDE.optional() });
export type CancelAllOrdersBody = z.output<typeof cancelAllOrdersBody>;
