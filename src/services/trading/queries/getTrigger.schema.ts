import { z } from 'zod';
import { subaccountIdField } from '../../inputCodec.ts';

export const triggerParams = z.strictObject({ triggerId: z.string().max(64) });
export const getTriggerParams = triggerParams;
export type GetTriggerParams = z.output<typeof getTriggerParams>;
export const getTriggerQuery = z.strictObject({ subaccountId: subaccountIdField });
export type GetTriggerQuery = z.output<typeof getTriggerQuery>;
