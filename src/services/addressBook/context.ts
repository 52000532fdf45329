import type { Clock } from '../../infra/clock.ts';
import type { Db } from '../../infra/database.ts';
import type { PageTokens } from '../pageTokens.ts';
import type { RateLimiter } from '../rateLimits.ts';

/** What the address-book operations use. */
export interface AddressBookContext {
  db: Db;
  clock: Clock;
  pageTokens: PageTokens;
  limiter: Pick<RateLimiter, 'admit'>;
}
