/** The pure matching core: see docs/matching.md. */
export { OrderBook, createMatchingEngine } from './order-book.ts';
export { notionalScale, quoteNotional, maxQtyForBudget, type NotionalScale } from './notional.ts';
export type * from './types.ts';
