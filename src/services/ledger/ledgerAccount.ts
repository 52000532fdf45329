import { z } from 'zod';

/** The two ledgers of an account, as every ledger operation names them. */
export const LEDGER = z.enum(['FUNDING', 'TRADING']);
