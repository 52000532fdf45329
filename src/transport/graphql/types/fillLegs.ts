import type { LedgerTransferLeg } from '../../../generated/prisma/client.ts';
import { builder } from '../builder.ts';

/** The ledger legs that settled a page of fills: what GET /v1/spot/trades answers in `transfers`. */
export type FillLegShape = LedgerTransferLeg;

export const FillLeg = builder.objectRef<FillLegShape>('FillSettlementLeg').implement({
  description: 'One ledger leg of a fill’s settlement, as /v1 lists it beside the trades',
  fields: (t) => ({
    matchId: t.field({ type: 'Int64', description: '0 for a leg of no match', resolve: (l) => l.matchId ?? 0n }),
    symbolId: t.int({ description: '0 for a leg of no market', resolve: (l) => l.symbolId ?? 0 }),
    account: t.exposeString('ledgerAccount', { description: '`FUNDING` or `TRADING`' }),
    asset: t.string({ description: 'The unified asset id', resolve: (l) => String(l.assetId) }),
    isDebit: t.exposeBoolean('isDebit'),
    transferCode: t.exposeString('transferCode'),
    txId: t.string({ resolve: (l) => l.txId ?? '' }),
    timestamp: t.field({ type: 'Int64', description: 'Epoch microseconds', resolve: (l) => l.timestampUs }),
  }),
});
