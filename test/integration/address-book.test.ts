import { randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKeyCaller, Caller, Permission, SessionCaller } from '../../src/auth/caller.ts';
import { newPublicId } from '../../src/domain/ids.ts';
import type { Clock } from '../../src/infra/clock.ts';
import { createAddressBookService, MAX_TAGS_PER_ENTRY, type AddressBookService } from '../../src/services/addressBook/index.ts';
import { PageTokens } from '../../src/services/pageTokens.ts';
import { testDatabase } from '../helpers/infra.ts';

type TestDb = Awaited<ReturnType<typeof testDatabase>>;

let database: TestDb;
let book: AddressBookService;
/** A clock the tests move by hand; it advances 1 ms per reading unless frozen. */
const clock = {
  t: Date.parse('2026-01-01T00:00:00.000Z'),
  frozen: false as boolean,
  now() {
    const d = new Date(this.t);
    if (!this.frozen) this.t += 1;
    return d;
  },
  nowNs() {
    return BigInt(this.t) * 1_000_000n;
  },
} satisfies Clock & { t: number; frozen: boolean };

beforeAll(async () => {
  database = await testDatabase();
  // Quotas are the limiter's business (tested end to end); here every mutation is admitted.
  const limiter = { admit: async () => {} };
  book = createAddressBookService({ db: database.prisma, clock, pageTokens: new PageTokens(randomBytes(32)), limiter });
});
afterAll(async () => {
  await database?.drop();
});

const evm = (): string => getAddress(`0x${randomBytes(20).toString('hex')}`);

/** A root account signed in with a session, as the authenticator would build it. */
async function newUser(extra: { username?: string; smartAccountAddress?: string } = {}): Promise<SessionCaller> {
  const row = await database.prisma.account.create({ data: { publicId: newPublicId(), kind: 'ROOT', ...extra } });
  return { kind: 'session', rootAccountId: row.id, rootPublicId: row.publicId, sessionId: 0n };
}

async function newSubaccount(owner: Caller, label = 'desk', smartAccountAddress?: string) {
  return database.prisma.account.create({
    data: { publicId: newPublicId(), kind: 'SUBACCOUNT', rootAccountId: owner.rootAccountId, label, smartAccountAddress: smartAccountAddress ?? null },
  });
}

function keyOf(owner: Caller, permissions: Permission[], subaccountId?: bigint): ApiKeyCaller {
  return {
    kind: 'apiKey',
    rootAccountId: owner.rootAccountId,
    rootPublicId: owner.rootPublicId,
    keyId: `ak_${randomBytes(16).toString('hex')}`,
    keyDbId: 0n,
    permissions: new Set(permissions),
    ...(subaccountId !== undefined ? { subaccountId } : {}),
  };
}

const external = (label = 'cold wallet', address = evm(), registryChainId = 1) => ({
  kind: 'EXTERNAL_CHAIN' as const,
  label,
  external: { address, registryChainId },
});

/** The error a call rejects with; takes a thunk so that no rejection goes unobserved. */
async function rejection(call: Promise<unknown> | (() => Promise<unknown>)) {
  try {
    await (typeof call === 'function' ? call() : call);
  } catch (err) {
    return err as { key: string; code: string; status: number; violations: { fieldPath: string; ruleId: string }[] };
  }
  throw new Error('expected a rejection');
}

describe('external entries', () => {
  it('saves an EVM destination in its checksum form, at revision 1, in the root book', async () => {
    const me = await newUser();
    const address = evm();
    const { entry } = await book.createAddressBookEntry(me, { ...external('cold', address.toLowerCase(), 8453), note: 'mine' });
    expect(entry).toEqual({
      addressBookEntryId: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]+$/),
      scope: { scopeType: 'ROOT', rootAccountId: me.rootPublicId, subaccountId: '' },
      kind: 'EXTERNAL_CHAIN',
      label: 'cold',
      note: 'mine',
      external: { address, registryChainId: 8453 },
      tags: [],
      createdAt: expect.any(Date),
      updatedAt: entry.createdAt,
      revision: 1n,
    });
    expect(entry).not.toHaveProperty('internal');
    // All upper-case hex carries no checksum either, and is accepted.
    const upper = await book.createAddressBookEntry(me, external('u', `0x${address.slice(2).toUpperCase()}`));
    expect(upper.entry.external?.address).toBe(address);
  });

  it('refuses a mixed-case address with a wrong checksum, and other bad destinations, naming the field', async () => {
    const me = await newUser();
    const good = evm();
    const i = good.slice(2).search(/[a-fA-F]/) + 2;
    const c = good[i]!;
    const flipped = good.slice(0, i) + (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) + good.slice(i + 1);
    const cases: [Parameters<AddressBookService['createAddressBookEntry']>[1], string, string][] = [
      [external('x', flipped), 'external.address', 'evm-checksum'],
      [external('x', '0x1234'), 'external.address', 'evm-address'],
      [external('x', `0x${'0'.repeat(40)}`), 'external.address', 'evm-zero-address'],
      [external('x', good, 999_999), 'external.registryChainId', 'unknown-network'],
      [external('x', good, 0), 'external.registryChainId', 'int32-positive'],
      [external('x', good, 2 ** 31), 'external.registryChainId', 'int32-positive'],
      [{ kind: 'EXTERNAL_CHAIN', label: 'x' }, 'external', 'required'],
      [{ ...external('x', good), internal: { accountId: me.rootPublicId } }, 'internal', 'kind-mismatch'],
      [external('', good), 'label', 'length'],
      [external('   ', good), 'label', 'length'],
      [external('a'.repeat(65), good), 'label', 'length'],
      [external('a\u0007b', good), 'label', 'control-characters'],
      [{ ...external('x', good), note: 'n'.repeat(257) }, 'note', 'length'],
    ];
    for (const [input, fieldPath, ruleId] of cases) {
      const err = await rejection(book.createAddressBookEntry(me, input));
      expect(err, `${fieldPath} ${ruleId}`).toMatchObject({ key: 'invalid-argument', status: 400 });
      expect(err.violations).toEqual([{ fieldPath, message: expect.any(String), ruleId }]);
    }
    // 64 characters (counted as characters, not UTF-16 units) and a 256-character note fit.
    const ok = await book.createAddressBookEntry(me, { ...external('🙂'.repeat(64), good), note: 'n'.repeat(256) });
    expect(ok.entry.label).toBe('🙂'.repeat(64));
    expect((await book.listAddressBookEntries(me, {})).entries).toHaveLength(1);
  });
});

describe('internal entries', () => {
  it('resolve a root account or subaccount of any user, with its owner, username, smart account and label', async () => {
    const me = await newUser();
    const smart = evm().toLowerCase();
    const friend = await newUser({ username: 'alice', smartAccountAddress: smart });
    const friendDesk = await newSubaccount(friend, 'alice desk', evm().toLowerCase());
    const toRoot = await book.createAddressBookEntry(me, { kind: 'INTERNAL_ACCOUNT', label: 'alice', internal: { accountId: friend.rootPublicId } });
    expect(toRoot.entry.internal).toEqual({
      rootAccountId: friend.rootPublicId,
      accountId: friend.rootPublicId,
      accountKind: 'ROOT',
      smartAccountAddress: smart,
      username: 'alice',
      subaccountLabel: '',
    });
    expect(toRoot.entry).not.toHaveProperty('external');
    const toSub = await book.createAddressBookEntry(me, { kind: 'INTERNAL_ACCOUNT', label: 'desk', internal: { accountId: friendDesk.publicId } });
    expect(toSub.entry.internal).toEqual({
      rootAccountId: friend.rootPublicId,
      accountId: friendDesk.publicId,
      accountKind: 'SUBACCOUNT',
      smartAccountAddress: friendDesk.smartAccountAddress,
      username: 'alice',
      subaccountLabel: 'alice desk',
    });
  });

  it('refuse unknown, system and closed accounts alike', async () => {
    const me = await newUser();
    const system = await database.prisma.account.create({ data: { publicId: newPublicId(), kind: 'SYSTEM' } });
    const closed = await database.prisma.account.create({ data: { publicId: newPublicId(), kind: 'ROOT', status: 'CLOSED' } });
    for (const accountId of [newPublicId(), system.publicId, closed.publicId, 'not/an id']) {
      const err = await rejection(book.createAddressBookEntry(me, { kind: 'INTERNAL_ACCOUNT', label: 'x', internal: { accountId } }));
      expect(err.violations).toEqual([{ fieldPath: 'internal.accountId', message: expect.any(String), ruleId: 'unknown-account' }]);
    }
    const err = await rejection(book.createAddressBookEntry(me, { kind: 'INTERNAL_ACCOUNT', label: 'x' }));
    expect(err.violations[0]).toMatchObject({ fieldPath: 'internal', ruleId: 'required' });
  });
});

describe('listing', () => {
  it('pages newest created first, ties broken by id, with exclusive cursors', async () => {
    const me = await newUser();
    clock.frozen = true; // several entries in one millisecond
    const made: string[] = [];
    try {
      for (let i = 0; i < 5; i++) made.push((await book.createAddressBookEntry(me, external(`e${i}`))).entry.addressBookEntryId);
    } finally {
      clock.frozen = false;
    }
    for (let i = 5; i < 8; i++) made.push((await book.createAddressBookEntry(me, external(`e${i}`))).entry.addressBookEntryId);
    const seen: string[] = [];
    let pageToken = '';
    do {
      const page = await book.listAddressBookEntries(me, { limit: 3, pageToken });
      expect(page.entries.length).toBeLessThanOrEqual(3);
      seen.push(...page.entries.map((e) => e.addressBookEntryId));
      pageToken = page.nextPageToken;
    } while (pageToken !== '');
    expect(seen).toEqual([...made].reverse());
  });

  it('returns 200 entries by default and accepts at most 500', async () => {
    const me = await newUser();
    const now = Date.parse('2025-06-01T00:00:00Z');
    await database.prisma.addressBookEntry.createMany({
      data: Array.from({ length: 201 }, (_, i) => ({
        publicId: newPublicId(),
        rootAccountId: me.rootAccountId,
        scopeAccountId: me.rootAccountId,
        scopeType: 'ROOT' as const,
        kind: 'EXTERNAL_CHAIN' as const,
        label: `bulk ${i}`,
        externalAddress: evm(),
        externalRegistryChainId: 1,
        createdAt: new Date(now + i),
        updatedAt: new Date(now + i),
      })),
    });
    const first = await book.listAddressBookEntries(me, {});
    expect(first.entries).toHaveLength(200);
    expect(first.entries[0]?.label).toBe('bulk 200');
    const rest = await book.listAddressBookEntries(me, { pageToken: first.nextPageToken });
    expect(rest.entries.map((e) => e.label)).toEqual(['bulk 0']);
    expect(rest.nextPageToken).toBe('');
    expect((await book.listAddressBookEntries(me, { limit: 500 })).entries).toHaveLength(201);
    for (const limit of [0, 501, 1.5]) {
      const err = await rejection(book.listAddressBookEntries(me, { limit }));
      expect(err.violations).toEqual([{ fieldPath: 'limit', message: expect.any(String), ruleId: 'range' }]);
    }
  });

  it('filters by kind, and binds page tokens to the caller, the book and the kind filter', async () => {
    const me = await newUser();
    const other = await newUser();
    const desk = await newSubaccount(me);
    for (let i = 0; i < 3; i++) await book.createAddressBookEntry(me, external(`x${i}`));
    for (let i = 0; i < 3; i++) await book.createAddressBookEntry(me, { kind: 'INTERNAL_ACCOUNT', label: `i${i}`, internal: { accountId: other.rootPublicId } });
    const internal = await book.listAddressBookEntries(me, { kind: 'INTERNAL_ACCOUNT' });
    expect(internal.entries.map((e) => e.label)).toEqual(['i2', 'i1', 'i0']);
    const externalOnly = await book.listAddressBookEntries(me, { kind: 'EXTERNAL_CHAIN', limit: 2 });
    expect(externalOnly.entries.map((e) => e.label)).toEqual(['x2', 'x1']);
    const token = externalOnly.nextPageToken;
    expect(token).not.toBe('');

    const replays = [
      () => book.listAddressBookEntries(me, { kind: 'INTERNAL_ACCOUNT', pageToken: token }),
      () => book.listAddressBookEntries(me, { pageToken: token }),
      () => book.listAddressBookEntries(me, { kind: 'EXTERNAL_CHAIN', subaccountId: desk.publicId, pageToken: token }),
      () => book.listAddressBookEntries(other, { kind: 'EXTERNAL_CHAIN', pageToken: token }),
      () => book.listAddressBookEntries(me, { kind: 'EXTERNAL_CHAIN', pageToken: `${token.slice(0, -2)}AA` }),
    ];
    for (const p of replays) {
      const err = await rejection(p);
      expect(err).toMatchObject({ key: 'invalid-argument', status: 400 });
      expect(err.violations).toEqual([{ fieldPath: 'pageToken', message: expect.any(String), ruleId: 'page-token' }]);
    }
    const next = await book.listAddressBookEntries(me, { kind: 'EXTERNAL_CHAIN', limit: 2, pageToken: token });
    expect(next.entries.map((e) => e.label)).toEqual(['x0']);
  });
});

describe('books', () => {
  it('keeps each subaccount book apart from the root book and from each other', async () => {
    const me = await newUser();
    const a = await newSubaccount(me, 'a');
    const b = await newSubaccount(me, 'b');
    const inRoot = (await book.createAddressBookEntry(me, external('root'))).entry;
    const inA = (await book.createAddressBookEntry(me, { ...external('a'), subaccountId: a.publicId })).entry;
    expect(inA.scope).toEqual({ scopeType: 'SUBACCOUNT', rootAccountId: me.rootPublicId, subaccountId: a.publicId });
    expect((await book.listAddressBookEntries(me, {})).entries.map((e) => e.label)).toEqual(['root']);
    expect((await book.listAddressBookEntries(me, { subaccountId: a.publicId })).entries.map((e) => e.label)).toEqual(['a']);
    expect((await book.listAddressBookEntries(me, { subaccountId: b.publicId })).entries).toEqual([]);
    // An entry is addressed within its book: named from another book, it does not exist.
    const wrongBook = await rejection(book.getAddressBookEntry(me, { entryId: inA.addressBookEntryId }));
    expect(wrongBook).toMatchObject({ status: 404, code: 'ADDRESS_BOOK_ENTRY_NOT_FOUND' });
    const wrongBook2 = await rejection(book.deleteAddressBookEntry(me, { subaccountId: b.publicId, entryId: inRoot.addressBookEntryId }));
    expect(wrongBook2).toMatchObject({ status: 404, code: 'ADDRESS_BOOK_ENTRY_NOT_FOUND' });
    // Tags too: a tag of the root book cannot go on an entry of a subaccount book.
    const rootTag = (await book.createAddressBookTag(me, { name: 'vip' })).tag;
    const sameName = (await book.createAddressBookTag(me, { subaccountId: a.publicId, name: 'vip' })).tag;
    expect(sameName.scope.subaccountId).toBe(a.publicId);
    const cross = await rejection(
      book.tagAddressBookEntry(me, { subaccountId: a.publicId, entryId: inA.addressBookEntryId, tagId: rootTag.tagId }),
    );
    expect(cross).toMatchObject({ status: 404, code: 'ADDRESS_BOOK_TAG_NOT_FOUND' });
  });
});

describe('updates', () => {
  it('apply on the expected revision only; a stale one is 409 and changes nothing', async () => {
    const me = await newUser();
    const created = (await book.createAddressBookEntry(me, { ...external('old'), note: 'n' })).entry;
    const newAddress = evm();
    const updated = (
      await book.updateAddressBookEntry(me, {
        entryId: created.addressBookEntryId,
        expectedRevision: 1n,
        label: ' new ',
        note: '',
        external: { address: newAddress.toLowerCase(), registryChainId: 137 },
      })
    ).entry;
    expect(updated).toMatchObject({ label: 'new', note: '', revision: 2n, external: { address: newAddress, registryChainId: 137 } });
    expect(updated.updatedAt.getTime()).toBeGreaterThan(created.updatedAt.getTime());
    expect(updated.createdAt).toEqual(created.createdAt);

    const stale = await rejection(book.updateAddressBookEntry(me, { entryId: created.addressBookEntryId, expectedRevision: 1n, label: 'lost' }));
    expect(stale).toMatchObject({ key: 'conflict', status: 409, code: 'CONFLICT_STALE_REVISION' });
    const after = (await book.getAddressBookEntry(me, { entryId: created.addressBookEntryId })).entry;
    expect(after).toEqual(updated);

    // Nothing to change: revision and updatedAt stay.
    const same = (await book.updateAddressBookEntry(me, { entryId: created.addressBookEntryId, expectedRevision: 2n, label: 'new' })).entry;
    expect(same).toEqual(updated);

    const mismatch = await rejection(
      book.updateAddressBookEntry(me, { entryId: created.addressBookEntryId, expectedRevision: 2n, internal: { accountId: me.rootPublicId } }),
    );
    expect(mismatch.violations[0]).toMatchObject({ fieldPath: 'internal', ruleId: 'kind-mismatch' });
    const badAddress = await rejection(
      book.updateAddressBookEntry(me, { entryId: created.addressBookEntryId, expectedRevision: 2n, external: { address: '0xnope', registryChainId: 1 } }),
    );
    expect(badAddress.violations[0]).toMatchObject({ fieldPath: 'external.address', ruleId: 'evm-address' });
  });

  it('let exactly one of two concurrent updates on one revision win', async () => {
    const me = await newUser();
    const { entry } = await book.createAddressBookEntry(me, external('race'));
    const results = await Promise.allSettled(
      ['a', 'b', 'c'].map((label) => book.updateAddressBookEntry(me, { entryId: entry.addressBookEntryId, expectedRevision: 1n, label })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected')) {
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'CONFLICT_STALE_REVISION' });
    }
    expect((await book.getAddressBookEntry(me, { entryId: entry.addressBookEntryId })).entry.revision).toBe(2n);
  });

  it('delete, conditionally when a revision is given', async () => {
    const me = await newUser();
    const { entry } = await book.createAddressBookEntry(me, external('gone'));
    const stale = await rejection(book.deleteAddressBookEntry(me, { entryId: entry.addressBookEntryId, expectedRevision: 7n }));
    expect(stale).toMatchObject({ status: 409, code: 'CONFLICT_STALE_REVISION' });
    expect(await book.deleteAddressBookEntry(me, { entryId: entry.addressBookEntryId, expectedRevision: 1n })).toEqual({});
    const again = await rejection(book.deleteAddressBookEntry(me, { entryId: entry.addressBookEntryId }));
    expect(again).toMatchObject({ status: 404, code: 'ADDRESS_BOOK_ENTRY_NOT_FOUND' });
  });
});

describe('tags', () => {
  it('are created, refused twice by name, renamed, recolored, listed by name, and deleted', async () => {
    const me = await newUser();
    const vip = (await book.createAddressBookTag(me, { name: ' vip ', color: 'gold' })).tag;
    expect(vip).toEqual({
      tagId: expect.any(String),
      scope: { scopeType: 'ROOT', rootAccountId: me.rootPublicId, subaccountId: '' },
      name: 'vip',
      color: 'gold',
      createdAt: expect.any(Date),
      updatedAt: vip.createdAt,
    });
    const dup = await rejection(book.createAddressBookTag(me, { name: 'vip' }));
    expect(dup).toMatchObject({ key: 'conflict', status: 409, code: 'CONFLICT_DUPLICATE_TAG' });
    const cex = (await book.createAddressBookTag(me, { name: 'cex' })).tag;
    expect(cex.color).toBe('');
    const clash = await rejection(book.renameAddressBookTag(me, { tagId: cex.tagId, name: 'vip' }));
    expect(clash).toMatchObject({ status: 409, code: 'CONFLICT_DUPLICATE_TAG' });
    const renamed = (await book.renameAddressBookTag(me, { tagId: cex.tagId, name: 'exchanges', color: '#00ff88' })).tag;
    expect(renamed).toMatchObject({ name: 'exchanges', color: '#00ff88' });
    expect(renamed.updatedAt.getTime()).toBeGreaterThan(cex.updatedAt.getTime());
    const cleared = (await book.renameAddressBookTag(me, { tagId: cex.tagId, color: '' })).tag;
    expect(cleared).toMatchObject({ name: 'exchanges', color: '' });
    expect((await book.listAddressBookTags(me, {})).tags.map((t) => t.name)).toEqual(['exchanges', 'vip']);

    for (const [input, fieldPath, ruleId] of [
      [{ name: '' }, 'name', 'length'],
      [{ name: 'x'.repeat(33) }, 'name', 'length'],
      [{ name: 'ok', color: 'not a token!' }, 'color', 'color-token'],
    ] as const) {
      const err = await rejection(book.createAddressBookTag(me, input));
      expect(err.violations).toEqual([{ fieldPath, message: expect.any(String), ruleId }]);
    }

    expect(await book.deleteAddressBookTag(me, { tagId: vip.tagId })).toEqual({});
    expect((await book.listAddressBookTags(me, {})).tags.map((t) => t.name)).toEqual(['exchanges']);
    const gone = await rejection(book.renameAddressBookTag(me, { tagId: vip.tagId, name: 'again' }));
    expect(gone).toMatchObject({ status: 404, code: 'ADDRESS_BOOK_TAG_NOT_FOUND' });
  });

  it('go on and off entries idempotently, bumping the revision only on a change', async () => {
    const me = await newUser();
    const { entry } = await book.createAddressBookEntry(me, external('tagged'));
    const b = (await book.createAddressBookTag(me, { name: 'b' })).tag;
    const a = (await book.createAddressBookTag(me, { name: 'a' })).tag;
    const one = (await book.tagAddressBookEntry(me, { entryId: entry.addressBookEntryId, tagId: b.tagId })).entry;
    expect(one.revision).toBe(2n);
    const two = (await book.tagAddressBookEntry(me, { entryId: entry.addressBookEntryId, tagId: a.tagId })).entry;
    expect(two.tags.map((t) => t.name)).toEqual(['a', 'b']);
    expect(two.revision).toBe(3n);
    const again = (await book.tagAddressBookEntry(me, { entryId: entry.addressBookEntryId, tagId: a.tagId })).entry;
    expect(again).toEqual(two);

    // Renaming a tag is the tag's change, not the entry's.
    await book.renameAddressBookTag(me, { tagId: a.tagId, name: 'aa' });
    const afterRename = (await book.getAddressBookEntry(me, { entryId: entry.addressBookEntryId })).entry;
    expect(afterRename.revision).toBe(3n);
    expect(afterRename.tags.map((t) => t.name)).toEqual(['aa', 'b']);

    const off = (await book.untagAddressBookEntry(me, { entryId: entry.addressBookEntryId, tagId: b.tagId })).entry;
    expect(off.tags.map((t) => t.name)).toEqual(['aa']);
    expect(off.revision).toBe(4n);
    expect((await book.untagAddressBookEntry(me, { entryId: entry.addressBookEntryId, tagId: b.tagId })).entry).toEqual(off);

    // Deleting a tag takes it off its entries, which get a new revision.
    await book.deleteAddressBookTag(me, { tagId: a.tagId });
    const bare = (await book.getAddressBookEntry(me, { entryId: entry.addressBookEntryId })).entry;
    expect(bare.tags).toEqual([]);
    expect(bare.revision).toBe(5n);
  });

  it(`allow at most ${MAX_TAGS_PER_ENTRY} per entry, and tag at creation all or nothing`, async () => {
    const me = await newUser();
    const tags = [];
    for (let i = 0; i < MAX_TAGS_PER_ENTRY + 1; i++) tags.push((await book.createAddressBookTag(me, { name: `t${i}` })).tag.tagId);
    const full = (await book.createAddressBookEntry(me, { ...external('full'), tagIds: tags.slice(0, MAX_TAGS_PER_ENTRY) })).entry;
    expect(full.tags).toHaveLength(MAX_TAGS_PER_ENTRY);
    const over = await rejection(book.tagAddressBookEntry(me, { entryId: full.addressBookEntryId, tagId: tags[MAX_TAGS_PER_ENTRY]! }));
    expect(over.violations[0]).toMatchObject({ fieldPath: 'tagId', ruleId: 'max-tags' });
    const tooMany = await rejection(book.createAddressBookEntry(me, { ...external('over'), tagIds: tags }));
    expect(tooMany.violations[0]).toMatchObject({ fieldPath: 'tagIds', ruleId: 'max-tags' });

    const missing = await rejection(book.createAddressBookEntry(me, { ...external('half'), tagIds: [tags[0]!, newPublicId()] }));
    expect(missing).toMatchObject({ status: 404, code: 'ADDRESS_BOOK_TAG_NOT_FOUND' });
    expect(missing.violations[0]).toMatchObject({ fieldPath: 'tagIds[1]' });
    const labels = (await book.listAddressBookEntries(me, {})).entries.map((e) => e.label);
    expect(labels).toEqual(['full']);
  });

  it('with one name, created concurrently: one wins, the others are 409', async () => {
    const me = await newUser();
    const results = await Promise.allSettled([1, 2, 3, 4].map(() => book.createAddressBookTag(me, { name: 'same' })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected')) {
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'CONFLICT_DUPLICATE_TAG' });
    }
  });
});

describe('isolation and permissions', () => {
  it("answers another user's entry, tag and subaccount ids as not found, never forbidden", async () => {
    const me = await newUser();
    const stranger = await newUser();
    const desk = await newSubaccount(me);
    const { entry } = await book.createAddressBookEntry(me, external('mine'));
    const { tag } = await book.createAddressBookTag(me, { name: 'mine' });
    const entryId = entry.addressBookEntryId;
    const tagId = tag.tagId;
    const entryCalls = [
      () => book.getAddressBookEntry(stranger, { entryId }),
      () => book.updateAddressBookEntry(stranger, { entryId, expectedRevision: 1n, label: 'stolen' }),
      () => book.deleteAddressBookEntry(stranger, { entryId }),
      () => book.tagAddressBookEntry(stranger, { entryId, tagId }),
      () => book.untagAddressBookEntry(stranger, { entryId, tagId }),
    ];
    for (const p of entryCalls) expect(await rejection(p)).toMatchObject({ status: 404, code: 'ADDRESS_BOOK_ENTRY_NOT_FOUND' });
    const strangerEntry = (await book.createAddressBookEntry(stranger, external('theirs'))).entry;
    const tagCalls = [
      () => book.renameAddressBookTag(stranger, { tagId, name: 'stolen' }),
      () => book.deleteAddressBookTag(stranger, { tagId }),
      () => book.tagAddressBookEntry(stranger, { entryId: strangerEntry.addressBookEntryId, tagId }),
    ];
    for (const p of tagCalls) expect(await rejection(p)).toMatchObject({ status: 404, code: 'ADDRESS_BOOK_TAG_NOT_FOUND' });
    const subCalls = [
      () => book.listAddressBookEntries(stranger, { subaccountId: desk.publicId }),
      () => book.createAddressBookEntry(stranger, { ...external('x'), subaccountId: desk.publicId }),
      () => book.listAddressBookTags(stranger, { subaccountId: desk.publicId }),
    ];
    for (const p of subCalls) expect(await rejection(p)).toMatchObject({ status: 404, code: 'SUBACCOUNT_NOT_FOUND' });
    expect((await book.getAddressBookEntry(me, { entryId })).entry).toEqual(entry);
    expect((await book.listAddressBookTags(me, {})).tags).toEqual([tag]);
  });

  it('lets API keys read with READ and change books only with WITHDRAW', async () => {
    const me = await newUser();
    const { entry } = await book.createAddressBookEntry(me, external('mine'));
    const reader = keyOf(me, ['READ']);
    expect((await book.listAddressBookEntries(reader, {})).entries).toHaveLength(1);
    for (const p of [
      () => book.createAddressBookEntry(reader, external('x')),
      () => book.updateAddressBookEntry(reader, { entryId: entry.addressBookEntryId, expectedRevision: 1n, label: 'x' }),
      () => book.deleteAddressBookEntry(reader, { entryId: entry.addressBookEntryId }),
      () => book.createAddressBookTag(reader, { name: 'x' }),
    ]) {
      expect(await rejection(p)).toMatchObject({ status: 403, code: 'MISSING_PERMISSION' });
    }
    const trader = keyOf(me, ['TRADE', 'TRANSFER']);
    expect(await rejection(book.listAddressBookEntries(trader, {}))).toMatchObject({ status: 403, code: 'MISSING_PERMISSION' });
    const withdrawer = keyOf(me, ['WITHDRAW']);
    expect((await book.createAddressBookEntry(withdrawer, external('by key'))).entry.scope.scopeType).toBe('ROOT');
  });

  it('keeps a subaccount-scoped key inside its own subaccount book', async () => {
    const me = await newUser();
    const mine = await newSubaccount(me, 'mine');
    const other = await newSubaccount(me, 'other');
    const rootEntry = (await book.createAddressBookEntry(me, external('root'))).entry;
    const otherEntry = (await book.createAddressBookEntry(me, { ...external('other'), subaccountId: other.publicId })).entry;
    const key = keyOf(me, ['READ', 'WITHDRAW'], mine.id);

    // Without subaccountId the key acts on its own subaccount's book, never the root's.
    const own = await book.createAddressBookEntry(key, external('key'));
    expect(own.entry.scope).toEqual({ scopeType: 'SUBACCOUNT', rootAccountId: me.rootPublicId, subaccountId: mine.publicId });
    expect((await book.listAddressBookEntries(key, {})).entries.map((e) => e.label)).toEqual(['key']);
    expect((await book.listAddressBookEntries(key, { subaccountId: mine.publicId })).entries.map((e) => e.label)).toEqual(['key']);

    const scope = await rejection(book.listAddressBookEntries(key, { subaccountId: other.publicId }));
    expect(scope).toMatchObject({ status: 403, code: 'KEY_SCOPE_VIOLATION' });
    expect(await rejection(book.listAddressBookTags(key, { subaccountId: other.publicId }))).toMatchObject({ code: 'KEY_SCOPE_VIOLATION' });

    for (const entryId of [rootEntry.addressBookEntryId, otherEntry.addressBookEntryId]) {
      for (const p of [
        () => book.getAddressBookEntry(key, { entryId }),
        () => book.updateAddressBookEntry(key, { entryId, expectedRevision: 1n, label: 'x' }),
        () => book.deleteAddressBookEntry(key, { entryId }),
      ]) {
        expect(await rejection(p)).toMatchObject({ status: 404, code: 'ADDRESS_BOOK_ENTRY_NOT_FOUND' });
      }
    }
  });
});
