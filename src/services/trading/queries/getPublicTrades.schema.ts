import { z } from 'zod';
import { queryInt } from '../../inputCodec.ts';
import { symbolField } from '../commands/shared.schema.ts';

export const PUBLIC_TRADES_LIMIT_DEFAULT = 100;
export const PUBLIC_TRADES_LIMIT_MAX = 500;

export const getPublicTradesQuery = z.strictObject({ symbol: symbolField, limit: queryInt(1, PUBLIC_TRADES_LIMIT_MAX).optional() });
export type GetPublicTradesQuery = z.output<typeof getPublicTradesQuery>;
