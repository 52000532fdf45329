import { z } from 'zod';
import { int32, rfc3339Ns, subaccountIdField } from '../../inputCodec.ts';

/** Request pieces several trading operations share: the order body (create and replace), attached risk, names of an order or trigger. */

export const SIDE = z.enum(['BUY', 'SELL']);
export const STP = z.enum(['EXPIRE_MAKER', 'EXPIRE_TAKER', 'EXPIRE_BOTH', 'DECREMENT']);
export const FEE_ASSET = z.enum(['QUOTE', 'BASE']);
/** Prices and quantities travel as decimal text; the service checks them against the market's scales. */
export const decimal = z.string().max(64);
export const symbolField = z.string().max(32);
export const orderIdField = z.string().max(64);
export const clientOrderIdField = z.string().max(128);

const riskChild = z.strictObject({
  marketIoc: z.strictObject({}).optional(),
  limit: z.strictObject({ price: decimal, postOnly: z.boolean().optional() }).optional(),
});

export const attachedRiskBody = z.strictObject({
  oco: z.boolean().optional(),
  stopLoss: z.strictObject({ triggerPrice: decimal, child: riskChild }).optional(),
  takeProfit: z.strictObject({ triggerPrice: decimal, child: riskChild }).optional(),
  trailingStop: z
    .strictObject({
      activationPrice: decimal.optional(),
      maxSlippageTicks: int32().optional(),
      maxSlippageBps: int32().optional(),
      trailingDistanceTicks: decimal.optional(),
      trailingDistanceBps: int32().optional(),
    })
    .optional(),
});
export type AttachedRiskBody = z.output<typeof attachedRiskBody>;

/** One order variant per request: exactly one of limitGtc, limitGtd, limitIoc, marketIoc (the service checks which). */
export const orderBody = z.strictObject({
  symbol: symbolField,
  side: SIDE,
  baseQty: decimal,
  clientOrderId: clientOrderIdField.optional(),
  feeAsset: FEE_ASSET.optional(),
  selfTradePreventionMode: STP.optional(),
  limitGtc: z.strictObject({ price: decimal, postOnly: z.boolean().optional() }).optional(),
  limitGtd: z.strictObject({ price: decimal, expireAt: rfc3339Ns(), postOnly: z.boolean().optional() }).optional(),
  limitIoc: z.strictObject({ price: decimal, maxQuoteDebit: decimal.optional() }).optional(),
  marketIoc: z
    .strictObject({
      clientRefPrice: decimal.optional(),
      maxSlippageTicks: int32().optional(),
      maxSlippageBps: int32().optional(),
      maxQuoteDebit: decimal.optional(),
    })
    .optional(),
});
export type OrderBody = z.output<typeof orderBody>;

/** An order named by its id or its client order id (the service requires one). */
export const orderRef = {
  orderId: orderIdField.optional(),
  clientOrderId: clientOrderIdField.optional(),
  subaccountId: subaccountIdField,
};

/** A trigger named by its id or its client trigger id: cancel, modify, pause and resume. */
export const triggerRef = z.strictObject({ triggerId: z.string().max(64).optional(), clientTriggerId: z.string().max(64).optional(), subaccountId: subaccountIdField });
export type TriggerRef = z.output<typeof triggerRef>;
