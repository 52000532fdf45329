import type { z } from 'zod';
import { triggerRef } from './shared.schema.ts';

export const resumeTriggerBody = triggerRef;
export type ResumeTriggerBody = z.output<typeof resumeTriggerBody>;
