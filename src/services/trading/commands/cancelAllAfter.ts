import type { Caller } from '../../../auth/caller.ts';
import { requirePermission, resolveAccount } from '../../access.ts';
import { marketOf, type TradingContext } from '../context.ts';
import { errors } from '../../../domain/errorCatalogue.ts';
import { invalidArgument } from '../../../domain/errors.ts';
import { textMisfit } from '../../../infra/columnLimits.ts';

/** Spec 3 dead-man switch: 0 disables, 10..120 arms or refreshes; others are refused. */
export async function cancelAllAfter(ctx: TradingContext, caller: Caller, input: { requestId: string; timeoutSec: number; symbol?: string; side?: 'BUY' | 'SELL'; subaccountId?: string }) {
  requirePermission(caller, 'TRADE');
  const account = await resolveAccount(ctx.db, caller, input.subaccountId);
  if (input.requestId.length < 1 || input.requestId.length > 128) throw invalidArgument('requestId', 'must be 1 to 128 characters', 'length');
  // It is journaled, then projected: refused here, before the job, what the table cannot hold as sent.
  const misfit = textMisfit(input.requestId);
  if (misfit) throw invalidArgument('requestId', misfit, 'invalid-character', errors.INVALID_CHARACTER);
  if (input.timeoutSec !== 0 && (input.timeoutSec < 10 || input.timeoutSec > 120)) {
    throw invalidArgument('timeoutSec', 'must be 0 (disable) or 10 to 120 seconds', 'dead-man-timeout');
  }
  const symbolId = input.symbol !== undefined ? marketOf(ctx, input.symbol, 'symbol').symbolId : 0;
  // Every call is applied, a repeated requestId too (it is recorded for tracing): arming,
  // refreshing and disabling are idempotent in effect, and a heartbeat answered from a
  // stored first result would leave the deadline where it was while the client believes
  // it moved.
  await ctx.limiter.admit('trading.cancel_all_after', { caller, account });
  const { row, now, nowNs } = await ctx.engine.setDeadManSwitch({ accountId: account.id, symbolId, side: input.side ?? 'ANY' }, input.timeoutSec, input.requestId);
  return { status: row.status, effectiveTimeoutSec: input.timeoutSec, expiresAtTsNs: row.expiresAtTsNs.toString(), ts: now.toISOString(), tsNs: nowNs.toString() };
}
