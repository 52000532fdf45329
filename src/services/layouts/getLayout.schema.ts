import { z } from 'zod';
import { nonNegativeInt64 } from '../inputCodec.ts';

export const layoutParams = z.strictObject({ layout_id: nonNegativeInt64() });
export type LayoutParams = z.output<typeof layoutParams>;
export { layoutParams as getLayoutParams };
