import { z } from 'zod';
import { pageQuery } from '../inputCodec.ts';

export const API_POLICIES_LIST_MAX = 500;

export const listApiPoliciesQuery = z.strictObject(pageQuery(API_POLICIES_LIST_MAX));
export type ListApiPoliciesQuery = z.output<typeof listApiPoliciesQuery>;
