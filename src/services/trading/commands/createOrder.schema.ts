import { z } from 'zod';
import { attachedRiskBody, orderBody, subaccountIdField } from './shared.schema.ts';

export const createOrderBody = z.strictObject({ subaccountId: subaccountIdField.optional(), order: orderBody.extend({ attachedRisk: attachedRiskBody.optional() }) });
export type CreateOrderBody = z.output<typeof createOrderBody>;
