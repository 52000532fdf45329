import { replayedRequest } from '../auth/authenticate.ts';
import { takeSignature, type Caller } from '../auth/caller.ts';
import { errors } from '../domain/errorCatalogue.ts';
import {
  OPERATIONS,
  POLICY_VERSION,
  POOLS,
  TRADING_EFFECTIVE_FROM,
  TRADING_POLICY_VERSION,
  tradingCatalog,
  tradingPool,
  type BucketPolicy,
  type OperationId,
  type PoolDefinition,
  type PoolName,
  type Scope,
} from '../domain/ratelimit/catalog.ts';
import { scale } from '../domain/ratelimit/tokenBucket.ts';
import type { Db } from '../infra/database.ts';
import type { BucketCharge, SharedStore } from '../infra/redis.ts';
import { requirePermission, resolveAccount, type AccountRef } from './access.ts';

/** Who a limited request is charged to. */
export interface LimitSubject {
  caller?: Caller;
  /** The account acted on (root or subaccount), when there is one. */
  account?: AccountRef;
  /** AUTH_PUBLIC: the client address and the identity being authenticated. */
  clientIp?: string;
  authSubject?: string;
}

const OVERRIDE_CACHE_MS = 5_000;

/**
 * The limiter in front of every mutating operation, called by the services themselves so
 * one logical action has one quota whatever the transport. Every applicable scope is
 * charged in one atomic round trip; a rejection charges nothing.
 */
export function createRateLimiter(deps: { db: Db; store: SharedStore }) {
  const { db, store } = deps;
  const cache = new Map<string, { at: number; value: Promise<unknown> }>();

  /** Concurrent misses share one load, so an expiring entry never stampedes the database. */
  function cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = cache.get(key);
    if (hit && Date.now() - hit.at < OVERRIDE_CACHE_MS) return hit.value as Promise<T>;
    const value = load();
    cache.set(key, { at: Date.now(), value });
    value.catch(() => cache.delete(key));
    return value;
  }

  function poolFor(name: PoolName, vipTier: number): PoolDefinition {
    return name === 'TRADING_PLACE' || name === 'TRADING_CANCEL' ? tradingPool(name, vipTier) : POOLS[name];
  }

  async function vipTierOf(rootAccountId: bigint): Promise<number> {
    return cached(`vip:${rootAccountId}`, async () => {
      const row = await db.account.findUnique({ where: { id: rootAccountId }, select: { vipTier: true } });
      return row?.vipTier ?? 0;
    });
  }

  /** An operator override replaces the catalog's policy for one account or one key. */
  async function override(pool: PoolName, target: { accountId?: bigint; apiKeyId?: bigint }): Promise<BucketPolicy | undefined> {
    const key = `ovr:${pool}:${target.accountId ?? ''}:${target.apiKeyId ?? ''}`;
    return cached(key, async () => {
      const row = await db.rateLimitOverride.findFirst({
        where: { pool, ...target, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] },
      });
      return row ? { quota: Number(row.quotaWeight), periodMs: Number(row.periodMs), burst: Number(row.burstWeight) } : undefined;
    });
  }

  /** The buckets one request is charged to, with the policy each one runs. */
  async function bucketsFor(pool: PoolDefinition, subject: LimitSubject) {
    const out: { scope: Scope; id: string; policy: BucketPolicy }[] = [];
    if (pool.name === 'AUTH_PUBLIC') {
      if (subject.clientIp) out.push({ scope: 'CLIENT_IP', id: subject.clientIp, policy: pool });
      if (subject.authSubject) out.push({ scope: 'AUTH_SUBJECT', id: subject.authSubject.toLowerCase(), policy: pool });
      return out;
    }
    const caller = subject.caller;
    if (!caller) return out;
    const trading = pool.name === 'TRADING_PLACE' || pool.name === 'TRADING_CANCEL';
    const account = subject.account;
    // Trading pools are separate per trading account; the others are the root account's,
    // with a subaccount's own bucket besides when one is acted on.
    if (trading && account?.kind === 'SUBACCOUNT') {
      out.push({ scope: 'SUBACCOUNT', id: account.publicId, policy: (await override(pool.name, { accountId: account.id })) ?? pool });
    } else {
      out.push({ scope: 'ACCOUNT', id: caller.rootPublicId, policy: (await override(pool.name, { accountId: caller.rootAccountId })) ?? pool });
      if (account?.kind === 'SUBACCOUNT') {
        out.push({ scope: 'SUBACCOUNT', id: account.publicId, policy: (await override(pool.name, { accountId: account.id })) ?? pool });
      }
    }
    if (caller.kind === 'apiKey') {
      out.push({ scope: 'API_KEY', id: caller.keyId, policy: (await override(pool.name, { apiKeyId: caller.keyDbId })) ?? pool });
    }
    return out;
  }

  return {
    /**
     * Admits `operationId` (times `items` for batch operations) or throws the 429 of
     * spec 7.1, or the 503 of 7.3 when the store cannot answer: nothing is then done.
     * A signed request's signature is claimed in the same script (401 when replayed).
     */
    async admit(operationId: OperationId, subject: LimitSubject, items = 1): Promise<void> {
      const op = OPERATIONS[operationId];
      const vipTier = subject.caller ? await vipTierOf(subject.caller.rootAccountId) : 0;
      const pool = poolFor(op.pool, vipTier);
      const buckets = await bucketsFor(pool, subject);
      const signature = takeSignature(subject.caller);
      if (buckets.length === 0 && !signature) return;
      const cost = op.cost * items;
      const charges: BucketCharge[] = buckets.map((b) => ({
        key: `rl:${pool.name}:${b.scope}:${b.id}`,
        ...scale(b.policy, cost),
      }));
      let outcome;
      try {
        outcome = await store.chargeBuckets(charges, signature);
      } catch (err) {
        // Whether the script claimed the signature is unknown: it is claimed again on the
        // way out (falling back to this process while the store is away).
        if (signature) signature.claimed = false;
        throw errors.RATE_LIMIT_AUTHORITY_UNAVAILABLE('the rate-limit authority cannot be reached; nothing was done', {
          extensions: { reason: 'AUTHORITY_UNAVAILABLE' },
          cause: err,
        });
      }
      if (outcome.admitted) return;
      if ('replayed' in outcome) throw replayedRequest();
      const rejected = buckets[outcome.rejectedIndex] as (typeof buckets)[number];
      throw quotaExceeded(operationId, pool.name, rejected, outcome);
    },

    /** GET /v1/rate-limits: the public trading catalog (spec 4.9, 2.16). */
    getRateLimitConfig() {
      return { effectiveFrom: TRADING_EFFECTIVE_FROM, policyVersion: TRADING_POLICY_VERSION, rules: tradingCatalog() };
    },

    /** GET /v1/trading/rate-limits: the policies that apply to this caller and account. */
    async getTradingRateLimits(caller: Caller, input: { subaccountId?: string }) {
      requirePermission(caller, 'READ');
      const account = await resolveAccount(db, caller, input.subaccountId);
      const vipTier = await vipTierOf(caller.rootAccountId);
      const rules: { scope: Scope; policyClass: 'PLACE' | 'CANCEL'; source: 'CATALOG' | 'OVERRIDE'; periodMs: number; quotaWeight: number; burstWeight: number }[] = [];
      for (const name of ['TRADING_PLACE', 'TRADING_CANCEL'] as const) {
        const pool = tradingPool(name, vipTier);
        for (const b of await bucketsFor(pool, { caller, account })) {
          rules.push({
            scope: b.scope,
            policyClass: name === 'TRADING_PLACE' ? 'PLACE' : 'CANCEL',
            source: b.policy === pool ? 'CATALOG' : 'OVERRIDE',
            periodMs: b.policy.periodMs,
            quotaWeight: b.policy.quota,
            burstWeight: b.policy.burst,
          });
        }
      }
      return { policyVersion: TRADING_POLICY_VERSION, effectiveFrom: TRADING_EFFECTIVE_FROM, vipTier, accountId: account.publicId, rules };
    },

    /** Forgets cached tiers and overrides (after an operator changes them). */
    invalidate() {
      cache.clear();
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/** The 429 of spec 7.1, naming the bucket that ran out. */
function quotaExceeded(operationId: OperationId, policyClass: PoolName, rejected: { scope: Scope; policy: BucketPolicy }, outcome: { remaining: number; retryAfterUs: number }) {
  const retryAfterMs = Math.ceil(outcome.retryAfterUs / 1000);
  const retryAfterSec = Math.ceil(retryAfterMs / 1000);
  return errors.RATE_LIMIT_EXCEEDED(`${policyClass} quota exhausted for ${rejected.scope}; retry in ${retryAfterMs} ms`, {
    headers: {
      'RateLimit-Limit': String(rejected.policy.burst),
      'RateLimit-Remaining': String(outcome.remaining),
      'RateLimit-Reset': String(retryAfterSec),
      'Retry-After': String(retryAfterSec),
      'X-Service-RateLimit-Policy-Version': POLICY_VERSION,
    },
    extensions: {
      rate_limit: {
        reason: 'QUOTA_EXCEEDED',
        limit: String(rejected.policy.burst),
        remaining: String(outcome.remaining),
        retry_after_ms: String(retryAfterMs),
        policy_version: POLICY_VERSION,
        operation_id: operationId,
        policy_class: policyClass,
        scope: rejected.scope,
        refill_model: 'CONTINUOUS',
      },
    },
  });
}
