import type { Caller } from '../../auth/caller.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { newPublicId } from '../../domain/ids.ts';
import { normaliseExternalDestination } from '../../domain/networks.ts';
import type { AddressBookEntryKind } from '../../generated/prisma/client.ts';
import { findTag, lockBook, reload, resolveTarget, writeBook } from './book.ts';
import { checkLabel, checkNote } from './checks.ts';
import type { AddressBookContext } from './context.ts';
import { MAX_ENTRIES_PER_BOOK, MAX_TAGS_PER_ENTRY } from './createAddressBookEntry.schema.ts';
import { ADDRESS_BOOK_KINDS } from './inputs.ts';
import type { ExternalDestination, TagRow } from './views.ts';

export interface CreateEntryInput {
  subaccountId?: string;
  kind: AddressBookEntryKind;
  label: string;
  note?: string;
  external?: ExternalDestination;
  internal?: { accountId: string };
  tagIds?: string[];
}

/** A destination of the kind named, with tags of the same book; at most MAX_ENTRIES_PER_BOOK per book. */
export async function createAddressBookEntry(ctx: AddressBookContext, caller: Caller, input: CreateEntryInput) {
  const { book, scope } = await writeBook(ctx, caller, input.subaccountId);
  const label = checkLabel(input.label);
  const note = checkNote(input.note ?? '');
  let destination: { externalAddress: string; externalRegistryChainId: number } | { internalAccountId: string };
  switch (input.kind) {
    case 'EXTERNAL_CHAIN': {
      if (input.internal) throw invalidArgument('internal', 'must be absent for EXTERNAL_CHAIN entries', 'kind-mismatch');
      if (!input.external) throw invalidArgument('external', 'is required for EXTERNAL_CHAIN entries', 'required');
      const ext = normaliseExternalDestination(input.external);
      destination = { externalAddress: ext.address, externalRegistryChainId: ext.registryChainId };
      break;
    }
    case 'INTERNAL_ACCOUNT': {
      if (input.external) throw invalidArgument('external', 'must be absent for INTERNAL_ACCOUNT entries', 'kind-mismatch');
      if (!input.internal) throw invalidArgument('internal', 'is required for INTERNAL_ACCOUNT entries', 'required');
      destination = { internalAccountId: input.internal.accountId };
      break;
    }
    default:
      throw invalidArgument('kind', `must be one of ${ADDRESS_BOOK_KINDS.join(', ')}`, 'enum');
  }
  const tagIds = [...new Set(input.tagIds ?? [])];
  if (tagIds.length > MAX_TAGS_PER_ENTRY) {
    throw invalidArgument('tagIds', `an entry may have at most ${MAX_TAGS_PER_ENTRY} tags`, 'max-tags');
  }

  return ctx.db.$transaction(async (tx) => {
    await lockBook(tx, book);
    const count = await tx.addressBookEntry.count({ where: { scopeAccountId: book.id } });
    if (count >= MAX_ENTRIES_PER_BOOK) {
      throw invalidArgument('label', `an address book holds at most ${MAX_ENTRIES_PER_BOOK} entries`, 'max-entries');
    }
    const tags: TagRow[] = [];
    for (const [i, tagId] of tagIds.entries()) tags.push(await findTag(tx, book, tagId, `tagIds[${i}]`));
    const internalAccountId = 'internalAccountId' in destination ? await resolveTarget(tx, destination.internalAccountId) : undefined;
    const now = ctx.clock.now();
    const row = await tx.addressBookEntry.create({
      data: {
        publicId: newPublicId(),
        rootAccountId: book.rootAccountId,
        scopeAccountId: book.id,
        scopeType: book.kind,
        kind: input.kind,
        label,
        note,
        ...('externalAddress' in destination ? destination : { internalAccountId: internalAccountId ?? null }),
        createdAt: now,
        updatedAt: now,
        revision: 1n,
        tags: { create: tags.map((t) => ({ tagId: t.id, createdAt: now })) },
      },
      select: { id: true },
    });
    return { entry: await reload(tx, row.id, scope) };
  });
}
