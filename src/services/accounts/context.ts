import type { Clock } from '../../infra/clock.ts';
import type { Db } from '../../infra/database.ts';
import type { PageTokens } from '../pageTokens.ts';
import type { RateLimiter } from '../rateLimits.ts';

/** What the account operations use. */
export interface AccountsContext {
  db: Db;
  clock: Clock;
  pageTokens: PageTokens;
  limiter: RateLimiter;
}

export interface SubaccountView {
  subaccountId: string;
  label: string;
  createdAt: Date;
}

export function subaccountView(row: { publicId: string; label: string | null; createdAt: Date }): SubaccountView {
  return { subaccountId: row.publicId, label: row.label ?? '', createdAt: row.createdAt };
}
