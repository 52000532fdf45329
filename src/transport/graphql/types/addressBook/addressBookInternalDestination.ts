import type { InternalDestination } from '../../../../services/addressBook/index.ts';
import { builder } from '../../builder.ts';

const AccountKind = builder.enumType('AddressBookAccountKind', {
  description: 'Whether an internal destination is a root account or a subaccount',
  values: ['ROOT', 'SUBACCOUNT'] as const,
});

export const Internal = builder.objectRef<InternalDestination>('AddressBookInternalDestination').implement({
  description: 'An account of the platform (any user) as a destination',
  fields: (t) => ({
    rootAccountId: t.exposeString('rootAccountId', { description: 'Root account that owns the target' }),
    accountId: t.exposeString('accountId', { description: 'The target root account or subaccount' }),
    accountKind: t.field({ type: AccountKind, resolve: (d) => d.accountKind }),
    smartAccountAddress: t.exposeString('smartAccountAddress', { description: 'Empty when none' }),
    username: t.exposeString('username', { description: "The target root account's username; empty when none" }),
    subaccountLabel: t.exposeString('subaccountLabel', { description: 'Empty for a root account' }),
  }),
});

export const InternalInput = builder.inputType('AddressBookInternalDestinationInput', {
  fields: (t) => ({
    accountId: t.string({ required: true, description: 'A root account or subaccount id of any user' }),
  }),
});
