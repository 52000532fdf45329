import { createAuthenticator } from '../auth/authenticate.ts';
import type { Config } from '../config.ts';
import type { Clock } from '../infra/clock.ts';
import type { Database } from '../infra/database.ts';
import type { SharedStore } from '../infra/redis.ts';
import { createAddressBookService } from './addressBook.ts';
import { createApiKeyService } from './apiKeys.ts';
import { createOperatorService } from './operator.ts';
import { PageTokens } from './pageTokens.ts';
import { createRateLimiter } from './rateLimits.ts';
import { createSubaccountService } from './subaccounts.ts';
import { createSystemService } from './system.ts';
import { createTermsService } from './terms.ts';
import { createWalletAuthService } from './walletAuth.ts';

/** What every service may depend on; tests build it from real parts configured per test. */
export interface ServiceDeps {
  database: Database;
  store: SharedStore;
  clock: Clock;
  pageTokens: PageTokens;
  auth: Config['auth'];
}

export function createServices(deps: ServiceDeps) {
  const db = deps.database.prisma;
  const { clock, store, pageTokens } = deps;
  const authenticator = createAuthenticator({ db, store, clock });
  const limiter = createRateLimiter({ db, store });
  const terms = createTermsService({ db, clock, currentVersion: deps.auth.termsVersion, limiter });
  return {
    authenticator,
    limiter,
    operator: createOperatorService({ db, limiter }),
    system: createSystemService({ clock }),
    walletAuth: createWalletAuthService({
      db,
      clock,
      sessionTtlSeconds: deps.auth.sessionTtlSeconds,
      signInDomain: deps.auth.signInDomain,
      limiter,
    }),
    terms,
    subaccounts: createSubaccountService({ db, clock, pageTokens, limiter }),
    addressBook: createAddressBookService({ db, clock, pageTokens, limiter }),
    apiKeys: createApiKeyService({ db, clock, store, pageTokens, terms, authenticator, limiter }),
  };
}

export type Services = ReturnType<typeof createServices>;
