/**
 * What the rest of the service may use of trading: the services built on the engine,
 * the engine's public interface, and the presenters and input shapes the transports
 * render and parse. Everything else in this folder is the engine's parts.
 */
export { createOrdersService, tradingOperations, type OrdersService } from './orders.ts';
export type { TradingEngine } from './engine.ts';
export type { QuarantinedEntry } from './projector.ts';
export { EngineOwnership, type EngineOwner } from './ownership.ts';
export { ensureSystemAccounts } from './systemAccounts.ts';
export type { CreateOrderInput } from './orderInput.ts';
export type { BalanceEventPayload, BookDeltaPayload, FillPayload, OrderEventPayload, PublicTradePayload, TriggerEventPayload } from './streams.ts';
export { attachedRiskView, levelView, orderView, publicTradeView, spotConfigView, spotMarketView, tradeView, triggerEventView, triggerView, type OrderLike } from './views.ts';
export { CLIENT_TRIGGER_ID, type CreateTriggerInput } from './triggerInput.ts';
export { OPEN_WITHDRAW_STATUSES } from './withdrawals.ts';
export { READ_AGAIN, type FlowMove } from './flowJobs.ts';
