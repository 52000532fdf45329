import type { Caller } from '../auth/caller.ts';
import { errors } from '../domain/errorCatalogue.ts';
import { invalidArgument } from '../domain/errors.ts';
import type { Clock } from '../infra/clock.ts';
import type { Db } from '../infra/database.ts';
import { retryOnUniqueRace } from '../infra/databaseErrors.ts';
import { actorLabel } from '../auth/caller.ts';
import { requireSession } from './access.ts';
import type { RateLimiter } from './rateLimits.ts';

/** Terms of service: one current version; operations of spec 5.4 need it accepted. */
export function createTermsService(deps: { db: Db; clock: Clock; currentVersion: string; limiter: RateLimiter }) {
  const { db, clock, currentVersion } = deps;
  return {
    currentVersion,

    async getTerms(caller: Caller) {
      const root = await db.account.findUniqueOrThrow({
        where: { id: caller.rootAccountId },
        select: { acceptedTermsVersion: true },
      });
      return { currentVersion, acceptedVersion: root.acceptedTermsVersion ?? '' };
    },

    async acceptTerms(caller: Caller, input: { version: string }) {
      requireSession(caller);
      await deps.limiter.admit('account.accept_terms', { caller });
      if (input.version !== currentVersion) {
        throw invalidArgument('version', `is not the current terms version (${currentVersion})`, 'current-terms-version');
      }
      const now = clock.now();
      await retryOnUniqueRace(() => db.$transaction([
        db.termsAcceptance.upsert({
          where: { accountId_version: { accountId: caller.rootAccountId, version: currentVersion } },
          update: {},
          create: { accountId: caller.rootAccountId, version: currentVersion, acceptedAt: now, actor: actorLabel(caller) },
        }),
        db.account.update({
          where: { id: caller.rootAccountId },
          data: { acceptedTermsVersion: currentVersion, acceptedTermsAt: now },
        }),
      ]));
      return { currentVersion, acceptedVersion: currentVersion };
    },

    /** Spec 5.4: the acting caller's root account must have accepted the current version. */
    async requireAccepted(caller: Caller) {
      const root = await db.account.findUniqueOrThrow({
        where: { id: caller.rootAccountId },
        select: { acceptedTermsVersion: true },
      });
      if (root.acceptedTermsVersion !== currentVersion) {
        throw errors.TERMS_NOT_ACCEPTED(`the current terms (${currentVersion}) must be accepted first`);
      }
    },
  };
}

export type TermsService = ReturnType<typeof createTermsService>;
