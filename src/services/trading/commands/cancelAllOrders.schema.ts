import { z } from 'zod';
import { subaccountIdField } from '../../inputCodec.ts';
import { SIDE, symbolField } from './shared.schema.ts';

export const cancelAllOrdersBody = z.strictObject({ subaccountId: subaccountIdField, symbol: symbolField.optional(), side: SIDE.optional() });
export type CancelAllOrdersBody = z.output<typeof cancelAllOrdersBody>;
