import type { Caller } from '../auth/caller.ts';
import { errors, type ApiError, type ErrorCode, type ErrorFactory } from '../domain/errorCatalogue.ts';

/** What one client may hold open of streaming connections (docs/scaling.md, "Stream limits"). */
export interface StreamLimits {
  /** graphql-ws sockets and server-sent-event streams open from one client address. */
  connectionsPerIp: number;
  /** The same, per credential (API key or wallet session). */
  connectionsPerCredential: number;
  /** Subscriptions running at once on one graphql-ws socket. */
  subscriptionsPerConnection: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = { connectionsPerIp: 64, connectionsPerCredential: 16, subscriptionsPerConnection: 32 };

export function credentialKey(caller: Caller): string {
  return caller.kind === 'apiKey' ? `key:${caller.keyId}` : `session:${caller.sessionId}`;
}

/**
 * Counts the streaming connections open per client address and per credential, over
 * graphql-ws and server-sent events together: one client cannot multiply the engine's
 * fan-out by opening more of them.
 */
export class StreamConnections {
  private readonly byIp = new Map<string, number>();
  private readonly byCredential = new Map<string, number>();

  constructor(readonly limits: StreamLimits) {}

  /** Takes a slot of `ip`; refused with 429 naming the limit when none is left. Returns its release. */
  acquireIp(ip: string): () => void {
    return this.acquire(this.byIp, ip, this.limits.connectionsPerIp, errors.STREAM_CONNECTIONS_PER_IP, 'client address');
  }

  acquireCredential(caller: Caller): () => void {
    return this.acquire(this.byCredential, credentialKey(caller), this.limits.connectionsPerCredential, errors.STREAM_CONNECTIONS_PER_CREDENTIAL, 'credential');
  }

  /** Streaming connections open (metrics, leak checks). */
  get open(): number {
    let n = 0;
    for (const count of this.byIp.values()) n += count;
    return n;
  }

  private acquire(counts: Map<string, number>, key: string, limit: number, factory: ErrorFactory<ErrorCode>, what: string): () => void {
    const count = counts.get(key) ?? 0;
    if (count >= limit) throw tooMany(factory, `at most ${limit} streaming connections (graphql-ws and server-sent events) per ${what}`, limit);
    counts.set(key, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (counts.get(key) ?? 1) - 1;
      if (left === 0) counts.delete(key);
      else counts.set(key, left);
    };
  }
}

/** A 429 naming the limit, built by the limit's factory. */
export function tooMany(factory: ErrorFactory<ErrorCode>, detail: string, limit: number): ApiError {
  return factory(detail, { extensions: { limit } });
}
