import type { AddressBookScope } from '../../../../services/addressBook/index.ts';
import { builder } from '../../builder.ts';

const ScopeType = builder.enumType('AddressBookScopeType', { values: ['ROOT', 'SUBACCOUNT'] as const });

export const Scope = builder.objectRef<AddressBookScope>('AddressBookScope').implement({
  description: 'The book an entry or tag belongs to (spec 2.2)',
  fields: (t) => ({
    scopeType: t.field({ type: ScopeType, resolve: (s) => s.scopeType }),
    rootAccountId: t.exposeString('rootAccountId'),
    subaccountId: t.exposeString('subaccountId', { description: 'Empty for root books' }),
  }),
});
