/**
 * What the rest of the service may use of trading: the services built on the engine,
 * the engine's public interface, and the presenters and input shapes the transports
 * render and parse. Everything else in this folder is the engine's parts.
 */
export { createOrdersService, tradingOperations, type OrdersService } from './orders.ts';
export type { TradingEngine } from './engine.ts';
export type { QuarantinedEntry, ReapplyOutcome } from './projector.ts';
export type { TriggerLike } from './views.ts';
export { EngineOwnership, type EngineOwner } from './ownership.ts';
export { ensureSystemAccounts } from './systemAccounts.ts';
export type { CreateOrderInput } from './orderInput.ts';
export type { BalanceEventPayload, PublicTradePayload, TradingTopics } from './streams.ts';
export { TRADING_LOCAL_TOPICS } from './streams.ts';
export { type OrderLike, type RiskLegView, type TradeLike } from './views.ts';
/** GraphQL's Fill still takes its presenter under its former name until it becomes a Prisma type (issue 28). */
export type { CreateTriggerInput } from './triggerInput.ts';
export { OPEN_WITHDRAW_STATUSES } from './withdrawals.ts';
export { READ_AGAIN, type FlowMove } from './flowJobs.ts';

/** The request schemas of the trading operations (`<op>.schema.ts`), which both transports parse with. */
export { BATCH_CANCEL_MAX, batchCancelOrdersBody } from './commands/batchCancelOrders.schema.ts';
export { cancelAllAfterBody } from './commands/cancelAllAfter.schema.ts';
export { cancelAllOrdersBody } from './commands/cancelAllOrders.schema.ts';
export { cancelAllTriggersBody } from './commands/cancelAllTriggers.schema.ts';
export { cancelOrderBody } from './commands/cancelOrder.schema.ts';
export { cancelTriggerBody } from './commands/cancelTrigger.schema.ts';
export { createOrderBody } from './commands/createOrder.schema.ts';
export { createTriggerBody } from './commands/createTrigger.schema.ts';
export { modifyOrderBody } from './commands/modifyOrder.schema.ts';
export { modifyTriggerBody } from './commands/modifyTrigger.schema.ts';
export { pauseTriggerBody } from './commands/pauseTrigger.schema.ts';
export { replaceOrderBody } from './commands/replaceOrder.schema.ts';
export { resumeTriggerBody } from './commands/resumeTrigger.schema.ts';
export { setAttachedRiskBody } from './commands/setAttachedRisk.schema.ts';
export { getOpenOrdersQuery } from './queries/getOpenOrders.schema.ts';
export { getOrderByClientOrderIdParams, getOrderByClientOrderIdQuery, getOrderParams, getOrderQuery } from './queries/getOrder.schema.ts';
export { getOrderBookQuery, ORDER_BOOK_DEPTH_DEFAULT } from './queries/getOrderBook.schema.ts';
export { getPublicTradesQuery, PUBLIC_TRADES_LIMIT_DEFAULT } from './queries/getPublicTrades.schema.ts';
export { getTriggerParams, getTriggerQuery } from './queries/getTrigger.schema.ts';
export { getUserTradesQuery } from './queries/getUserTrades.schema.ts';
export { listTriggerEventsParams, listTriggerEventsQuery } from './queries/listTriggerEvents.schema.ts';
export { listTriggersQuery } from './queries/listTriggers.schema.ts';
