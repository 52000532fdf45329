import type { presentTransfer } from '../../../../presenters/transfer.ts';
import { builder } from '../../builder.ts';

export const TransferParty = builder.objectRef<ReturnType<typeof presentTransfer>['source']>('TransferParty').implement({
  fields: (t) => ({
    accountId: t.exposeString('accountId', { description: 'Empty unless it is one of the caller’s own accounts' }),
    address: t.exposeString('address', { description: 'Empty when none' }),
    chainId: t.exposeInt('chainId', { description: '0 when none' }),
    kind: t.exposeString('kind'),
  }),
});
