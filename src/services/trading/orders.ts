import type { Caller } from '../../auth/caller.ts';
import { requirePermission, resolveAccount } from '../access.ts';
import type { PageTokens } from '../pageTokens.ts';
import type { RateLimiter } from '../rateLimits.ts';
import { batchCancelOrders } from './commands/batchCancelOrders.ts';
import { cancelAllAfter } from './commands/cancelAllAfter.ts';
import { cancelAllOrders } from './commands/cancelAllOrders.ts';
import { cancelAllTriggers } from './commands/cancelAllTriggers.ts';
import { cancelOrder } from './commands/cancelOrder.ts';
import { createOrder } from './commands/createOrder.ts';
import { cancelTrigger } from './commands/cancelTrigger.ts';
import { createTrigger } from './commands/createTrigger.ts';
import { pauseTrigger } from './commands/pauseTrigger.ts';
import { resumeTrigger } from './commands/resumeTrigger.ts';
import { fireDeadManSwitches } from './commands/fireDeadManSwitches.ts';
import { modifyOrder } from './commands/modifyOrder.ts';
import { modifyTrigger } from './commands/modifyTrigger.ts';
import { setAttachedRisk } from './commands/setAttachedRisk.ts';
import { replaceOrder } from './commands/replaceOrder.ts';
import { marketOf, type TradingContext } from './context.ts';
import { TradingEngine, type EngineDeps } from './engine.ts';
import { getOpenOrders } from './queries/getOpenOrders.ts';
import { getOrder } from './queries/getOrder.ts';
import { getOrderBook } from './queries/getOrderBook.ts';
import { getPublicTrades } from './queries/getPublicTrades.ts';
import { getUserTrades } from './queries/getUserTrades.ts';
import { getTrigger } from './queries/getTrigger.ts';
import { getSpotConfig } from './queries/getSpotConfig.ts';
import { listTriggerEvents } from './queries/listTriggerEvents.ts';
import { listTriggers } from './queries/listTriggers.ts';
import { orderPublicIds } from './queries/orderPublicIds.ts';
import { streamOrigins } from './queries/streamOrigins.ts';
import type { MarketStream, PrivateStream } from './streams.ts';

export { CLIENT_ORDER_ID_RETENTION_MS } from './engine.ts';

export interface OrdersDeps extends EngineDeps {
  limiter: RateLimiter;
  pageTokens: PageTokens;
}

type Args<F> = F extends (ctx: TradingContext, ...args: infer A) => unknown ? A : never;

/**
 * Trading's operations (spec 2.7, 2.10, 4.5, 4.6) keyed by their operationId: each the
 * command or query of the same name (commands/, queries/), but a lookup by client order id,
 * which is getOrder's. Building the table only closes over the context, so the operation
 * names can be read without an engine.
 */
export function tradingOperations(ctx: TradingContext) {
  return {
    getSpotConfig: () => getSpotConfig(ctx),
    createOrder: (...a: Args<typeof createOrder>) => createOrder(ctx, ...a),
    replaceOrder: (...a: Args<typeof replaceOrder>) => replaceOrder(ctx, ...a),
    modifyOrder: (...a: Args<typeof modifyOrder>) => modifyOrder(ctx, ...a),
    cancelOrder: (...a: Args<typeof cancelOrder>) => cancelOrder(ctx, ...a),
    cancelAllOrders: (...a: Args<typeof cancelAllOrders>) => cancelAllOrders(ctx, ...a),
    batchCancelOrders: (...a: Args<typeof batchCancelOrders>) => batchCancelOrders(ctx, ...a),
    cancelAllAfter: (...a: Args<typeof cancelAllAfter>) => cancelAllAfter(ctx, ...a),
    getOrder: (...a: Args<typeof getOrder>) => getOrder(ctx, ...a),
    getOrderByClientOrderId: (caller: Caller, input: { clientOrderId: string; subaccountId?: string }) => getOrder(ctx, caller, input),
    getOpenOrders: (...a: Args<typeof getOpenOrders>) => getOpenOrders(ctx, ...a),
    getUserTrades: (...a: Args<typeof getUserTrades>) => getUserTrades(ctx, ...a),
    getOrderBook: (...a: Args<typeof getOrderBook>) => getOrderBook(ctx, ...a),
    getPublicTrades: (...a: Args<typeof getPublicTrades>) => getPublicTrades(ctx, ...a),
    setAttachedRisk: (...a: Args<typeof setAttachedRisk>) => setAttachedRisk(ctx, ...a),
    createTrigger: (...a: Args<typeof createTrigger>) => createTrigger(ctx, ...a),
    cancelTrigger: (...a: Args<typeof cancelTrigger>) => cancelTrigger(ctx, ...a),
    cancelAllTriggers: (...a: Args<typeof cancelAllTriggers>) => cancelAllTriggers(ctx, ...a),
    pauseTrigger: (...a: Args<typeof pauseTrigger>) => pauseTrigger(ctx, ...a),
    resumeTrigger: (...a: Args<typeof resumeTrigger>) => resumeTrigger(ctx, ...a),
    modifyTrigger: (...a: Args<typeof modifyTrigger>) => modifyTrigger(ctx, ...a),
    getTrigger: (...a: Args<typeof getTrigger>) => getTrigger(ctx, ...a),
    listTriggers: (...a: Args<typeof listTriggers>) => listTriggers(ctx, ...a),
    listTriggerEvents: (...a: Args<typeof listTriggerEvents>) => listTriggerEvents(ctx, ...a),
  };
}

/** Trading as the transports call it: its operations over one TradingEngine, and its streams. */
export function createOrdersService(deps: OrdersDeps) {
  const engine = new TradingEngine(deps);
  const ctx: TradingContext = { engine, db: deps.db, clock: deps.clock, markets: deps.markets, limiter: deps.limiter, pageTokens: deps.pageTokens };
  return {
    engine,
    ...tradingOperations(ctx),
    fireDeadManSwitches: () => fireDeadManSwitches(ctx),
    /** An order event of the `orders` stream with its origin's public ids (as REST's orders). */
    withOrigin: streamOrigins(ctx),
    orderPublicIds: (ids: readonly bigint[]) => orderPublicIds(ctx, ids),

    /**
     * The caller's order versions, fills, trigger events or balances, published after commit (GraphQL subscriptions).
     * With `after` (an event's sequence), every later event the journal holds comes first.
     */
    async subscribe<S extends PrivateStream>(caller: Caller, stream: S, subaccountId: string | undefined, after?: bigint) {
      requirePermission(caller, 'READ');
      const account = await resolveAccount(deps.db, caller, subaccountId);
      return engine.subscribe(stream, account.publicId, after);
    },

    /** Public market streams: order-book deltas and trades of one symbol. */
    subscribeMarket: <S extends MarketStream>(symbol: string, stream: S) => engine.subscribeMarket(marketOf(ctx, symbol, 'symbol'), stream),
  };
}

export type OrdersService = ReturnType<typeof createOrdersService>;
