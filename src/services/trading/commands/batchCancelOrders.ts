import type { Caller } from '../../../auth/caller.ts';
import { requirePermission, resolveAccount } from '../../access.ts';
import { cancelOne, type TradingContext } from '../context.ts';
import { ApiError, codes } from '../../../domain/errorCatalogue.ts';
import { invalidArgument } from '../../../domain/errors.ts';
import { once } from '../../idempotency.ts';

/** Spec 4.5 Batch Cancel: `requestId` makes it idempotent; errors are per item (7.5). */
export async function batchCancelOrders(ctx: TradingContext, caller: Caller, input: { requestId: string; subaccountId?: string; items: { orderId?: string; clientOrderId?: string }[] }) {
  requirePermission(caller, 'TRADE');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  if (input.items.length < 1 || input.items.length > 50) throw invalidArgument('items', 'give 1 to 50 items', 'max-items');
  if (input.requestId.length < 1 || input.requestId.length > 128) throw invalidArgument('requestId', 'must be 1 to 128 characters', 'length');
  input.items.forEach((item, i) => {
    if ((item.orderId?.length ?? 0) > 64) throw invalidArgument(`items[${i}].orderId`, 'must be at most 64 characters', 'length');
    if ((item.clientOrderId?.length ?? 0) > 128) throw invalidArgument(`items[${i}].clientOrderId`, 'must be at most 128 characters', 'length');
  });
  let transient = false;
  // Stored idempotency records carry the operation's former name: a batch retried across the rename is still recognised.
  return once(
    { db: ctx.db, clock: ctx.clock },
    { accountId: account.id, operation: 'cancelBatch', key: input.requestId, request: input },
    async () => {
      const admitted: (ApiError | undefined)[] = [];
      for (let i = 0; i < input.items.length; i++) {
        try {
          await ctx.limiter.admit('trading.batch_cancel_item', { caller, account });
          admitted.push(undefined);
        } catch (err) {
          if (err instanceof ApiError && err.code === codes.RATE_LIMIT_EXCEEDED) admitted.push(err);
          else throw err;
        }
      }
      const results = await Promise.all(
        input.items.map(async (item, i) => {
          const echo = item.clientOrderId !== undefined ? { clientOrderId: item.clientOrderId } : {};
          try {
            const quota = admitted[i];
            if (quota) throw quota;
            const r = await cancelOne(ctx, account, item, `items[${i}]`, 'one-or-both');
            return { orderId: r.orderId, ...echo, status: 'ACCEPTED' as const };
          } catch (err) {
            if (!(err instanceof ApiError)) throw err;
            if (err.status === 503) transient = true;
            return { orderId: item.orderId ?? '', ...echo, status: 'REJECTED' as const, code: err.code, error: itemError(err) };
          }
        }),
      );
      const now = ctx.clock.now();
      return {
        acceptedCount: results.filter((r) => r.status === 'ACCEPTED').length,
        rejectedCount: results.filter((r) => r.status === 'REJECTED').length,
        results,
        ts: now.toISOString(),
        tsNs: ctx.clock.nowNs().toString(),
      };
    },
    // An item refused for a moment (503: a commit or the rate-limit authority failed)
    // must be retried with the same requestId, so that answer is not remembered.
    { encode: (v) => v as never, decode: (json) => json as never, keep: () => !transient },
  );
}

/** Spec 7.5: a batch item's error, with the quota fields as JSON numbers. */
function itemError(err: ApiError) {
  const rl = err.extensions.rate_limit as
    | { limit: string; operation_id: string; policy_class: string; policy_version: string; reason: string; refill_model: string; remaining: string; retry_after_ms: string; scope: string }
    | undefined;
  return {
    code: err.code,
    ...(rl
      ? {
          rateLimit: {
            limit: Number(rl.limit),
            operationId: rl.operation_id,
            policyClass: rl.policy_class,
            policyVersion: rl.policy_version,
            reason: rl.reason,
            refillModel: rl.refill_model,
            remaining: Number(rl.remaining),
            retryAfterMs: Number(rl.retry_after_ms),
            scope: rl.scope,
          },
        }
      : {}),
    violations: err.violations,
  };
}
