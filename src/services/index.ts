import type { Clock } from '../infra/clock.ts';
import type { Database } from '../infra/database.ts';
import type { SharedStore } from '../infra/redis.ts';
import { PageTokens } from './pageTokens.ts';
import { createSystemService } from './system.ts';

/** What every service may depend on; tests build it from real parts configured per test. */
export interface ServiceDeps {
  database: Database;
  store: SharedStore;
  clock: Clock;
  pageTokens: PageTokens;
}

export function createServices(deps: ServiceDeps) {
  return {
    system: createSystemService({ clock: deps.clock }),
  };
}

export type Services = ReturnType<typeof createServices>;
