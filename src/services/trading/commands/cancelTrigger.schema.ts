import type { z } from 'zod';
import { triggerRef } from './shared.schema.ts';

export const cancelTriggerBody = triggerRef;
export type CancelTriggerBody = z.output<typeof cancelTriggerBody>;
