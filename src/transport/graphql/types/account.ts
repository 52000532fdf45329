import { visibleAccountsWhere } from '../../../services/accounts/index.ts';
import { builder } from '../builder.ts';

const AccountKind = builder.enumType('AccountKind', { values: ['ROOT', 'SUBACCOUNT'] as const });

/** A root account or subaccount, addressed by its public id; invisible to other callers. */
builder.prismaNode('Account', {
  id: { field: 'publicId' },
  // Unknown and invisible ids both resolve to null, so neither can be told apart.
  nullable: true,
  findUnique: (publicId, ctx) => ({ publicId, AND: [visibleAccountsWhere(ctx.caller)] }),
  fields: (t) => ({
    kind: t.field({
      type: AccountKind,
      resolve: (account) => (account.kind === 'SUBACCOUNT' ? 'SUBACCOUNT' : 'ROOT'),
    }),
    label: t.string({ resolve: (account) => account.label ?? '' }),
    smartAccountAddress: t.string({
      description: 'The account\'s smart-account address (its CREATE2 address under the account factory): flows name it, and TO_FUNDING withdrawals may send to it',
      resolve: (account) => account.smartAccountAddress ?? '',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});
