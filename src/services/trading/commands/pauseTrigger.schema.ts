import type { z } from 'zod';
import { triggerRef } from './shared.schema.ts';

export const pauseTriggerBody = triggerRef;
export type PauseTriggerBody = z.output<typeof pauseTriggerBody>;
