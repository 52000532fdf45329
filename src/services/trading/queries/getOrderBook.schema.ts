import { z } from 'zod';
import { queryInt } from '../../inputCodec.ts';
import { symbolField } from '../commands/shared.schema.ts';

export const ORDER_BOOK_DEPTH_DEFAULT = 50;
export const ORDER_BOOK_DEPTH_MAX = 500;

export const getOrderBookQuery = z.strictObject({ symbol: symbolField, depth: queryInt(1, ORDER_BOOK_DEPTH_MAX).optional() });
export type GetOrderBookQuery = z.output<typeof getOrderBookQuery>;
