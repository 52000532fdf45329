import { timingSafeEqual, createHash } from 'node:crypto';
import { z } from 'zod';
import { POOL_NAMES } from '../../../domain/ratelimit/catalog.ts';
import { flowEnvelopeSchema, presentFlow } from '../../../presenters/flow.ts';
import { presentQuarantinedEntries, presentReapplyOutcome, quarantinedEntriesSchema, reapplyOutcomeSchema } from '../../../presenters/quarantine.ts';
import { presentRateLimitOverride, rateLimitOverrideDeletedSchema, rateLimitOverrideSchema } from '../../../presenters/rateLimitOverride.ts';
import { presentReferenceCheck, referenceCheckSchema } from '../../../presenters/referenceCheck.ts';
import { presentVipTier, vipTierSchema } from '../../../presenters/vipTier.ts';
import type { Services } from '../../../services/index.ts';
import { int32, rfc3339, uint64 } from '../codec.ts';
import { defineRoute } from '../route.ts';
import { operatorLedgerRoutes } from './ledger.ts';

const POOL = z.enum(POOL_NAMES);

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
      response: quarantinedEntriesSchema,
      handler: async () => presentQuarantinedEntries(await s.operator.listQuarantinedEntries()),
    }),
    defineRoute({
      operationId: 'reapplyQuarantinedEntry',
      method: 'POST',
      url: '/operator/v1/projection/quarantine/:seq/reapply',
      summary: 'Project a parked entry and the entries parked behind it, in sequence order, after what made it fail was fixed',
      auth: 'operator',
      params: z.object({ seq: uint64() }),
      response: reapplyOutcomeSchema,
      handler: async ({ params }) => presentReapplyOutcome(await s.operator.reapplyQuarantinedEntry(params.seq)),
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
      response: flowEnvelopeSchema,
      handler: async ({ body }) => ({ flow: presentFlow(await s.chain.observeDeposit(body)) }),
    }),
    defineRoute({
      operationId: 'dropDeposit',
      method: 'POST',
      url: '/operator/v1/chain/deposits/drop',
      summary: 'Simulated chain: a deposit\'s transaction left the chain before it was credited',
      auth: 'operator',
      body: z.strictObject({ flowId: z.string().min(1).max(64) }),
      response: flowEnvelopeSchema,
      handler: async ({ body }) => ({ flow: presentFlow(await s.chain.dropDeposit(body)) }),
    }),
    defineRoute({
      operationId: 'rejectWithdrawal',
      method: 'POST',
      url: '/operator/v1/chain/withdrawals/reject',
      summary: 'Simulated chain: the validators reject a withdrawal awaiting validation (its hold is released)',
      auth: 'operator',
      body: z.strictObject({ flowId: z.string().min(1).max(64) }),
      response: flowEnvelopeSchema,
      handler: async ({ body }) => ({ flow: presentFlow(await s.chain.rejectWithdrawal(body)) }),
    }),
    defineRoute({
      operationId: 'dropWithdrawal',
      method: 'POST',
      url: '/operator/v1/chain/withdrawals/drop',
      summary: 'Simulated chain: a broadcast withdrawal\'s transaction left the chain before it confirmed (its hold is released)',
      auth: 'operator',
      body: z.strictObject({ flowId: z.string().min(1).max(64) }),
      response: flowEnvelopeSchema,
      handler: async ({ body }) => ({ flow: presentFlow(await s.chain.dropWithdrawal(body)) }),
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
      response: rateLimitOverrideSchema,
      handler: async ({ body }) => presentRateLimitOverride(await s.operator.putRateLimitOverride(body)),
    }),
    defineRoute({
      operationId: 'deleteRateLimitOverride',
      method: 'DELETE',
      url: '/operator/v1/rate-limit-overrides',
      summary: 'Return one account or API key to the catalog policy',
      auth: 'operator',
      query: z.strictObject({ pool: POOL, ...target }),
      response: rateLimitOverrideDeletedSchema,
      handler: async ({ query }) => s.operator.deleteRateLimitOverride(query),
    }),
    defineRoute({
      operationId: 'setVipTier',
      method: 'PUT',
      url: '/operator/v1/accounts/:accountId/vip-tier',
      summary: 'Set a root account’s VIP tier',
      auth: 'operator',
      params: z.object({ accountId: z.string().max(64) }),
      body: z.strictObject({ vipTier: int32() }),
      response: vipTierSchema,
      handler: async ({ params, body }) => presentVipTier(await s.operator.setVipTier(params.accountId, body.vipTier)),
    }),
    defineRoute({
      operationId: 'checkReferences',
      method: 'GET',
      url: '/operator/v1/consistency/references',
      summary: 'List references of the projected tables that resolve to nothing (none when consistent)',
      auth: 'operator',
      response: referenceCheckSchema,
      handler: async () => presentReferenceCheck(await s.operator.checkReferences()),
    }),
  ];
}
