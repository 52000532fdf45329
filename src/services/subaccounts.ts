import { smartAccountAddressOf } from '../domain/smartAccounts.ts';
import type { Caller } from '../auth/caller.ts';
import { invalidArgument } from '../domain/errors.ts';
import { newPublicId } from '../domain/ids.ts';
import type { Clock } from '../infra/clock.ts';
import type { Db } from '../infra/database.ts';
import { requirePermission, requireSession } from './access.ts';
import type { RateLimiter } from './rateLimits.ts';
import { afterNewestFirst, NEWEST_FIRST, newestFirstCursor, type NewestFirstCursor, PageTokens, pageLimit, toPage } from './pageTokens.ts';

export const SUBACCOUNT_LABEL_MAX = 64;
export const MAX_SUBACCOUNTS = 200;

export interface SubaccountView {
  subaccountId: string;
  label: string;
  createdAt: Date;
}

function view(row: { publicId: string; label: string | null; createdAt: Date }): SubaccountView {
  return { subaccountId: row.publicId, label: row.label ?? '', createdAt: row.createdAt };
}

/** Subaccounts of a root account: separate balances and books under one owner. */
export function createSubaccountService(deps: { db: Db; clock: Clock; pageTokens: PageTokens; limiter: RateLimiter }) {
  const { db, clock, pageTokens } = deps;
  return {
    async createSubaccount(caller: Caller, input: { label: string }) {
      requireSession(caller);
      await deps.limiter.admit('account.create_subaccount', { caller });
      const label = input.label.trim();
      if (label.length < 1 || label.length > SUBACCOUNT_LABEL_MAX) {
        throw invalidArgument('label', `must be 1 to ${SUBACCOUNT_LABEL_MAX} characters`, 'length');
      }
      // Creations for one root account run one at a time (its row locked): counted apart
      // from the insert, concurrent ones would each see room for one more.
      const row = await db.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT id FROM "Account" WHERE id = ${caller.rootAccountId} FOR UPDATE`;
        const count = await tx.account.count({ where: { rootAccountId: caller.rootAccountId, kind: 'SUBACCOUNT' } });
        if (count >= MAX_SUBACCOUNTS) {
          throw invalidArgument('label', `an account may have at most ${MAX_SUBACCOUNTS} subaccounts`, 'max-subaccounts');
        }
        const publicId = newPublicId();
        return tx.account.create({
          data: { publicId, smartAccountAddress: smartAccountAddressOf(publicId), kind: 'SUBACCOUNT', rootAccountId: caller.rootAccountId, label, createdAt: clock.now() },
        });
      });
      return { subaccount: view(row) };
    },

    /** Newest first. A subaccount-scoped key sees only its own subaccount. */
    async listSubaccounts(caller: Caller, input: { limit?: number; pageToken?: string }) {
      requirePermission(caller, 'READ');
      const limit = pageLimit(input.limit, 500);
      const scoped = caller.kind === 'apiKey' ? caller.subaccountId : undefined;
      const binding = { operation: 'listSubaccounts', caller: caller.rootPublicId, filters: { scoped: scoped ?? null } };
      const cursor = pageTokens.decode<NewestFirstCursor>(input.pageToken, binding);
      const rows = await db.account.findMany({
        where: {
          rootAccountId: caller.rootAccountId,
          kind: 'SUBACCOUNT',
          ...(scoped !== undefined ? { id: scoped } : {}),
          ...afterNewestFirst(cursor),
        },
        orderBy: NEWEST_FIRST,
        take: limit + 1,
      });
      const page = toPage(rows, limit, pageTokens, binding, newestFirstCursor);
      return { subaccounts: page.items.map(view), nextPageToken: page.nextPageToken };
    },
  };
}

export type SubaccountService = ReturnType<typeof createSubaccountService>;
