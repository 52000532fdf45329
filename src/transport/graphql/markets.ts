import type { Market } from '../../services/markets.ts';
import type { GraphQLContext } from './context.ts';

/** The market of a row the service answered: its symbol was checked when the row was made, so it is listed. */
export const marketOf = (ctx: GraphQLContext, row: { symbolId: number }): Market => ctx.services.markets.marketById(row.symbolId) as Market;
