import type { Market } from '../../../../services/markets.ts';
// The operations' request schemas, the ones /v1 takes its route schemas from.
import * as schemas from '../../../../services/trading/index.ts';
import { presentFill } from '../../../../presenters/fill.ts';
import { builder } from '../../builder.ts';
import { callerOf, connectionFromPage, defined } from '../../connections.ts';
import { guardedStream } from '../../guardedStream.ts';
import { selects } from '../../selects.ts';
import { parseArgs } from '../../validate.ts';
import { FillLeg, type FillLegShape } from '../fillLegs.ts';
import { ViewerRef } from '../viewer.ts';
import { Side } from './enums.ts';
import { Lineage } from './lineage.ts';
import { SEQUENCE_DESCRIPTION } from './shapes.ts';

type FillShape = ReturnType<typeof presentFill> & { sequence?: bigint };

export const Fill = builder.objectRef<FillShape>('Fill').implement({
  description: 'Spec 2.10: one fill of one of the caller’s orders',
  fields: (t) => ({
    matchId: t.field({ type: 'Int64', resolve: (f) => f.matchId }),
    orderId: t.exposeString('orderId'),
    lineage: t.field({ type: Lineage, resolve: (f) => f.lineage }),
    symbol: t.exposeString('symbol'),
    side: t.exposeString('side'),
    price: t.exposeString('price'),
    qty: t.exposeString('qty'),
    isMaker: t.exposeBoolean('isMaker'),
    fee: t.exposeString('fee'),
    feeAsset: t.exposeString('feeAsset'),
    feeIsRebate: t.exposeBoolean('feeIsRebate'),
    referralShare: t.exposeString('referralShare', { description: 'The part of the fee paid to a referrer, in feeAsset (decimal string, 18 decimals)' }),
    executedAt: t.exposeString('executedAt'),
    sequence: t.field({ type: 'Int64', nullable: true, description: SEQUENCE_DESCRIPTION, resolve: (f) => f.sequence ?? null }),
  }),
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
          return { items: r.trades.map((x) => presentFill(x.trade, ctx.services.markets.marketById(x.trade.symbolId) as Market, x.orderPublicId)), nextPageToken: r.nextPageToken };
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
    resolve: (p, _args, ctx) => ({ ...presentFill(p.trade, ctx.services.markets.market(p.symbol) as Market, p.orderPublicId), sequence: p.sequence }),
  }),
);
