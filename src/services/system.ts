import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../infra/clock.ts';

export interface ServerInfo {
  apiVersion: string;
  serverTime: Date;
}

export const API_VERSION = 'v1';

/** Facts about the service itself, for clients checking their connection and clock skew. */
export function createSystemService(deps: { clock: Clock; tickMs?: number }) {
  const tickMs = deps.tickMs ?? 1000;
  return {
    serverInfo(): ServerInfo {
      return { apiVersion: API_VERSION, serverTime: deps.clock.now() };
    },
    async *ticks(count?: number): AsyncGenerator<Date> {
      for (let i = 0; count === undefined || i < count; i++) {
        if (i > 0) await sleep(tickMs);
        yield deps.clock.now();
      }
    },
  };
}

export type SystemService = ReturnType<typeof createSystemService>;
