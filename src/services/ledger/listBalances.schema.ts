import { z } from 'zod';
import { subaccountIdField } from '../inputCodec.ts';

export const listBalancesQuery = z.strictObject({ subaccountId: subaccountIdField });
export type ListBalancesQuery = z.output<typeof listBalancesQuery>;
