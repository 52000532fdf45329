import { z } from 'zod';
import { subaccountIdField } from '../../inputCodec.ts';
import { clientOrderIdField, orderIdField } from '../commands/shared.schema.ts';

/** getOrder and getOrderByClientOrderId: both are served by getOrder.ts. */
export const getOrderParams = z.object({ orderId: orderIdField });
export type GetOrderParams = z.output<typeof getOrderParams>;
export const getOrderQuery = z.strictObject({ subaccountId: subaccountIdField });
export type GetOrderQuery = z.output<typeof getOrderQuery>;

export const getOrderByClientOrderIdParams = z.object({ clientOrderId: clientOrderIdField });
export type GetOrderByClientOrderIdParams = z.output<typeof getOrderByClientOrderIdParams>;
export const getOrderByClientOrderIdQuery = getOrderQuery;
