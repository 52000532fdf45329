import { z } from 'zod';
import { pageQuery } from '../inputCodec.ts';

export const API_KEYS_LIST_MAX = 500;

export const listApiKeysQuery = z.strictObject(pageQuery(API_KEYS_LIST_MAX));
export type ListApiKeysQuery = z.output<typeof listApiKeysQuery>;
