import type { AttachedRisk } from '../../../../presenters/attachedRisk.ts';
import type { presentBatchCancel } from '../../../../presenters/batchCancel.ts';
import { presentOrder } from '../../../../presenters/order.ts';
import type { Market } from '../../../../services/markets.ts';
import type { OrderLike } from '../../../../services/trading/index.ts';

export const SEQUENCE_DESCRIPTION =
  'Set on subscription events only: the event’s position in the trading journal, unique and increasing in commit order. Resubscribe with `after:` set to the last one received to get every later event exactly once';

/**
 * Spec 2.7's order plus why a terminal order ended: REST keeps to the spec's fields, while
 * a trading UI needs to tell a self-trade-prevention or slippage cancel from its own.
 * `attachedRisk` is given by the reads that show it (`order`, `viewer.openOrders`), and
 * only when the query selects it.
 */
export const orderOf = (o: OrderLike, market: Market, attachedRisk?: AttachedRisk) => ({ ...presentOrder(o, market, attachedRisk), closeReason: o.closeReason });
/** `sequence` is set on stream events only: where the event stands in the journal. */
export type OrderShape = ReturnType<typeof orderOf> & { sequence?: bigint };
/** One GraphQL leg type for the three legs: a trailing stop's policy differs from the others' by its keys, as in /v1. */
export type RiskLegShape = NonNullable<AttachedRisk['stopLoss']> | NonNullable<AttachedRisk['trailingStop']>;
export type RiskPolicyShape = NonNullable<RiskLegShape['policy']>;
export type RiskChildShape = NonNullable<NonNullable<AttachedRisk['stopLoss']>['policy']>['child'];

export type CancelBatchShape = ReturnType<typeof presentBatchCancel>;
export type BatchItemErrorShape = NonNullable<CancelBatchShape['results'][number]['error']>;
