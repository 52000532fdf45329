import { errors } from '../domain/errorCatalogue.ts';
import { invalidArgument } from '../domain/errors.ts';
import { MAX_VIP_TIER, OVERRIDE_LIMITS, type PoolName } from '../domain/ratelimit/catalog.ts';
import type { Db } from '../infra/database.ts';
import { retryOnUniqueRace } from '../infra/databaseErrors.ts';
import { checkReferences } from './consistency.ts';
import type { TradingEngine } from './trading/index.ts';
import type { RateLimiter } from './rateLimits.ts';

export interface OverrideInput {
  pool: PoolName;
  /** Public id of a root account or subaccount. */
  accountId?: string;
  /** An API key id (`ak_...`). */
  apiKeyId?: string;
  quotaWeight: bigint;
  periodMs: bigint;
  burstWeight: bigint;
  expiresAt?: Date;
  reason?: string;
}

/**
 * Operator actions (the /operator/v1 API, served only with OPERATOR_TOKEN): rate-limit
 * overrides per account or API key, and an account's VIP tier.
 */
export function createOperatorService(deps: { db: Db; limiter: RateLimiter; engine: Pick<TradingEngine, 'quarantined' | 'reapplyQuarantined'> }) {
  const { db, limiter, engine } = deps;

  async function target(input: { accountId?: string; apiKeyId?: string }) {
    if ((input.accountId === undefined) === (input.apiKeyId === undefined)) {
      throw invalidArgument('accountId', 'give exactly one of accountId and apiKeyId', 'one-of');
    }
    if (input.accountId !== undefined) {
      const account = await db.account.findUnique({ where: { publicId: input.accountId }, select: { id: true } });
      if (!account) throw errors.ACCOUNT_NOT_FOUND('account not found');
      return { accountId: account.id };
    }
    const key = await db.apiKey.findUnique({ where: { keyId: input.apiKeyId as string }, select: { id: true } });
    if (!key) throw errors.API_KEY_NOT_FOUND('API key not found');
    return { apiKeyId: key.id };
  }

  return {
    /** Every reference the projected tables hold without a foreign key resolves (docs/scaling.md). */
    checkReferences: () => checkReferences(db),

    /** The parked trading journal entries (docs/scaling.md, "Quarantine"), with the public ids of the accounts each touches. */
    async listQuarantinedEntries() {
      const parked = engine.quarantined;
      const ids = [...new Set(parked.flatMap((e) => e.accountIds))];
      const accounts = await db.account.findMany({ where: { id: { in: ids } }, select: { id: true, publicId: true } });
      const publicIds = new Map(accounts.map((a) => [a.id, a.publicId]));
      return parked.map((e) => ({ ...e, accounts: e.accountIds.map((id) => publicIds.get(id)).filter((p): p is string => p !== undefined) }));
    },

    /** Projects a parked entry and those behind it, once what made it fail is fixed. */
    reapplyQuarantinedEntry: (seq: bigint) => engine.reapplyQuarantined(seq),

    async putRateLimitOverride(input: OverrideInput) {
      for (const field of ['quotaWeight', 'periodMs', 'burstWeight'] as const) {
        const max = OVERRIDE_LIMITS[field];
        if (input[field] < 1n || input[field] > BigInt(max)) throw invalidArgument(field, `must be 1 to ${max}`, 'range');
      }
      if (input.burstWeight * input.periodMs > BigInt(OVERRIDE_LIMITS.burstTimesPeriodMs)) {
        throw invalidArgument('burstWeight', `burstWeight x periodMs must be at most ${OVERRIDE_LIMITS.burstTimesPeriodMs}`, 'range');
      }
      const where = await target(input);
      const data = {
        quotaWeight: input.quotaWeight,
        periodMs: input.periodMs,
        burstWeight: input.burstWeight,
        expiresAt: input.expiresAt ?? null,
        reason: input.reason ?? null,
        createdBy: 'operator',
      };
      const row = await retryOnUniqueRace(async () => {
        const existing = await db.rateLimitOverride.findFirst({ where: { pool: input.pool, ...where } });
        return existing
          ? db.rateLimitOverride.update({ where: { id: existing.id }, data })
          : db.rateLimitOverride.create({ data: { pool: input.pool, ...where, ...data } });
      });
      limiter.invalidate();
      return { pool: row.pool, quotaWeight: row.quotaWeight, periodMs: row.periodMs, burstWeight: row.burstWeight, expiresAt: row.expiresAt };
    },

    async deleteRateLimitOverride(input: { pool: PoolName; accountId?: string; apiKeyId?: string }) {
      const where = await target(input);
      await db.rateLimitOverride.deleteMany({ where: { pool: input.pool, ...where } });
      limiter.invalidate();
      return {};
    },

    async setVipTier(accountId: string, vipTier: number) {
      if (!Number.isInteger(vipTier) || vipTier < 0 || vipTier > MAX_VIP_TIER) {
        throw invalidArgument('vipTier', `must be 0 to ${MAX_VIP_TIER}`, 'range');
      }
      const updated = await db.account.updateMany({ where: { publicId: accountId, kind: 'ROOT' }, data: { vipTier } });
      if (updated.count !== 1) throw errors.ACCOUNT_NOT_FOUND('root account not found');
      limiter.invalidate();
      return { accountId, vipTier };
    },
  };
}

export type OperatorService = ReturnType<typeof createOperatorService>;
