import { z } from 'zod';
import { formatScaled } from '../domain/money.ts';
import { TriggerCancelReason, TriggerEventType, TriggerFailureReason, TriggerType } from '../generated/prisma/enums.ts';
import type { Market } from '../services/markets.ts';
import { int64String, nextPageToken, orEmpty } from './scalars.ts';

/** One appended event of a trigger (the journal's or the stored row), with the public ids it names. */
export interface TriggerEventView {
  event: {
    eventType: TriggerEventType;
    triggerType: TriggerType;
    childSeq: number;
    firePx: bigint | null;
    cancelReason: TriggerCancelReason | null;
    failureReason: TriggerFailureReason | null;
    tsNs: bigint;
  };
  triggerId: string;
  market: Market;
  account: string;
  /** The child order the event created, if any. */
  childOrderId: string | null;
}

/** Spec 2.9. */
export const triggerEventSchema = z.strictObject({
  eventType: z.enum(TriggerEventType),
  triggerId: z.string(),
  triggerType: z.enum(TriggerType).describe('The type at the time of the event'),
  subaccountId: z.string(),
  symbol: z.string(),
  childOrderId: z.string().describe('The child the event created; empty when none'),
  childSeq: z.number().int(),
  firePx: z.string().optional().describe('Decimal price (Q9) that fired a conditional trigger; absent for time-scheduled ones'),
  cancelReason: orEmpty(TriggerCancelReason),
  failureReason: orEmpty(TriggerFailureReason),
  tsNs: int64String.describe('Epoch nanoseconds'),
});

export const triggerEventsSchema = z.strictObject({ events: z.array(triggerEventSchema), nextPageToken });

export function presentTriggerEvent({ event: e, triggerId, market, account, childOrderId }: TriggerEventView): z.infer<typeof triggerEventSchema> {
  return {
    eventType: e.eventType,
    triggerId,
    triggerType: e.triggerType,
    subaccountId: account,
    symbol: market.symbol,
    childOrderId: childOrderId ?? '',
    childSeq: e.childSeq,
    ...(e.firePx !== null ? { firePx: formatScaled(e.firePx, 9) } : {}),
    cancelReason: e.cancelReason ?? '',
    failureReason: e.failureReason ?? '',
    tsNs: e.tsNs.toString(),
  };
}
