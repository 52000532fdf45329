import { z } from 'zod';
import { int32 } from '../inputCodec.ts';
import { templateParams } from './getLayoutTemplate.schema.ts';

export const getLayoutTemplateVersionParams = templateParams.extend({
  version: z.string().regex(/^[1-9][0-9]{0,9}$/, { error: 'must be a positive integer' }).transform(Number).pipe(int32()),
});
export type GetLayoutTemplateVersionParams = z.output<typeof getLayoutTemplateVersionParams>;
