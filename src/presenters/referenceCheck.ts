import { z } from 'zod';
import type { DanglingReference } from '../services/consistency.ts';

/** GET /operator/v1/consistency/references: every unenforced reference that resolves to nothing; empty when consistent. */
export const referenceCheckSchema = z.strictObject({
  dangling: z.array(
    z.strictObject({
      reference: z.string().describe('Table.column -> Target.key'),
      count: z.number().int(),
      rowIds: z.array(z.string()).describe('Up to 10 ids of the rows whose reference resolves to nothing'),
    }),
  ),
});

export function presentReferenceCheck(dangling: DanglingReference[]): z.infer<typeof referenceCheckSchema> {
  return { dangling: dangling.map((d) => ({ reference: d.reference, count: d.count, rowIds: d.rowIds })) };
}
