// The operations' request schemas, the ones /v1 takes its route schemas from.
import * as schemas from '../../../../services/trading/index.ts';
import { builder } from '../../builder.ts';
import { callerOf, connectionFromPage, defined } from '../../connections.ts';
import { guardedStream } from '../../guardedStream.ts';
import { selects } from '../../selects.ts';
import { parseArgs } from '../../validate.ts';
import { FillLeg, type FillLegShape } from '../fillLegs.ts';
import { ViewerRef } from '../viewer.ts';
import { Side } from './enums.ts';
import { FILL_SELECT, fillRow, fillShape, sequenceOf } from './fillRows.ts';
import { Lineage } from './lineage.ts';
import { SEQUENCE_DESCRIPTION } from './shapes.ts';

type FillShape = ReturnType<typeof fillShape>;
/** The fill fields that are strings of the /v1 shape as they are. */
type TextField = { [K in keyof FillShape]-?: FillShape[K] extends string ? K : never }[keyof FillShape];

/**
 * A fill is its trade row (the projected trade history), rendered through its /v1 shape
 * (presenters/fill.ts), made once per row. A subscription event is the engine's trade as the
 * row's columns, with its journal sequence; a stored fill has none.
 */
export const Fill = builder.prismaObject('Trade', {
  name: 'Fill',
  description: 'Spec 2.10: one fill of one of the caller’s orders',
  select: FILL_SELECT,
  findUnique: (f) => ({ symbolId_matchId_isMaker: { symbolId: f.symbolId, matchId: f.matchId, isMaker: f.isMaker } }),
  fields: (t) => {
    const text = (field: TextField, description?: string) => t.string({ ...(description ? { description } : {}), resolve: (row, _args, ctx) => fillShape(row, ctx)[field] });
    return {
      matchId: t.field({ type: 'Int64', resolve: (row, _args, ctx) => fillShape(row, ctx).matchId }),
      orderId: text('orderId'),
      lineage: t.field({ type: Lineage, resolve: (row, _args, ctx) => fillShape(row, ctx).lineage }),
      symbol: text('symbol'),
      side: text('side'),
      price: text('price'),
      qty: text('qty'),
      isMaker: t.boolean({ resolve: (row, _args, ctx) => fillShape(row, ctx).isMaker }),
      fee: text('fee'),
      feeAsset: text('feeAsset'),
      feeIsRebate: t.boolean({ resolve: (row, _args, ctx) => fillShape(row, ctx).feeIsRebate }),
      referralShare: text('referralShare', 'The part of the fee paid to a referrer, in feeAsset (decimal string, 18 decimals)'),
      executedAt: text('executedAt'),
      sequence: t.field({ type: 'Int64', nullable: true, description: SEQUENCE_DESCRIPTION, resolve: (row) => sequenceOf(row) }),
    };
  },
});

builder.objectField(ViewerRef, 'fills', (t) =>
  t.connection(
    {
      type: Fill,
      args: {
        subaccountId: t.arg.string(),
        symbol: t.arg.string(),
        orderId: t.arg.string(),
        lineageId: t.arg.string(),
        throughGeneration: t.arg.int({ description: 'With lineageId: only the fills of its generations up to this one' }),
        afterMatchId: t.arg({ type: 'Int64', description: 'With symbol: only the fills of later matches' }),
        side: t.arg({ type: Side }),
        startTime: t.arg({ type: 'Int64', description: 'Epoch nanoseconds, inclusive' }),
        endTime: t.arg({ type: 'Int64', description: 'Epoch nanoseconds, exclusive' }),
      },
      resolve: async (caller, { first, after, last, before, ...filters }, ctx, info) => {
        parseArgs(schemas.getUserTradesQuery, filters, 'query');
        // The legs are read, as /v1's includeTransfers, only when the query selects them.
        let transfers: FillLegShape[] = [];
        const connection = await connectionFromPage({ first, after, last, before }, 100, async (page) => {
          const r = await ctx.services.orders.getUserTrades(caller, { ...page, ...defined(filters), ...(selects(info, 'transfers') ? { includeTransfers: true } : {}) });
          transfers = r.transfers;
          return { items: r.trades.map((x) => fillRow(x.trade, x.orderPublicId)), nextPageToken: r.nextPageToken };
        });
        return { ...connection, transfers };
      },
    },
    {
      fields: (t) => ({
        transfers: t.field({ type: [FillLeg], description: 'The ledger legs that settled this page’s fills (read only when selected)', resolve: (c) => c.transfers }),
      }),
    },
  ),
);

builder.subscriptionField('fills', (t) =>
  t.field({
    type: Fill,
    description: 'The caller’s fills, after they are durable',
    args: { subaccountId: t.arg.string(), after: t.arg({ type: 'Int64', description: 'Resume: first every fill after this sequence, then the live stream' }) },
    subscribe: async (_root, args, ctx) =>
      guardedStream(ctx, callerOf(ctx), await ctx.services.orders.subscribe(callerOf(ctx), 'fills', args.subaccountId ?? undefined, args.after ?? undefined)),
    resolve: (p) => fillRow(p.trade, p.orderPublicId, p.sequence),
  }),
);
