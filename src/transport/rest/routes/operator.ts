import { timingSafeEqual, createHash } from 'node:crypto';
import { z } from 'zod';
import type { Services } from '../../../services/index.ts';
import { int32, rfc3339, toRfc3339, uint64 } from '../codec.ts';
import { defineRoute } from '../route.ts';
import { operatorLedgerRoutes } from './ledger.ts';

const POOL = z.enum([
  'AUTH_PUBLIC',
  'ACCOUNT_ADMIN',
  'ACCOUNT_SECURITY',
  'SOCIAL_PROVIDER',
  'DEPOSIT_CREATE',
  'INTERNAL_TRANSFER',
  'WITHDRAW_SUBMIT',
  'WITHDRAW_VALIDATE',
  'GUARD_SIGN',
  'TRADING_PLACE',
  'TRADING_CANCEL',
]);

/** `Authorization: Bearer <OPERATOR_TOKEN>`, compared in constant time. */
export function operatorTokenCheck(token: string) {
  const expected = createHash('sha256').update(`Bearer ${token}`).digest();
  return (authorization: string | undefined) =>
    timingSafeEqual(createHash('sha256').update(authorization ?? '').digest(), expected);
}

/** The operator API: served only when OPERATOR_TOKEN is set. */
export function operatorRoutes(s: Services) {
  return [...operatorRateLimitRoutes(s), ...operatorLedgerRoutes(s), ...operatorChainRoutes(s), ...operatorProjectionRoutes(s)];
}

/** The trading projection's quarantine (docs/scaling.md, "Quarantine"). */
function operatorProjectionRoutes(s: Services) {
  return [
    defineRoute({
      operationId: 'listQuarantinedEntries',
      method: 'GET',
      url: '/operator/v1/projection/quarantine',
      summary: 'List the trading journal entries the projection parked: those that failed, and those waiting behind them',
      auth: 'operator',
      handler: async () => ({
        entries: (await s.operator.listQuarantinedEntries()).map((e) => ({
          seq: e.seq.toString(),
          error: e.error,
          ...(e.sqlState !== null ? { sqlState: e.sqlState } : {}),
          ...(e.behindSeq !== null ? { behindSeq: e.behindSeq.toString() } : {}),
          parkedAt: toRfc3339(e.parkedAt),
          accounts: e.accounts,
        })),
      }),
    }),
    defineRoute({
      operationId: 'reapplyQuarantinedEntry',
      method: 'POST',
      url: '/operator/v1/projection/quarantine/:seq/reapply',
      summary: 'Project a parked entry and the entries parked behind it, in sequence order, after what made it fail was fixed',
      auth: 'operator',
      params: z.object({ seq: uint64() }),
      handler: async ({ params }) => {
        const outcome = await s.operator.reapplyQuarantinedEntry(params.seq);
        return {
          reapplied: outcome.reapplied.map(String),
          ...(outcome.failed ? { failed: { seq: outcome.failed.seq.toString(), error: outcome.failed.error, ...(outcome.failed.sqlState !== null ? { sqlState: outcome.failed.sqlState } : {}) } } : {}),
        };
      },
    }),
  ];
}

/** The simulated chain's controls (docs/chain.md): what a real chain's watcher would report. */
function operatorChainRoutes(s: Services) {
  return [
    defineRoute({
      operationId: 'observeDeposit',
      method: 'POST',
      url: '/operator/v1/chain/deposits',
      summary: 'Simulated chain: a transfer to a deposit address was observed (starts or repeats its deposit flow)',
      auth: 'operator',
      body: z.strictObject({
        chainId: int32(),
        address: z.string().min(1).max(128),
        asset: z.string().min(1).max(16),
        amount: z.string().max(64),
        txHash: z.string().min(1).max(128),
        logIndex: int32().optional(),
        fromAddress: z.string().max(128).optional(),
      }),
      handler: async ({ body }) => ({ flow: await s.chain.observeDeposit(body) }),
    }),
    defineRoute({
      operationId: 'dropDeposit',
      method: 'POST',
      url: '/operator/v1/chain/deposits/drop',
      summary: 'Simulated chain: a deposit\'s transaction left the chain before it was credited',
      auth: 'operator',
      body: z.strictObject({ flowId: z.string().min(1).max(64) }),
      handler: async ({ body }) => ({ flow: await s.chain.dropDeposit(body) }),
    }),
    defineRoute({
      operationId: 'rejectWithdrawal',
      method: 'POST',
      url: '/operator/v1/chain/withdrawals/reject',
      summary: 'Simulated chain: the validators reject a withdrawal awaiting validation (its hold is released)',
      auth: 'operator',
      body: z.strictObject({ flowId: z.string().min(1).max(64) }),
      handler: async ({ body }) => ({ flow: await s.chain.rejectWithdrawal(body) }),
    }),
    defineRoute({
      operationId: 'dropWithdrawal',
      method: 'POST',
      url: '/operator/v1/chain/withdrawals/drop',
      summary: 'Simulated chain: a broadcast withdrawal\'s transaction left the chain before it confirmed (its hold is released)',
      auth: 'operator',
      body: z.strictObject({ flowId: z.string().min(1).max(64) }),
      handler: async ({ body }) => ({ flow: await s.chain.dropWithdrawal(body) }),
    }),
  ];
}

function operatorRateLimitRoutes(s: Services) {
  const target = { accountId: z.string().max(64).optional(), apiKeyId: z.string().max(64).optional() };
  return [
    defineRoute({
      operationId: 'putRateLimitOverride',
      method: 'PUT',
      url: '/operator/v1/rate-limit-overrides',
      summary: 'Set the rate-limit policy of one account or API key for one pool',
      auth: 'operator',
      body: z.strictObject({
        pool: POOL,
        ...target,
        quotaWeight: uint64(),
        periodMs: uint64(),
        burstWeight: uint64(),
        expiresAt: rfc3339().optional(),
        reason: z.string().max(256).optional(),
      }),
      handler: async ({ body }) => {
        const r = await s.operator.putRateLimitOverride(body);
        return {
          override: {
            pool: r.pool,
            quotaWeight: r.quotaWeight.toString(),
            periodMs: r.periodMs.toString(),
            burstWeight: r.burstWeight.toString(),
            ...(r.expiresAt ? { expiresAt: toRfc3339(r.expiresAt) } : {}),
          },
        };
      },
    }),
    defineRoute({
      operationId: 'deleteRateLimitOverride',
      method: 'DELETE',
      url: '/operator/v1/rate-limit-overrides',
      summary: 'Return one account or API key to the catalog policy',
      auth: 'operator',
      query: z.strictObject({ pool: POOL, ...target }),
      handler: async ({ query }) => {
        return s.operator.deleteRateLimitOverride(query);
      },
    }),
    defineRoute({
      operationId: 'setVipTier',
      method: 'PUT',
      url: '/operator/v1/accounts/:accountId/vip-tier',
      summary: 'Set a root account’s VIP tier',
      auth: 'operator',
      params: z.object({ accountId: z.string().max(64) }),
      body: z.strictObject({ vipTier: int32() }),
      handler: async ({ params, body }) => {
        return s.operator.setVipTier(params.accountId, body.vipTier);
      },
    }),
    defineRoute({
      operationId: 'checkReferences',
      method: 'GET',
      url: '/operator/v1/consistency/references',
      summary: 'List references of the projected tables that resolve to nothing (none when consistent)',
      auth: 'operator',
      handler: async () => ({ dangling: await s.operator.checkReferences() }),
    }),
  ];
}
