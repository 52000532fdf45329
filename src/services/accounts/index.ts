import type { Caller } from '../../auth/caller.ts';
import type { AccountsContext } from './context.ts';
import { createSubaccount } from './createSubaccount.ts';
import { listSubaccounts } from './listSubaccounts.ts';

/** Accounts: subaccounts of a root account (separate balances and books under one owner), and which accounts a caller may see. */

export type { SubaccountView } from './context.ts';
export { visibleAccountsWhere } from './visibleAccounts.ts';
export { MAX_SUBACCOUNTS, SUBACCOUNT_LABEL_MAX } from './createSubaccount.schema.ts';

/** The subaccount operations, keyed by their operationId. */
export function createSubaccountService(ctx: AccountsContext) {
  return {
    createSubaccount: (caller: Caller, input: Parameters<typeof createSubaccount>[2]) => createSubaccount(ctx, caller, input),
    listSubaccounts: (caller: Caller, input: Parameters<typeof listSubaccounts>[2]) => listSubaccounts(ctx, caller, input),
  };
}

export type SubaccountService = ReturnType<typeof createSubaccountService>;
