import type { Authenticator } from '../../auth/authenticate.ts';
import type { Clock } from '../../infra/clock.ts';
import type { Db } from '../../infra/database.ts';
import type { SharedStore } from '../../infra/redis.ts';
import type { PageTokens } from '../pageTokens.ts';
import type { RateLimiter } from '../rateLimits.ts';
import type { TermsService } from '../terms.ts';

/** What the API key and policy operations use. */
export interface ApiKeysContext {
  db: Db;
  clock: Clock;
  store: SharedStore;
  pageTokens: PageTokens;
  terms: TermsService;
  authenticator: Authenticator;
  limiter: RateLimiter;
}
