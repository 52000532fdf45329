import { z } from 'zod';
import { pageQuery } from '../inputCodec.ts';

export const LAYOUTS_LIST_DEFAULT = 100;
export const LAYOUTS_LIST_MAX = 100;

export const listLayoutsQuery = z.strictObject(pageQuery(LAYOUTS_LIST_MAX));
export type ListLayoutsQuery = z.output<typeof listLayoutsQuery>;
