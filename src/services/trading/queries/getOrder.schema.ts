import { z } from 'zod';
import { clientOrderIdField, orderIdField, subaccountIdField } from '../commands/shared.schema.ts';

/** getOrder and getOrderByClientOrderId: both are served by getOrder.ts. */
export const getOrderParams = z.object({ orderId: orderIdField });
export type GetOrderParams = z.output<typeof getOrderParams>;
export const getOrderQuery = z.strictObject({ subaccountId: subaccountIdField.optional() });
export type GetOrderQuery = z.output<typeof getOrderQuery>;

export const getOrderByClientOrderIdParams = z.object({ clientOrderId: clientOrderIdField });
export type GetOrderByClientOrderIdParams = z.output<typeof getOrderByClientOrderIdParams>;
export const getOrderByClientOrderIdQuery = getOrderQuery;
