import { z } from 'zod';
import { pageQuery } from '../inputCodec.ts';

export const TEMPLATES_LIST_DEFAULT = 50;
export const TEMPLATES_LIST_MAX = 100;
export const TEMPLATE_SEARCH_MAX = 100;

export const listLayoutTemplatesQuery = z.strictObject({
  tag: z.string().max(256).optional(),
  query: z.string().max(1024).optional(),
  ownerId: z.string().max(64).optional(),
  orderBy: z.enum(['NEWEST', 'MOST_USED']).optional(),
  ...pageQuery(TEMPLATES_LIST_MAX),
});
export type ListLayoutTemplatesQuery = z.output<typeof listLayoutTemplatesQuery>;
