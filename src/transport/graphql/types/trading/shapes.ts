import type { Market } from '../../../../services/markets.ts';
import { type attachedRiskView, type OrderLike, type OrdersService, orderView } from '../../../../services/trading/index.ts';

export const SEQUENCE_DESCRIPTION =
  'Set on subscription events only: the event’s position in the trading journal, unique and increasing in commit order. Resubscribe with `after:` set to the last one received to get every later event exactly once';

/**
 * Spec 2.7's order plus why a terminal order ended: REST keeps to the spec's fields, while
 * a trading UI needs to tell a self-trade-prevention or slippage cancel from its own.
 */
export const orderOf = (o: OrderLike, market: Market) => ({ ...orderView(o, market), closeReason: o.closeReason });
export type AttachedRiskShape = ReturnType<typeof attachedRiskView>;
/**
 * `sequence` is set on stream events only: where the event stands in the journal.
 * `attachedRisk` is loaded by the reads that show it (`order`, `viewer.openOrders`), and
 * only when the query selects it.
 */
export type OrderShape = ReturnType<typeof orderOf> & { sequence?: bigint; attachedRisk?: AttachedRiskShape };
export type RiskLegShape = NonNullable<AttachedRiskShape['stopLoss']>;
export type RiskPolicyShape = NonNullable<RiskLegShape['policy']>;
export type RiskChildShape = { limit?: { price?: string; postOnly: boolean }; marketIoc?: object };

/** The service's answer to a batch cancel, which REST sends as it is. */
export type CancelBatchShape = Awaited<ReturnType<OrdersService['batchCancelOrders']>>;
export type BatchItemErrorShape = Extract<CancelBatchShape['results'][number], { status: 'REJECTED' }>['error'];
