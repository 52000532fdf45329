import { z } from 'zod';
import { attachedRiskBody, orderRef } from './shared.schema.ts';

export const setAttachedRiskBody = z.strictObject({ ...orderRef, attachedRisk: attachedRiskBody });
export type SetAttachedRiskBody = z.output<typeof setAttachedRiskBody>;
