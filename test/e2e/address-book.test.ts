import { smartAccountAddressOf } from '../../src/domain/smartAccounts.ts';
import { randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPublicId } from '../../src/domain/ids.ts';
import {
  AddressBookDocument,
  AddressBookEntryDocument,
  AddressBookTagsDocument,
  CreateAddressBookEntryDocument,
  CreateAddressBookTagDocument,
  DeleteAddressBookEntryDocument,
  DeleteAddressBookTagDocument,
  RenameAddressBookTagDocument,
  TagAddressBookEntryDocument,
  UntagAddressBookEntryDocument,
  UpdateAddressBookEntryDocument,
} from '../generated/graphql/graphql.ts';
import { api, newKeyPair, onboard, signed, signIn, type ClientKey, type SignedIn } from '../helpers/auth.ts';
import { gql } from '../helpers/graphql.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';

const ENTRIES = '/v1/auth/address-book-entries';
const TAGS = '/v1/auth/address-book-tags';
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

const evm = (): string => getAddress(`0x${randomBytes(20).toString('hex')}`);
/** The address with one letter's case flipped: a mixed-case address with a wrong checksum. */
function wrongChecksum(address: string): string {
  const i = address.slice(2).search(/[a-fA-F]/) + 2;
  const c = address[i]!;
  return address.slice(0, i) + (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) + address.slice(i + 1);
}
const external = (label: string, address = evm(), registryChainId = 1) => ({ kind: 'EXTERNAL_CHAIN', label, external: { address, registryChainId } });

function expectProblem(r: { status: number; body: any }, status: number, code: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body).toMatchObject({ status, code, type: expect.any(String), title: expect.any(String), detail: expect.any(String) });
}

async function create(who: SignedIn, body: Record<string, unknown>) {
  const r = await api(server.url, 'POST', ENTRIES, body, who.auth);
  if (r.status !== 200) throw new Error(`create entry: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.entry;
}

async function subaccount(who: SignedIn, label = 'desk'): Promise<string> {
  return (await api(server.url, 'POST', '/v1/auth/subaccounts', { label }, who.auth)).body.subaccount.subaccountId;
}

describe('REST: entries', () => {
  it('creates an external entry and renders it exactly as spec 2.3', async () => {
    const me = await signIn(server.url);
    const address = evm();
    const entry = await create(me, { ...external('cold', address.toLowerCase(), 42161), note: 'hardware' });
    expect(entry).toEqual({
      addressBookEntryId: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]+$/),
      scope: { scopeType: 'ROOT', rootAccountId: me.rootAccountId, subaccountId: '' },
      kind: 'EXTERNAL_CHAIN',
      label: 'cold',
      note: 'hardware',
      external: { address, registryChainId: 42161 },
      tags: [],
      createdAt: expect.stringMatching(RFC3339),
      updatedAt: expect.stringMatching(RFC3339),
      revision: '1',
    });
    const one = await api(server.url, 'GET', `${ENTRIES}/${entry.addressBookEntryId}`, undefined, me.auth);
    expect(one.body).toEqual({ entry });
    const list = await api(server.url, 'GET', ENTRIES, undefined, me.auth);
    expect(list.body).toEqual({ entries: [entry], nextPageToken: '' });
  });

  it('refuses a mixed-case address with a wrong EIP-55 checksum, and numbers where strings belong', async () => {
    const me = await signIn(server.url);
    const good = evm();
    const r = await api(server.url, 'POST', ENTRIES, external('x', wrongChecksum(good)), me.auth);
    expectProblem(r, 400, 'BAD_REQUEST');
    expect(r.body.violations).toEqual([{ fieldPath: 'external.address', message: expect.any(String), ruleId: 'evm-checksum' }]);
    const unknown = await api(server.url, 'POST', ENTRIES, external('x', good, 31337), me.auth);
    expect(unknown.body.violations).toEqual([{ fieldPath: 'external.registryChainId', message: expect.any(String), ruleId: 'unknown-network' }]);

    const entry = await create(me, external('ok', good));
    const numeric = await api(server.url, 'PATCH', `${ENTRIES}/${entry.addressBookEntryId}`, { expectedRevision: 1, label: 'n' }, me.auth);
    expectProblem(numeric, 400, 'BAD_REQUEST');
    expect(numeric.body.violations[0].fieldPath).toBe('expectedRevision');
    const extra = await api(server.url, 'POST', ENTRIES, { ...external('x', good), colour: 'red' }, me.auth);
    expect(extra.body.violations).toEqual([{ fieldPath: 'colour', message: expect.any(String), ruleId: 'unknown-field' }]);
  });

  it('resolves an internal destination to the target account, its owner, username and label', async () => {
    const me = await signIn(server.url);
    const friend = await signIn(server.url);
    const desk = await subaccount(friend, 'friend desk');
    await server.database.prisma.account.update({ where: { publicId: friend.rootAccountId }, data: { username: 'bob' } });
    const entry = await create(me, { kind: 'INTERNAL_ACCOUNT', label: 'bob desk', internal: { accountId: desk } });
    expect(entry.internal).toEqual({
      rootAccountId: friend.rootAccountId,
      accountId: desk,
      accountKind: 'SUBACCOUNT',
      smartAccountAddress: smartAccountAddressOf(desk),
      username: 'bob',
      subaccountLabel: 'friend desk',
    });
    expect(entry).not.toHaveProperty('external');
    const unknown = await api(server.url, 'POST', ENTRIES, { kind: 'INTERNAL_ACCOUNT', label: 'x', internal: { accountId: newPublicId() } }, me.auth);
    expectProblem(unknown, 400, 'BAD_REQUEST');
    expect(unknown.body.violations[0]).toMatchObject({ fieldPath: 'internal.accountId', ruleId: 'unknown-account' });
  });

  it('lists newest created first across pages, 200 by default, at most 500', async () => {
    const me = await signIn(server.url);
    const root = await server.database.prisma.account.findUniqueOrThrow({ where: { publicId: me.rootAccountId } });
    const t0 = Date.parse('2025-01-01T00:00:00Z');
    await server.database.prisma.addressBookEntry.createMany({
      data: Array.from({ length: 205 }, (_, i) => ({
        publicId: newPublicId(),
        rootAccountId: root.id,
        scopeAccountId: root.id,
        scopeType: 'ROOT' as const,
        kind: 'EXTERNAL_CHAIN' as const,
        label: `e${i}`,
        externalAddress: evm(),
        externalRegistryChainId: 1,
        // Pairs share a millisecond: the id breaks the tie.
        createdAt: new Date(t0 + Math.floor(i / 2)),
        updatedAt: new Date(t0 + Math.floor(i / 2)),
      })),
    });
    const first = await api(server.url, 'GET', ENTRIES, undefined, me.auth);
    expect(first.body.entries).toHaveLength(200);
    expect(first.body.entries[0].label).toBe('e204');
    const second = await api(server.url, 'GET', `${ENTRIES}?pageToken=${first.body.nextPageToken}`, undefined, me.auth);
    expect(second.body.entries.map((e: { label: string }) => e.label)).toEqual(['e4', 'e3', 'e2', 'e1', 'e0']);
    expect(second.body.nextPageToken).toBe('');

    const labels: string[] = [];
    let token = '';
    do {
      const page = await api(server.url, 'GET', `${ENTRIES}?limit=37${token ? `&pageToken=${token}` : ''}`, undefined, me.auth);
      expect(page.status).toBe(200);
      labels.push(...page.body.entries.map((e: { label: string }) => e.label));
      token = page.body.nextPageToken;
    } while (token !== '');
    expect(labels).toEqual(Array.from({ length: 205 }, (_, i) => `e${204 - i}`));

    expect((await api(server.url, 'GET', `${ENTRIES}?limit=500`, undefined, me.auth)).body.entries).toHaveLength(205);
    for (const limit of ['501', '0', 'ten']) {
      const r = await api(server.url, 'GET', `${ENTRIES}?limit=${limit}`, undefined, me.auth);
      expectProblem(r, 400, 'BAD_REQUEST');
      expect(r.body.violations[0].fieldPath).toBe('limit');
    }
  });

  it('filters by kind and binds the page token to the wallet, the book and the kind', async () => {
    const me = await signIn(server.url);
    const other = await signIn(server.url);
    const desk = await subaccount(me);
    for (let i = 0; i < 3; i++) await create(me, external(`x${i}`));
    await create(me, { kind: 'INTERNAL_ACCOUNT', label: 'in', internal: { accountId: other.rootAccountId } });
    const internal = await api(server.url, 'GET', `${ENTRIES}?kind=INTERNAL_ACCOUNT`, undefined, me.auth);
    expect(internal.body.entries.map((e: { label: string }) => e.label)).toEqual(['in']);
    const page = await api(server.url, 'GET', `${ENTRIES}?kind=EXTERNAL_CHAIN&limit=2`, undefined, me.auth);
    expect(page.body.entries.map((e: { label: string }) => e.label)).toEqual(['x2', 'x1']);
    const token = page.body.nextPageToken as string;

    const replays = [
      api(server.url, 'GET', `${ENTRIES}?kind=EXTERNAL_CHAIN&limit=2&pageToken=${token}`, undefined, other.auth),
      api(server.url, 'GET', `${ENTRIES}?kind=INTERNAL_ACCOUNT&limit=2&pageToken=${token}`, undefined, me.auth),
      api(server.url, 'GET', `${ENTRIES}?limit=2&pageToken=${token}`, undefined, me.auth),
      api(server.url, 'GET', `${ENTRIES}?kind=EXTERNAL_CHAIN&subaccountId=${desk}&pageToken=${token}`, undefined, me.auth),
    ];
    for (const r of await Promise.all(replays)) {
      expectProblem(r, 400, 'BAD_REQUEST');
      expect(r.body.violations).toEqual([{ fieldPath: 'pageToken', message: expect.any(String), ruleId: 'page-token' }]);
    }
    const next = await api(server.url, 'GET', `${ENTRIES}?kind=EXTERNAL_CHAIN&limit=2&pageToken=${token}`, undefined, me.auth);
    expect(next.body).toEqual({ entries: [expect.objectContaining({ label: 'x0' })], nextPageToken: '' });
    expectProblem(await api(server.url, 'GET', `${ENTRIES}?kind=SOMETHING`, undefined, me.auth), 400, 'BAD_REQUEST');
  });

  it('keeps subaccount books apart from the root book', async () => {
    const me = await signIn(server.url);
    const desk = await subaccount(me);
    await create(me, external('root'));
    const inDesk = await create(me, { ...external('desk'), subaccountId: desk });
    expect(inDesk.scope).toEqual({ scopeType: 'SUBACCOUNT', rootAccountId: me.rootAccountId, subaccountId: desk });
    const rootList = await api(server.url, 'GET', ENTRIES, undefined, me.auth);
    expect(rootList.body.entries.map((e: { label: string }) => e.label)).toEqual(['root']);
    const deskList = await api(server.url, 'GET', `${ENTRIES}?subaccountId=${desk}`, undefined, me.auth);
    expect(deskList.body.entries).toEqual([inDesk]);
    // Named from the wrong book, an entry does not exist.
    expectProblem(await api(server.url, 'GET', `${ENTRIES}/${inDesk.addressBookEntryId}`, undefined, me.auth), 404, 'ADDRESS_BOOK_ENTRY_NOT_FOUND');
    const del = await api(server.url, 'DELETE', `${ENTRIES}/${inDesk.addressBookEntryId}?subaccountId=${desk}`, undefined, me.auth);
    expect(del).toMatchObject({ status: 200, body: {} });
    expect((await api(server.url, 'GET', `${ENTRIES}?subaccountId=${desk}`, undefined, me.auth)).body.entries).toEqual([]);
  });

  it('updates on the current revision; a stale revision is 409 and changes nothing', async () => {
    const me = await signIn(server.url);
    const entry = await create(me, { ...external('before'), note: 'keep' });
    const url = `${ENTRIES}/${entry.addressBookEntryId}`;
    const newAddress = evm();
    const updated = await api(server.url, 'PATCH', url, { expectedRevision: '1', label: 'after', external: { address: newAddress, registryChainId: 10 } }, me.auth);
    expect(updated.status).toBe(200);
    expect(updated.body.entry).toMatchObject({ label: 'after', note: 'keep', external: { address: newAddress, registryChainId: 10 }, revision: '2' });
    expect(Date.parse(updated.body.entry.updatedAt)).toBeGreaterThanOrEqual(Date.parse(entry.updatedAt));

    const stale = await api(server.url, 'PATCH', url, { expectedRevision: '1', label: 'lost update' }, me.auth);
    expectProblem(stale, 409, 'CONFLICT_STALE_REVISION');
    expect(stale.body.type).toMatch(/\/conflict$/);
    expect((await api(server.url, 'GET', url, undefined, me.auth)).body.entry).toEqual(updated.body.entry);

    const staleDelete = await api(server.url, 'DELETE', `${url}?expectedRevision=1`, undefined, me.auth);
    expectProblem(staleDelete, 409, 'CONFLICT_STALE_REVISION');
    expect((await api(server.url, 'DELETE', `${url}?expectedRevision=2`, undefined, me.auth)).status).toBe(200);
    expectProblem(await api(server.url, 'GET', url, undefined, me.auth), 404, 'ADDRESS_BOOK_ENTRY_NOT_FOUND');
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths[ENTRIES] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths[`${ENTRIES}/{entryId}`] ?? {}).sort()).toEqual(['delete', 'get', 'patch']);
    expect(doc.paths[`${ENTRIES}/{entryId}/tags`]?.post).toBeDefined();
    expect(doc.paths[`${ENTRIES}/{entryId}/tags/{tagId}`]?.delete).toBeDefined();
    expect(Object.keys(doc.paths[TAGS] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths[`${TAGS}/{tagId}`] ?? {}).sort()).toEqual(['delete', 'patch']);
  });

  it('needs credentials', async () => {
    expectProblem(await api(server.url, 'GET', ENTRIES), 401, 'CREDENTIALS_REQUIRED');
    expectProblem(await api(server.url, 'POST', TAGS, { name: 'x' }), 401, 'CREDENTIALS_REQUIRED');
  });
});

describe('REST: tags', () => {
  it('creates, refuses a duplicate name, renames, tags and untags, and deletes', async () => {
    const me = await signIn(server.url);
    const entry = await create(me, external('tagged'));
    const created = await api(server.url, 'POST', TAGS, { name: 'friends', color: 'green' }, me.auth);
    expect(created.body.tag).toEqual({
      tagId: expect.any(String),
      scope: { scopeType: 'ROOT', rootAccountId: me.rootAccountId, subaccountId: '' },
      name: 'friends',
      color: 'green',
      createdAt: expect.stringMatching(RFC3339),
      updatedAt: expect.stringMatching(RFC3339),
    });
    const tag = created.body.tag;
    const dup = await api(server.url, 'POST', TAGS, { name: 'friends' }, me.auth);
    expectProblem(dup, 409, 'CONFLICT_DUPLICATE_TAG');
    const other = (await api(server.url, 'POST', TAGS, { name: 'exchanges' }, me.auth)).body.tag;
    expect(other.color).toBe('');
    expectProblem(await api(server.url, 'PATCH', `${TAGS}/${other.tagId}`, { name: 'friends' }, me.auth), 409, 'CONFLICT_DUPLICATE_TAG');

    const renamed = await api(server.url, 'PATCH', `${TAGS}/${tag.tagId}`, { name: 'family', color: '#ff0000' }, me.auth);
    expect(renamed.body.tag).toMatchObject({ tagId: tag.tagId, name: 'family', color: '#ff0000' });
    const listed = await api(server.url, 'GET', TAGS, undefined, me.auth);
    expect(listed.body.tags.map((t: { name: string }) => t.name)).toEqual(['exchanges', 'family']);

    const tagged = await api(server.url, 'POST', `${ENTRIES}/${entry.addressBookEntryId}/tags`, { tagId: tag.tagId }, me.auth);
    expect(tagged.body.entry.tags).toEqual([renamed.body.tag]);
    expect(tagged.body.entry.revision).toBe('2');
    const again = await api(server.url, 'POST', `${ENTRIES}/${entry.addressBookEntryId}/tags`, { tagId: tag.tagId }, me.auth);
    expect(again.body.entry).toEqual(tagged.body.entry);
    const untagged = await api(server.url, 'DELETE', `${ENTRIES}/${entry.addressBookEntryId}/tags/${tag.tagId}`, undefined, me.auth);
    expect(untagged.body.entry).toMatchObject({ tags: [], revision: '3' });

    await api(server.url, 'POST', `${ENTRIES}/${entry.addressBookEntryId}/tags`, { tagId: other.tagId }, me.auth);
    expect((await api(server.url, 'DELETE', `${TAGS}/${other.tagId}`, undefined, me.auth)).body).toEqual({});
    const after = await api(server.url, 'GET', `${ENTRIES}/${entry.addressBookEntryId}`, undefined, me.auth);
    expect(after.body.entry).toMatchObject({ tags: [], revision: '5' });
    expectProblem(await api(server.url, 'DELETE', `${TAGS}/${other.tagId}`, undefined, me.auth), 404, 'ADDRESS_BOOK_TAG_NOT_FOUND');
  });
});

describe('REST: isolation between wallets', () => {
  it("gives another wallet's session 404 for your entry, tag and subaccount ids", async () => {
    const me = await signIn(server.url);
    const stranger = await signIn(server.url);
    const desk = await subaccount(me);
    const entry = await create(me, external('mine'));
    const tag = (await api(server.url, 'POST', TAGS, { name: 'mine' }, me.auth)).body.tag;
    const theirs = await create(stranger, external('theirs'));
    const e = `${ENTRIES}/${entry.addressBookEntryId}`;

    const entryCalls: [string, string, unknown?][] = [
      ['GET', e],
      ['PATCH', e, { expectedRevision: '1', label: 'stolen' }],
      ['DELETE', e],
      ['POST', `${e}/tags`, { tagId: tag.tagId }],
      ['DELETE', `${e}/tags/${tag.tagId}`],
    ];
    for (const [method, path, body] of entryCalls) {
      expectProblem(await api(server.url, method, path, body, stranger.auth), 404, 'ADDRESS_BOOK_ENTRY_NOT_FOUND');
    }
    const tagCalls: [string, string, unknown?][] = [
      ['PATCH', `${TAGS}/${tag.tagId}`, { name: 'stolen' }],
      ['DELETE', `${TAGS}/${tag.tagId}`],
      ['POST', `${ENTRIES}/${theirs.addressBookEntryId}/tags`, { tagId: tag.tagId }],
    ];
    for (const [method, path, body] of tagCalls) {
      expectProblem(await api(server.url, method, path, body, stranger.auth), 404, 'ADDRESS_BOOK_TAG_NOT_FOUND');
    }
    const subCalls: [string, string, unknown?][] = [
      ['GET', `${ENTRIES}?subaccountId=${desk}`],
      ['POST', ENTRIES, { ...external('x'), subaccountId: desk }],
      ['GET', `${TAGS}?subaccountId=${desk}`],
      ['POST', TAGS, { name: 'x', subaccountId: desk }],
    ];
    for (const [method, path, body] of subCalls) {
      expectProblem(await api(server.url, method, path, body, stranger.auth), 404, 'SUBACCOUNT_NOT_FOUND');
    }
    // Nothing of mine changed.
    expect((await api(server.url, 'GET', e, undefined, me.auth)).body.entry).toEqual(entry);
    expect((await api(server.url, 'GET', TAGS, undefined, me.auth)).body.tags).toEqual([tag]);
    expect((await api(server.url, 'GET', ENTRIES, undefined, stranger.auth)).body.entries).toEqual([theirs]);
  });
});

describe('REST: API keys', () => {
  /** A key with a policy of its own. */
  async function keyFor(owner: SignedIn, permissions: string[], extra: Record<string, unknown> = {}): Promise<ClientKey> {
    const policy = await api(server.url, 'POST', '/v1/auth/api-policies', { name: permissions.join('+'), permissions }, owner.auth);
    const pair = newKeyPair();
    const body = { label: 'bot', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), policyId: policy.body.policy.policyId, ...extra };
    const r = await api(server.url, 'POST', '/v1/auth/api-keys', body, owner.auth);
    if (r.status !== 200) throw new Error(`create key: ${r.status} ${JSON.stringify(r.body)}`);
    return { keyId: r.body.apiKey.keyId, ...pair };
  }

  it('reads with READ, and changes the book only with WITHDRAW', async () => {
    const owner = await onboard(server.url);
    const reader = await keyFor(owner, ['READ']);
    const withdrawer = await keyFor(owner, ['READ', 'WITHDRAW']);
    const trader = await keyFor(await onboard(server.url), ['TRADE', 'TRANSFER']);
    const body = external('by key');
    expectProblem(await signed(server.url, reader, 'POST', ENTRIES, body), 403, 'MISSING_PERMISSION');
    expectProblem(await signed(server.url, reader, 'POST', TAGS, { name: 'x' }), 403, 'MISSING_PERMISSION');
    expectProblem(await signed(server.url, trader, 'GET', ENTRIES), 403, 'MISSING_PERMISSION');
    const made = await signed(server.url, withdrawer, 'POST', ENTRIES, body);
    expect(made.status).toBe(200);
    const listed = await signed(server.url, reader, 'GET', `${ENTRIES}?limit=1`);
    expect(listed.body.entries[0]).toEqual(made.body.entry);
  });

  it('keeps a subaccount-scoped key inside its own book: 403 for other books, 404 for their entries', async () => {
    const owner = await onboard(server.url);
    const mine = await subaccount(owner, 'bot desk');
    const other = await subaccount(owner, 'other desk');
    const rootEntry = await create(owner, external('root entry'));
    const otherEntry = await create(owner, { ...external('other entry'), subaccountId: other });
    const otherTag = (await api(server.url, 'POST', TAGS, { name: 'other', subaccountId: other }, owner.auth)).body.tag;
    const key = await keyFor(owner, ['READ', 'WITHDRAW'], { subaccountId: mine });

    // Omitting subaccountId acts on the key's own subaccount book, never the root book.
    const own = await signed(server.url, key, 'POST', ENTRIES, external('key entry'));
    expect(own.body.entry.scope).toEqual({ scopeType: 'SUBACCOUNT', rootAccountId: owner.rootAccountId, subaccountId: mine });
    const list = await signed(server.url, key, 'GET', ENTRIES);
    expect(list.body.entries.map((e: { label: string }) => e.label)).toEqual(['key entry']);
    expect((await signed(server.url, key, 'GET', `${ENTRIES}?subaccountId=${mine}`)).body).toEqual(list.body);

    expectProblem(await signed(server.url, key, 'GET', `${ENTRIES}?subaccountId=${other}`), 403, 'KEY_SCOPE_VIOLATION');
    expectProblem(await signed(server.url, key, 'GET', `${TAGS}?subaccountId=${other}`), 403, 'KEY_SCOPE_VIOLATION');
    expectProblem(await signed(server.url, key, 'POST', ENTRIES, { ...external('x'), subaccountId: other }), 403, 'KEY_SCOPE_VIOLATION');
    // The root account id is not a subaccount of anyone: not found.
    expectProblem(await signed(server.url, key, 'GET', `${ENTRIES}?subaccountId=${owner.rootAccountId}`), 404, 'SUBACCOUNT_NOT_FOUND');

    for (const entryId of [rootEntry.addressBookEntryId, otherEntry.addressBookEntryId]) {
      expectProblem(await signed(server.url, key, 'GET', `${ENTRIES}/${entryId}`), 404, 'ADDRESS_BOOK_ENTRY_NOT_FOUND');
      expectProblem(await signed(server.url, key, 'PATCH', `${ENTRIES}/${entryId}`, { expectedRevision: '1', label: 'x' }), 404, 'ADDRESS_BOOK_ENTRY_NOT_FOUND');
      expectProblem(await signed(server.url, key, 'DELETE', `${ENTRIES}/${entryId}`), 404, 'ADDRESS_BOOK_ENTRY_NOT_FOUND');
    }
    expectProblem(await signed(server.url, key, 'DELETE', `${TAGS}/${otherTag.tagId}`), 404, 'ADDRESS_BOOK_TAG_NOT_FOUND');
    expect((await api(server.url, 'GET', `${ENTRIES}?subaccountId=${other}`, undefined, owner.auth)).body.entries).toEqual([otherEntry]);
  });
});

describe('REST: quotas', () => {
  it('charges address-book mutations to ACCOUNT_ADMIN (2 units of a 30-unit burst), reads not at all', async () => {
    const me = await signIn(server.url);
    let admitted = 0;
    let rejected: { status: number; body: any; headers: Headers } | undefined;
    const started = Date.now();
    for (let i = 0; i < 40 && !rejected; i++) {
      const r = await api(server.url, 'POST', TAGS, { name: `t${i}` }, me.auth);
      if (r.status === 200) admitted++;
      else rejected = r;
    }
    // 15 from the burst, plus one per second the loop ran (the pool refills 2 units/s).
    const refilled = Math.ceil((Date.now() - started) / 1000);
    expect(admitted).toBeGreaterThanOrEqual(15);
    expect(admitted).toBeLessThanOrEqual(15 + refilled);
    expectProblem(rejected!, 429, 'RATE_LIMIT_EXCEEDED');
    expect(rejected!.body.rate_limit).toMatchObject({ operation_id: 'address_book.mutate', policy_class: 'ACCOUNT_ADMIN', scope: 'ACCOUNT' });
    expect(Number(rejected!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const read = await api(server.url, 'GET', TAGS, undefined, me.auth);
    expect(read.body.tags).toHaveLength(admitted);
  });
});

describe('GraphQL', () => {
  it('runs the whole address book through the same services', async () => {
    const me = await signIn(server.url);
    const desk = await subaccount(me);
    const address = evm();
    const made = await gql(
      server.url,
      CreateAddressBookEntryDocument,
      { input: { kind: 'EXTERNAL_CHAIN', label: 'gql', external: { address: address.toLowerCase(), registryChainId: 56 } } },
      me.auth,
    );
    expect(made.body.errors).toBeUndefined();
    const entry = made.body.data!.createAddressBookEntry;
    expect(entry).toEqual({
      addressBookEntryId: expect.any(String),
      scope: { scopeType: 'ROOT', rootAccountId: me.rootAccountId, subaccountId: '' },
      kind: 'EXTERNAL_CHAIN',
      label: 'gql',
      note: '',
      external: { address, registryChainId: 56 },
      internal: null,
      tags: [],
      createdAt: expect.stringMatching(RFC3339),
      updatedAt: expect.stringMatching(RFC3339),
      revision: '1',
    });
    // The same entry over REST.
    const rest = await api(server.url, 'GET', `${ENTRIES}/${entry.addressBookEntryId}`, undefined, me.auth);
    expect({ ...rest.body.entry, internal: null }).toEqual(entry);

    for (let i = 0; i < 3; i++) {
      await gql(server.url, CreateAddressBookEntryDocument, { input: { kind: 'INTERNAL_ACCOUNT', label: `in${i}`, internal: { accountId: desk } } }, me.auth);
    }
    const page1 = await gql(server.url, AddressBookDocument, { first: 2 }, me.auth);
    const c1 = page1.body.data!.viewer.addressBook;
    expect(c1.edges.map((e) => e.node.label)).toEqual(['in2', 'in1']);
    expect(c1.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    expect(c1.edges[0]!.node.internal).toMatchObject({ accountId: desk, accountKind: 'SUBACCOUNT', rootAccountId: me.rootAccountId, subaccountLabel: 'desk' });
    const page2 = await gql(server.url, AddressBookDocument, { first: 2, after: c1.pageInfo.endCursor }, me.auth);
    const c2 = page2.body.data!.viewer.addressBook;
    expect(c2.edges.map((e) => e.node.label)).toEqual(['in0', 'gql']);
    expect(c2.pageInfo.hasNextPage).toBe(false);
    const onlyExternal = await gql(server.url, AddressBookDocument, { kind: 'EXTERNAL_CHAIN' }, me.auth);
    expect(onlyExternal.body.data!.viewer.addressBook.edges.map((e) => e.node.label)).toEqual(['gql']);
    const rebound = await gql(server.url, AddressBookDocument, { first: 2, after: c1.pageInfo.endCursor, kind: 'INTERNAL_ACCOUNT' }, me.auth);
    expect(rebound.body.errors?.[0]?.extensions).toMatchObject({ key: 'invalid-argument', violations: [{ fieldPath: 'pageToken', ruleId: 'page-token' }] });
    const tooMany = await gql(server.url, AddressBookDocument, { first: 501 }, me.auth);
    expect(tooMany.body.errors?.[0]?.extensions).toMatchObject({ key: 'invalid-argument', status: 400 });
    const inDesk = await gql(server.url, AddressBookDocument, { subaccountId: desk }, me.auth);
    expect(inDesk.body.data!.viewer.addressBook.edges).toEqual([]);

    const id = entry.addressBookEntryId;
    const updated = await gql(server.url, UpdateAddressBookEntryDocument, { addressBookEntryId: id, input: { expectedRevision: '1', label: 'renamed', note: 'n' } }, me.auth);
    expect(updated.body.data!.updateAddressBookEntry).toMatchObject({ label: 'renamed', note: 'n', revision: '2' });
    const stale = await gql(server.url, UpdateAddressBookEntryDocument, { addressBookEntryId: id, input: { expectedRevision: '1', label: 'lost' } }, me.auth);
    expect(stale.body.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT_STALE_REVISION', key: 'conflict', status: 409 });
    const badChecksum = await gql(
      server.url,
      UpdateAddressBookEntryDocument,
      { addressBookEntryId: id, input: { expectedRevision: '2', external: { address: wrongChecksum(address), registryChainId: 1 } } },
      me.auth,
    );
    expect(badChecksum.body.errors?.[0]?.extensions).toMatchObject({ key: 'invalid-argument', violations: [{ fieldPath: 'external.address', ruleId: 'evm-checksum' }] });
    const staleDelete = await gql(server.url, DeleteAddressBookEntryDocument, { addressBookEntryId: id, expectedRevision: '1' }, me.auth);
    expect(staleDelete.body.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT_STALE_REVISION' });
    const deleted = await gql(server.url, DeleteAddressBookEntryDocument, { addressBookEntryId: id }, me.auth);
    expect(deleted.body.data!.deleteAddressBookEntry).toBe(id);
    const gone = await gql(server.url, AddressBookEntryDocument, { addressBookEntryId: id }, me.auth);
    expect(gone.body.errors?.[0]?.extensions).toMatchObject({ code: 'ADDRESS_BOOK_ENTRY_NOT_FOUND', status: 404 });
    const last = await gql(server.url, AddressBookDocument, { first: 1 }, me.auth);
    expect(last.body.data!.viewer.addressBook.edges.map((e) => e.node.label)).toEqual(['in2']);
  });

  it('manages tags through the same services', async () => {
    const me = await signIn(server.url);
    const id = (await create(me, external('tagged'))).addressBookEntryId;
    const tag = (await gql(server.url, CreateAddressBookTagDocument, { input: { name: 'gql', color: 'blue' } }, me.auth)).body.data!.createAddressBookTag;
    expect(tag).toMatchObject({ name: 'gql', color: 'blue', scope: { scopeType: 'ROOT' } });
    const dup = await gql(server.url, CreateAddressBookTagDocument, { input: { name: 'gql' } }, me.auth);
    expect(dup.body.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT_DUPLICATE_TAG', status: 409 });
    const renamed = await gql(server.url, RenameAddressBookTagDocument, { tagId: tag.tagId, input: { name: 'graph' } }, me.auth);
    expect(renamed.body.data!.renameAddressBookTag).toMatchObject({ name: 'graph', color: 'blue' });
    const tagged = await gql(server.url, TagAddressBookEntryDocument, { addressBookEntryId: id, tagId: tag.tagId }, me.auth);
    expect(tagged.body.data!.tagAddressBookEntry.tags.map((t) => t.name)).toEqual(['graph']);
    const tags = await gql(server.url, AddressBookTagsDocument, {}, me.auth);
    expect(tags.body.data!.viewer.addressBookTags.map((t) => t.tagId)).toEqual([tag.tagId]);
    const untagged = await gql(server.url, UntagAddressBookEntryDocument, { addressBookEntryId: id, tagId: tag.tagId }, me.auth);
    expect(untagged.body.data!.untagAddressBookEntry).toMatchObject({ tags: [], revision: '3' });
    const deletedTag = await gql(server.url, DeleteAddressBookTagDocument, { tagId: tag.tagId }, me.auth);
    expect(deletedTag.body.data!.deleteAddressBookTag).toBe(tag.tagId);
    const tagsAfter = await gql(server.url, AddressBookTagsDocument, {}, me.auth);
    expect(tagsAfter.body.data!.viewer.addressBookTags).toEqual([]);
  });

  it("answers another wallet's ids as not found, and anonymous callers as unauthenticated", async () => {
    const me = await signIn(server.url);
    const stranger = await signIn(server.url);
    const desk = await subaccount(me);
    const entry = await create(me, external('mine'));
    const tag = (await api(server.url, 'POST', TAGS, { name: 'mine' }, me.auth)).body.tag;
    const id = entry.addressBookEntryId;
    const code = (r: { body: { errors?: { extensions?: Record<string, unknown> }[] } }) => r.body.errors?.[0]?.extensions?.code;

    expect(code(await gql(server.url, AddressBookEntryDocument, { addressBookEntryId: id }, stranger.auth))).toBe('ADDRESS_BOOK_ENTRY_NOT_FOUND');
    expect(code(await gql(server.url, UpdateAddressBookEntryDocument, { addressBookEntryId: id, input: { expectedRevision: '1', label: 'x' } }, stranger.auth))).toBe(
      'ADDRESS_BOOK_ENTRY_NOT_FOUND',
    );
    expect(code(await gql(server.url, DeleteAddressBookEntryDocument, { addressBookEntryId: id }, stranger.auth))).toBe('ADDRESS_BOOK_ENTRY_NOT_FOUND');
    expect(code(await gql(server.url, TagAddressBookEntryDocument, { addressBookEntryId: id, tagId: tag.tagId }, stranger.auth))).toBe(
      'ADDRESS_BOOK_ENTRY_NOT_FOUND',
    );
    expect(code(await gql(server.url, RenameAddressBookTagDocument, { tagId: tag.tagId, input: { name: 'x' } }, stranger.auth))).toBe(
      'ADDRESS_BOOK_TAG_NOT_FOUND',
    );
    expect(code(await gql(server.url, DeleteAddressBookTagDocument, { tagId: tag.tagId }, stranger.auth))).toBe('ADDRESS_BOOK_TAG_NOT_FOUND');
    expect(code(await gql(server.url, AddressBookDocument, { subaccountId: desk }, stranger.auth))).toBe('SUBACCOUNT_NOT_FOUND');
    expect(code(await gql(server.url, AddressBookDocument, {}))).toBe('CREDENTIALS_REQUIRED');
    expect(code(await gql(server.url, CreateAddressBookTagDocument, { input: { name: 'x' } }))).toBe('CREDENTIALS_REQUIRED');
    expect((await api(server.url, 'GET', `${ENTRIES}/${id}`, undefined, me.auth)).body.entry).toEqual(entry);
  });
});
