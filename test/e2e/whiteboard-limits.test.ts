import * as encoding from 'lib0/encoding';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BOARDS_PER_ACCOUNT, MAX_MEMBERS_PER_BOARD } from '../../src/services/whiteboards/index.ts';
import { api, signIn } from '../helpers/auth.ts';
import { startTestApp, TEST_OPERATOR_TOKEN, type RunningApp } from '../helpers/infra.ts';
import { BOARDS, createBoard, outcome, texts, OpenRooms, type Room } from '../helpers/rooms.ts';
import { pollUntil } from '../helpers/wait.ts';

/**
 * Issue 24, metered boards and rooms: board and member mutations charge ACCOUNT_ADMIN
 * (2 units, spec 8) and answer 503 while the authority is away; an account owns at most
 * MAX_BOARDS_PER_ACCOUNT boards and a board has at most MAX_MEMBERS_PER_BOARD members;
 * a room connection over a message rate or size is closed with a code and a reason, a
 * read-only one may not broadcast, and sync requests are counted.
 */
let server: RunningApp;
const rooms = new OpenRooms(() => server.url);

beforeAll(async () => {
  server = await startTestApp({
    roomLimits: { connectAttemptsPerMinute: 1000, maxAwarenessBytes: 1024, statelessPerSecond: 3, maxStatelessBytes: 512, syncRequestsPerMinute: 3 },
  });
});
afterEach(() => {
  rooms.destroyAll();
});
afterAll(async () => {
  await server?.close();
});

const open = rooms.open.bind(rooms);

const gql = (auth: Record<string, string>, query: string, variables: Record<string, unknown> = {}) =>
  api(server.url, 'POST', '/graphql', { query, variables }, auth);

/** A frame of the Hocuspocus protocol: document name, message type, then the body. */
function frame(boardId: string, type: number, body: (e: encoding.Encoder) => void): Uint8Array {
  const e = encoding.createEncoder();
  encoding.writeVarString(e, boardId);
  encoding.writeVarUint(e, type);
  body(e);
  return encoding.toUint8Array(e);
}

const sendRaw = (room: Room, bytes: Uint8Array) => (room.provider.configuration.websocketProvider.webSocket as unknown as { send(b: Uint8Array): void }).send(bytes);
const STATELESS = 5;
const BROADCAST_STATELESS = 6;
const SYNC = 0;

describe('board and member mutations are metered', () => {
  it('charge ACCOUNT_ADMIN at 2 units, one quota over /v1 and GraphQL, until 429 names the pool and the operation', async () => {
    const owner = await signIn(server.url);
    const member = await signIn(server.url);
    // 6 units that do not come back within the test: three 2-unit mutations, then refusals.
    const override = await api(
      server.url,
      'PUT',
      '/operator/v1/rate-limit-overrides',
      { pool: 'ACCOUNT_ADMIN', accountId: owner.rootAccountId, quotaWeight: '1', periodMs: '3600000', burstWeight: '6' },
      { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` },
    );
    expect(override.status).toBe(200);
    const { board } = await createBoard(server.url, owner);
    const memberPath = `${BOARDS}/${board.boardId}/members/${member.rootAccountId}`;
    expect((await api(server.url, 'PUT', memberPath, { role: 'VIEWER' }, owner.auth)).status).toBe(200);
    const update = 'mutation($b: String!) { updateWhiteboard(boardId: $b, input: { title: "renamed" }) { board { title } } }';
    expect((await gql(owner.auth, update, { b: board.boardId })).body.data.updateWhiteboard.board.title).toBe('renamed');

    const refusals = [
      ['whiteboard.member', await api(server.url, 'DELETE', memberPath, undefined, owner.auth)],
      ['whiteboard.member', await api(server.url, 'PUT', memberPath, { role: 'EDITOR' }, owner.auth)],
      ['whiteboard.update', await api(server.url, 'PATCH', `${BOARDS}/${board.boardId}`, { title: 'again' }, owner.auth)],
      ['whiteboard.create', await api(server.url, 'POST', BOARDS, { title: 'one more' }, owner.auth)],
      ['whiteboard.delete', await api(server.url, 'DELETE', `${BOARDS}/${board.boardId}`, undefined, owner.auth)],
    ] as const;
    for (const [operation, r] of refusals) {
      expect(r.status).toBe(429);
      expect(r.body).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', rate_limit: { policy_class: 'ACCOUNT_ADMIN', operation_id: operation, scope: 'ACCOUNT' } });
    }
    const viaGraphQL = await gql(owner.auth, update, { b: board.boardId });
    expect(viaGraphQL.body.errors[0].extensions.code).toBe('RATE_LIMIT_EXCEEDED');
    // Nothing refused was applied.
    const after = await api(server.url, 'GET', `${BOARDS}/${board.boardId}`, undefined, owner.auth);
    expect(after.body.board).toMatchObject({ title: 'renamed', accessVersion: '2' });
    expect((await api(server.url, 'GET', `${BOARDS}/${board.boardId}`, undefined, member.auth)).body.access.role).toBe('VIEWER');
  });

  it('answer 503 while the rate-limit authority is away, with nothing done, like every other mutation', async () => {
    const own = await startTestApp();
    try {
      const owner = await signIn(own.url);
      const member = await signIn(own.url);
      const { board } = await api(own.url, 'POST', BOARDS, { title: 'before' }, owner.auth).then((r) => r.body);
      own.store.redis!.disconnect();
      const answers = [
        await api(own.url, 'POST', BOARDS, { title: 'during' }, owner.auth),
        await api(own.url, 'PATCH', `${BOARDS}/${board.boardId}`, { title: 'during' }, owner.auth),
        await api(own.url, 'PUT', `${BOARDS}/${board.boardId}/members/${member.rootAccountId}`, { role: 'EDITOR' }, owner.auth),
        await api(own.url, 'DELETE', `${BOARDS}/${board.boardId}/members/${member.rootAccountId}`, undefined, owner.auth),
        await api(own.url, 'DELETE', `${BOARDS}/${board.boardId}`, undefined, owner.auth),
      ];
      for (const r of answers) expect(r.body).toMatchObject({ status: 503, code: 'RATE_LIMIT_AUTHORITY_UNAVAILABLE' });
      const g = await api(own.url, 'POST', '/graphql', { query: 'mutation { createWhiteboard(input: { title: "during" }) { board { boardId } } }' }, owner.auth);
      expect(g.body.errors[0].extensions.code).toBe('RATE_LIMIT_AUTHORITY_UNAVAILABLE');
      // Reads go on; nothing changed.
      const list = await api(own.url, 'GET', BOARDS, undefined, owner.auth);
      expect(list.body.boards.map((b: { board: { title: string; accessVersion: string } }) => [b.board.title, b.board.accessVersion])).toEqual([['before', '1']]);
    } finally {
      if (own.store.redis!.status !== 'ready') await own.store.redis!.connect().catch(() => undefined);
      await own.close();
    }
  });

  it(`an account owns at most ${MAX_BOARDS_PER_ACCOUNT} boards (archived ones count): the next is 409 WHITEBOARD_LIMIT_REACHED on both transports`, async () => {
    const owner = await signIn(server.url);
    const account = await server.database.prisma.account.findUniqueOrThrow({ where: { publicId: owner.rootAccountId }, select: { id: true } });
    const now = new Date();
    await server.database.prisma.whiteboard.createMany({
      data: Array.from({ length: MAX_BOARDS_PER_ACCOUNT - 1 }, (_, i) => ({
        ownerAccountId: account.id,
        title: `b${i}`,
        createdAt: now,
        updatedAt: now,
        ...(i === 0 ? { archivedAt: now } : {}),
      })),
    });
    expect((await api(server.url, 'POST', BOARDS, { title: 'last' }, owner.auth)).status).toBe(200);
    const over = await api(server.url, 'POST', BOARDS, { title: 'one too many' }, owner.auth);
    expect(over.status).toBe(409);
    expect(over.body).toMatchObject({ code: 'WHITEBOARD_LIMIT_REACHED' });
    const g = await gql(owner.auth, 'mutation { createWhiteboard(input: { title: "one too many" }) { board { boardId } } }');
    expect(g.body.errors[0].extensions.code).toBe('WHITEBOARD_LIMIT_REACHED');
    expect(await server.database.prisma.whiteboard.count({ where: { ownerAccountId: account.id } })).toBe(MAX_BOARDS_PER_ACCOUNT);
  });

  it(`a board has at most ${MAX_MEMBERS_PER_BOARD} members: the next is 400 max-members; changing a member's role still works`, async () => {
    const owner = await signIn(server.url);
    const last = await signIn(server.url);
    const extra = await signIn(server.url);
    const { board } = await createBoard(server.url, owner);
    const row = await server.database.prisma.whiteboard.findUniqueOrThrow({ where: { boardId: board.boardId }, select: { id: true } });
    const now = new Date();
    const stamp = Date.now().toString(36).replace(/[0lIO]/g, 'z');
    await server.database.prisma.account.createMany({
      data: Array.from({ length: MAX_MEMBERS_PER_BOARD - 1 }, (_, i) => ({ publicId: `Mb${stamp}x${i}`, kind: 'ROOT' as const })),
    });
    const accounts = await server.database.prisma.account.findMany({ where: { publicId: { startsWith: `Mb${stamp}x` } }, select: { id: true } });
    await server.database.prisma.whiteboardAclEntry.createMany({
      data: accounts.map((a) => ({ whiteboardId: row.id, principalAccountId: a.id, role: 'VIEWER' as const, createdAt: now, updatedAt: now })),
    });
    const put = (who: { rootAccountId: string }, role: string) => api(server.url, 'PUT', `${BOARDS}/${board.boardId}/members/${who.rootAccountId}`, { role }, owner.auth);
    expect((await put(last, 'VIEWER')).status).toBe(200);
    const over = await put(extra, 'VIEWER');
    expect(over.status).toBe(400);
    expect(over.body.violations).toEqual([expect.objectContaining({ fieldPath: 'accountId', ruleId: 'max-members' })]);
    const g = await gql(owner.auth, 'mutation($b: String!, $a: String!) { setWhiteboardMember(boardId: $b, accountId: $a, role: VIEWER) { board { boardId } } }', { b: board.boardId, a: extra.rootAccountId });
    expect(g.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    expect((await put(last, 'EDITOR')).status).toBe(200);
  });
});

describe('room connections are metered', () => {
  it('an awareness message over its size closes that connection (AWARENESS_TOO_LARGE); the room goes on', async () => {
    const owner = await signIn(server.url);
    const { board } = await createBoard(server.url, owner);
    const a = open(board.boardId, owner.token);
    const b = open(board.boardId, owner.token);
    expect(await outcome(a)).toBe('synced');
    expect(await outcome(b)).toBe('synced');
    a.provider.setAwarenessField('user', { name: 'x'.repeat(2048) });
    await pollUntil(() => a.closes.length > 0, 3000);
    expect(a.closes).toEqual(['AWARENESS_TOO_LARGE']);
    expect([...b.provider.awareness!.getStates().values()].some((s) => JSON.stringify(s).includes('xxxx'))).toBe(false);
    texts(b).set('still', 'working');
    const c = open(board.boardId, owner.token);
    expect(await outcome(c)).toBe('synced');
    await pollUntil(() => texts(c).get('still') === 'working', 3000);
  });

  it('stateless messages: over the rate (STATELESS_RATE_EXCEEDED) or the size (STATELESS_TOO_LARGE) close the connection', async () => {
    const owner = await signIn(server.url);
    const { board } = await createBoard(server.url, owner);
    const fast = open(board.boardId, owner.token);
    const big = open(board.boardId, owner.token);
    expect(await outcome(fast)).toBe('synced');
    expect(await outcome(big)).toBe('synced');
    for (let i = 0; i < 10; i++) fast.provider.sendStateless(`ping ${i}`);
    await pollUntil(() => fast.closes.length > 0, 3000);
    expect(fast.closes).toEqual(['STATELESS_RATE_EXCEEDED']);
    sendRaw(big, frame(board.boardId, BROADCAST_STATELESS, (e) => encoding.writeVarString(e, 'y'.repeat(1024))));
    await pollUntil(() => big.closes.length > 0, 3000);
    expect(big.closes).toEqual(['STATELESS_TOO_LARGE']);
  });

  it('a read-only connection cannot broadcast stateless messages (READ_ONLY_BROADCAST); an editor can', async () => {
    const owner = await signIn(server.url);
    const viewer = await signIn(server.url);
    const { board } = await createBoard(server.url, owner);
    await api(server.url, 'PUT', `${BOARDS}/${board.boardId}/members/${viewer.rootAccountId}`, { role: 'VIEWER' }, owner.auth);
    const o = open(board.boardId, owner.token);
    const v = open(board.boardId, viewer.token);
    expect(await outcome(o)).toBe('synced');
    expect(await outcome(v)).toBe('synced');
    const heard: string[] = [];
    o.provider.on('stateless', ({ payload }: { payload: string }) => heard.push(payload));
    sendRaw(v, frame(board.boardId, BROADCAST_STATELESS, (e) => encoding.writeVarString(e, 'from the viewer')));
    await pollUntil(() => v.closes.length > 0, 3000);
    expect(v.closes).toEqual(['READ_ONLY_BROADCAST']);
    sendRaw(o, frame(board.boardId, BROADCAST_STATELESS, (e) => encoding.writeVarString(e, 'from the owner')));
    await pollUntil(() => heard.length > 0, 3000);
    expect(heard).toEqual(['from the owner']);
  });

  it('sync requests are counted: past the limit a minute, SYNC_RATE_EXCEEDED', async () => {
    const owner = await signIn(server.url);
    const { board } = await createBoard(server.url, owner);
    const a = open(board.boardId, owner.token);
    expect(await outcome(a)).toBe('synced');
    // SyncStep1 with an empty state vector: "send me the whole document". The provider sent one on joining.
    const step1 = frame(board.boardId, SYNC, (e) => {
      encoding.writeVarUint(e, 0);
      encoding.writeVarUint8Array(e, new Uint8Array([0]));
    });
    for (let i = 0; i < 5; i++) sendRaw(a, step1);
    await pollUntil(() => a.closes.length > 0, 3000);
    expect(a.closes).toEqual(['SYNC_RATE_EXCEEDED']);
  });
});
