import { builder } from '../../builder.ts';

export const LedgerAccount = builder.enumType('LedgerAccount', { values: ['FUNDING', 'TRADING'] as const });
