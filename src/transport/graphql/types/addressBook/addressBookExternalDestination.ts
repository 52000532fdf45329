import type { ExternalDestination } from '../../../../services/addressBook/index.ts';
import { builder } from '../../builder.ts';

export const External = builder.objectRef<ExternalDestination>('AddressBookExternalDestination').implement({
  fields: (t) => ({
    address: t.exposeString('address', { description: 'EIP-55 checksum form for EVM networks' }),
    registryChainId: t.exposeInt('registryChainId'),
  }),
});

export const ExternalInput = builder.inputType('AddressBookExternalDestinationInput', {
  fields: (t) => ({
    address: t.string({ required: true }),
    registryChainId: t.int({ required: true }),
  }),
});
