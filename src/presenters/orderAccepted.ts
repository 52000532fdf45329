import { z } from 'zod';
import { formatScaled } from '../domain/money.ts';
import type { Market } from '../services/markets.ts';
import { int64String, rfc3339, toRfc3339 } from './scalars.ts';

/** What the engine answers on acceptance (createOrder, replaceOrder). */
export interface AcceptedView {
  orderId: string;
  clientOrderId: string;
  acceptedAt: Date;
  acceptedAtTsNs: bigint;
  resolvedBaseQty: bigint;
  submittedMaxQuoteDebit?: bigint | undefined;
  market: Market;
  legTriggers?: Partial<Record<'stopLoss' | 'takeProfit' | 'trailingStop', string>>;
}

/** Spec 4.5 Create Order response, also answered by POST /v1/orders/replace. */
export const orderAcceptedSchema = z.strictObject({
  orderId: z.string(),
  clientOrderId: z.string().optional().describe('Echoed when supplied'),
  acceptedAt: rfc3339,
  acceptedAtTsNs: int64String.describe('Epoch nanoseconds'),
  resolvedBaseQty: z.string().describe('Gross base quantity resolved for execution, the pair’s base_quantity_scale'),
  submittedMaxQuoteDebit: z.string().optional().describe('Only when submitted; the pair’s quote_quantity_scale'),
  stopLossTriggerId: z.string().describe('The trigger executing the attached stop-loss leg; empty without one'),
  takeProfitTriggerId: z.string(),
  trailingStopTriggerId: z.string(),
});

export function presentOrderAccepted(r: AcceptedView): z.infer<typeof orderAcceptedSchema> {
  return {
    orderId: r.orderId,
    ...(r.clientOrderId ? { clientOrderId: r.clientOrderId } : {}),
    acceptedAt: toRfc3339(r.acceptedAt),
    acceptedAtTsNs: r.acceptedAtTsNs.toString(),
    resolvedBaseQty: formatScaled(r.resolvedBaseQty, r.market.baseQuantityScale),
    ...(r.submittedMaxQuoteDebit !== undefined ? { submittedMaxQuoteDebit: formatScaled(r.submittedMaxQuoteDebit, r.market.quoteQuantityScale) } : {}),
    stopLossTriggerId: r.legTriggers?.stopLoss ?? '',
    takeProfitTriggerId: r.legTriggers?.takeProfit ?? '',
    trailingStopTriggerId: r.legTriggers?.trailingStop ?? '',
  };
}
