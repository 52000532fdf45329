import { z } from 'zod';
import { subaccountIdField } from '../../inputCodec.ts';
import { attachedRiskBody, orderBody } from './shared.schema.ts';

export const createOrderBody = z.strictObject({ subaccountId: subaccountIdField, order: orderBody.extend({ attachedRisk: attachedRiskBody.optional() }) });
export type CreateOrderBody = z.output<typeof createOrderBody>;
