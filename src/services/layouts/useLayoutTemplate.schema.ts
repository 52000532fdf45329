import { z } from 'zod';
import { int32 } from '../inputCodec.ts';
import { NAME_INPUT_MAX } from './upsertLayout.schema.ts';

export { templateParams as useLayoutTemplateParams } from './getLayoutTemplate.schema.ts';
export const useLayoutTemplateBody = z.strictObject({ version: int32().optional(), name: z.string().max(NAME_INPUT_MAX).optional(), isDefault: z.boolean().optional() });
export type UseLayoutTemplateBody = z.output<typeof useLayoutTemplateBody>;
