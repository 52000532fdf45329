import { smartAccountAddressOf } from '../../domain/smartAccounts.ts';
import type { Caller } from '../../auth/caller.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { newPublicId } from '../../domain/ids.ts';
import { requireSession } from '../access.ts';
import { subaccountView, type AccountsContext } from './context.ts';
import { MAX_SUBACCOUNTS, SUBACCOUNT_LABEL_MAX } from './createSubaccount.schema.ts';

/** A new subaccount of the caller's root account (sessions only), at most MAX_SUBACCOUNTS of them. */
export async function createSubaccount(ctx: AccountsContext, caller: Caller, input: { label: string }) {
  requireSession(caller);
  await ctx.limiter.admit('account.create_subaccount', { caller });
  const label = input.label.trim();
  if (label.length < 1 || label.length > SUBACCOUNT_LABEL_MAX) {
    throw invalidArgument('label', `must be 1 to ${SUBACCOUNT_LABEL_MAX} characters`, 'length');
  }
  // Creations for one root account run one at a time (its row locked): counted apart
  // from the insert, concurrent ones would each see room for one more.
  const row = await ctx.db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM "Account" WHERE id = ${caller.rootAccountId} FOR UPDATE`;
    const count = await tx.account.count({ where: { rootAccountId: caller.rootAccountId, kind: 'SUBACCOUNT' } });
    if (count >= MAX_SUBACCOUNTS) {
      throw invalidArgument('label', `an account may have at most ${MAX_SUBACCOUNTS} subaccounts`, 'max-subaccounts');
    }
    const publicId = newPublicId();
    return tx.account.create({
      data: { publicId, smartAccountAddress: smartAccountAddressOf(publicId), kind: 'SUBACCOUNT', rootAccountId: caller.rootAccountId, label, createdAt: ctx.clock.now() },
    });
  });
  return { subaccount: subaccountView(row) };
}
