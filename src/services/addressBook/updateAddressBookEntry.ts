import type { Caller } from '../../auth/caller.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { normaliseExternalDestination } from '../../domain/networks.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { findEntry, lockBook, reload, resolveTarget, writeBook } from './book.ts';
import { checkLabel, checkNote, staleRevision } from './checks.ts';
import type { AddressBookContext } from './context.ts';
import { entryView, type ExternalDestination } from './views.ts';

export interface UpdateEntryInput {
  subaccountId?: string;
  entryId: string;
  expectedRevision: bigint;
  label?: string;
  /** "" clears the note. */
  note?: string;
  external?: ExternalDestination;
  internal?: { accountId: string };
}

/**
 * Conditional on `expectedRevision`: a stale one changes nothing and is 409
 * `CONFLICT_STALE_REVISION`. An update that changes nothing keeps revision and
 * updatedAt as they are.
 */
export async function updateAddressBookEntry(ctx: AddressBookContext, caller: Caller, input: UpdateEntryInput) {
  const { book, scope } = await writeBook(ctx, caller, input.subaccountId);
  const label = input.label === undefined ? undefined : checkLabel(input.label);
  const note = input.note === undefined ? undefined : checkNote(input.note);
  const external = input.external === undefined ? undefined : normaliseExternalDestination(input.external);

  return ctx.db.$transaction(async (tx) => {
    await lockBook(tx, book);
    const current = await findEntry(tx, book, input.entryId);
    if (current.revision !== input.expectedRevision) throw staleRevision(current.revision, input.expectedRevision);
    if (external && current.kind !== 'EXTERNAL_CHAIN') {
      throw invalidArgument('external', `cannot be set on a ${current.kind} entry`, 'kind-mismatch');
    }
    if (input.internal && current.kind !== 'INTERNAL_ACCOUNT') {
      throw invalidArgument('internal', `cannot be set on a ${current.kind} entry`, 'kind-mismatch');
    }
    const internalAccountId = input.internal ? await resolveTarget(tx, input.internal.accountId) : undefined;

    const data: Prisma.AddressBookEntryUncheckedUpdateManyInput = {};
    if (label !== undefined && label !== current.label) data.label = label;
    if (note !== undefined && note !== current.note) data.note = note;
    if (external && (external.address !== current.externalAddress || external.registryChainId !== current.externalRegistryChainId)) {
      data.externalAddress = external.address;
      data.externalRegistryChainId = external.registryChainId;
    }
    if (internalAccountId !== undefined && internalAccountId !== current.internalAccountId) {
      data.internalAccountId = internalAccountId;
    }
    if (Object.keys(data).length === 0) return { entry: entryView(current, scope) };

    const updated = await tx.addressBookEntry.updateMany({
      where: { id: current.id, revision: input.expectedRevision },
      data: { ...data, updatedAt: ctx.clock.now(), revision: { increment: 1 } },
    });
    if (updated.count !== 1) throw staleRevision(current.revision, input.expectedRevision);
    return { entry: await reload(tx, current.id, scope) };
  });
}
