import { z } from 'zod';

export const getFlowParams = z.strictObject({ flowId: z.string().min(1).max(64) });
export type GetFlowParams = z.output<typeof getFlowParams>;
