import type { Caller } from '../../auth/caller.ts';
import { requirePermission, resolveAccount } from '../access.ts';
import type { ChainContext } from './context.ts';
import { checkDestination, type DestinationCheck } from './destinations.ts';

/**
 * Validate a withdrawal destination (spec 4.7 names it without a shape; WITHDRAW_VALIDATE):
 * the network's address rule, whether the address is one of this exchange's deposit
 * addresses, whether the address book has it, and so whether a withdrawal there would be
 * accepted. An invalid address is a report (valid false, with the reason), not an error;
 * an unsupported network is a 400.
 */
export async function validateWithdrawDestination(ctx: ChainContext, caller: Caller, input: { chainId: number; address: string; subaccountId?: string }): Promise<DestinationCheck> {
  requirePermission(caller, 'WITHDRAW');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  await ctx.limiter.admit('withdraw.validate_destination', { caller, account });
  const root = await ctx.db.account.findUniqueOrThrow({ where: { id: account.rootAccountId }, select: { withdrawAllowListOnly: true } });
  return checkDestination(ctx, account, input, root.withdrawAllowListOnly);
}
