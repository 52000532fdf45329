import { z } from 'zod';
import { pageQuery } from '../inputCodec.ts';

export const SUBACCOUNTS_LIST_MAX = 500;

export const listSubaccountsQuery = z.strictObject(pageQuery(SUBACCOUNTS_LIST_MAX));
export type ListSubaccountsQuery = z.output<typeof listSubaccountsQuery>;
