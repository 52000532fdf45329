import { errors } from '../../domain/errorCatalogue.ts';
import { invalidArgument } from '../../domain/errors.ts';
import type { Clock } from '../../infra/clock.ts';
import type { Db } from '../../infra/database.ts';
import type { AccountRef } from '../access.ts';
import type { Market, MarketCatalog } from '../markets.ts';
import type { PageTokens } from '../pageTokens.ts';
import type { RateLimiter } from '../rateLimits.ts';
import type { TradingEngine } from './engine.ts';
import { orderNotFound } from './errors.ts';

/** What every trading command and query works with: the engine through its interface, and the shared services. */
export interface TradingContext {
  engine: TradingEngine;
  db: Db;
  clock: Clock;
  markets: MarketCatalog;
  limiter: RateLimiter;
  pageTokens: PageTokens;
}

/** How an order may be named: by exactly one id, or (batch cancel items) by one or both. */
export type Ids = 'one' | 'one-or-both';

export function marketOf(ctx: TradingContext, symbol: string, fieldPath = 'order.symbol'): Market {
  const m = ctx.markets.market(symbol);
  if (!m) throw invalidArgument(fieldPath, `is not a listed symbol`, 'symbol', errors.UNKNOWN_SYMBOL);
  return m;
}

/**
 * The account's order named by `orderId` or `clientOrderId` (the latest order to carry
 * it). Batch cancel items may give both (spec 4.5 "and/or"): then they must name the
 * same order.
 */
export async function findOwnOrder(ctx: TradingContext, account: AccountRef, input: { orderId?: string; clientOrderId?: string }, prefix = '', ids: Ids = 'one') {
  const both = input.orderId !== undefined && input.clientOrderId !== undefined;
  if ((input.orderId === undefined && input.clientOrderId === undefined) || (both && ids === 'one')) {
    const rule = ids === 'one' ? 'give exactly one of orderId and clientOrderId' : 'give orderId, clientOrderId or both';
    throw invalidArgument(prefix ? `${prefix}.orderId` : 'orderId', rule, 'one-of');
  }
  await ctx.engine.readable(account.id);
  const row =
    input.orderId !== undefined
      ? await ctx.db.order.findFirst({ where: { publicId: input.orderId, accountId: account.id, ...(both ? { clientOrderId: input.clientOrderId as string } : {}) } })
      : await ctx.db.order.findFirst({ where: { clientOrderId: input.clientOrderId as string, accountId: account.id }, orderBy: { id: 'desc' } });
  if (!row) throw orderNotFound('order not found');
  return row;
}

/** Cancels one order the account names (single and batch cancel). */
export async function cancelOne(ctx: TradingContext, account: AccountRef, input: { orderId?: string; clientOrderId?: string }, fieldPath: string, ids: Ids = 'one', hinted?: Market) {
  const row = await findOwnOrder(ctx, account, input, fieldPath, ids);
  if (hinted && hinted.symbolId !== row.symbolId) throw orderNotFound(`no such order in ${hinted.symbol}`);
  return ctx.engine.cancel(account, ctx.markets.marketById(row.symbolId) as Market, row);
}
