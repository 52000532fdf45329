import { z } from 'zod';
import { DeadManSwitchStatus } from '../generated/prisma/enums.ts';
import { int64String, rfc3339 } from './scalars.ts';

/** Spec 2.14, the answer of POST /v1/orders/cancel-all-after. */
export const deadManSwitchSchema = z.strictObject({
  status: z.enum(DeadManSwitchStatus),
  effectiveTimeoutSec: z.number().int().describe('0 when disabled'),
  expiresAtTsNs: int64String.describe('Epoch nanoseconds; "0" when disabled'),
  ts: rfc3339,
  tsNs: int64String.describe('Epoch nanoseconds'),
});

export function presentDeadManSwitch(r: z.infer<typeof deadManSwitchSchema>): z.infer<typeof deadManSwitchSchema> {
  return { status: r.status, effectiveTimeoutSec: r.effectiveTimeoutSec, expiresAtTsNs: r.expiresAtTsNs, ts: r.ts, tsNs: r.tsNs };
}
