import { z } from 'zod';
import { int32, subaccountIdField } from '../../inputCodec.ts';
import { CLIENT_TRIGGER_ID } from '../triggerInput.ts';
import { FEE_ASSET, SIDE, STP, decimal, symbolField } from './shared.schema.ts';

/** Tick counts are integers as text, shorter than a decimal price. */
const ticks = z.string().max(20);

const child = z.strictObject({
  marketIoc: z.strictObject({ maxSlippageTicks: int32().optional(), maxSlippageBps: int32().optional() }).optional(),
  limit: z.strictObject({ price: decimal, postOnly: z.boolean().optional() }).optional(),
});
const stopBlock = z.strictObject({ side: SIDE, triggerPrice: decimal, child });

/** One kind per trigger: exactly one of stopLoss, takeProfit, trailingStop, twap, ladder (the service checks which). */
export const triggerBody = z.strictObject({
  symbol: symbolField,
  qty: decimal,
  feeAsset: FEE_ASSET.optional(),
  selfTradePreventionMode: STP.optional(),
  clientTriggerId: z.string().min(1).max(CLIENT_TRIGGER_ID.maxLength).regex(CLIENT_TRIGGER_ID.pattern, { error: 'must be printable ASCII' }).optional(),
  expireAt: z.string().max(64).optional().describe('RFC 3339 with an offset, 1 second to 30 days ahead: a stop-loss, take-profit or trailing stop not fired by then ends EXPIRED'),
  stopLoss: stopBlock.optional(),
  takeProfit: stopBlock.optional(),
  trailingStop: z
    .strictObject({
      side: SIDE,
      activationPrice: decimal.optional(),
      trailingDistanceTicks: ticks.optional(),
      trailingDistanceBps: int32().optional(),
      maxSlippageTicks: int32().optional(),
      maxSlippageBps: int32().optional(),
    })
    .optional(),
  twap: z
    .strictObject({
      side: SIDE,
      durationMs: int32(),
      intervalMs: int32(),
      limitPrice: decimal.optional(),
      maxAdverseBps: int32().optional(),
      maxAdverseTicks: ticks.optional(),
    })
    .optional(),
  ladder: z
    .strictObject({
      side: SIDE,
      levels: int32(),
      minPrice: decimal,
      maxPrice: decimal,
      distribution: z.enum(['FLAT', 'ASCENDING', 'DESCENDING']).optional(),
      postOnly: z.boolean().optional(),
    })
    .optional(),
});
export type TriggerBody = z.output<typeof triggerBody>;

export const createTriggerBody = z.strictObject({ subaccountId: subaccountIdField, trigger: triggerBody });
export type CreateTriggerBody = z.output<typeof createTriggerBody>;
