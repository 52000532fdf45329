import { z } from 'zod';
import { queryInt, subaccountIdField } from '../../inputCodec.ts';
import { triggerParams } from './getTrigger.schema.ts';

export const TRIGGER_EVENTS_LIST_MAX = 500;

export const listTriggerEventsParams = triggerParams;
export type ListTriggerEventsParams = z.output<typeof listTriggerEventsParams>;
export const listTriggerEventsQuery = z.strictObject({
  eventType: z.string().max(32).optional(),
  limit: queryInt(1, TRIGGER_EVENTS_LIST_MAX).optional(),
  pageToken: z.string().max(2048).optional(),
  subaccountId: subaccountIdField,
});
export type ListTriggerEventsQuery = z.output<typeof listTriggerEventsQuery>;
