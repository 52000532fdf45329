import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { api, newKeyPair, signHeaders, type ClientKey, type SignedIn } from './auth.ts';
import { pollUntil } from './wait.ts';

export const BOARDS = '/v1/collab/whiteboards';

/** A key of `owner` with a policy of its own. */
export async function keyFor(baseUrl: string, owner: SignedIn, permissions: string[]): Promise<ClientKey> {
  const policy = await api(baseUrl, 'POST', '/v1/auth/api-policies', { name: permissions.join('+'), permissions }, owner.auth);
  const pair = newKeyPair();
  const body = { label: 'bot', publicKeyEd25519: Buffer.from(pair.publicKey).toString('base64'), policyId: policy.body.policy.policyId };
  const r = await api(baseUrl, 'POST', '/v1/auth/api-keys', body, owner.auth);
  if (r.status !== 200) throw new Error(`create key: ${r.status} ${JSON.stringify(r.body)}`);
  return { keyId: r.body.apiKey.keyId, ...pair };
}

export async function createBoard(baseUrl: string, who: SignedIn, body: Record<string, unknown> = { title: 'plan' }) {
  const r = await api(baseUrl, 'POST', BOARDS, body, who.auth);
  if (r.status !== 200) throw new Error(`create board: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { board: any; access: any };
}

/** The room token of an API key: the three headers signed over GET /collab/<boardId>. */
export function apiKeyRoomToken(key: ClientKey, boardId: string): string {
  const h = signHeaders(key, 'GET', `/collab/${boardId}`, '');
  return JSON.stringify({ 'X-API-KEY-ID': h['x-api-key-id'], 'X-API-TIMESTAMP': h['x-api-timestamp'], 'X-API-SIGNATURE': h['x-api-signature'] });
}

export interface Room {
  provider: HocuspocusProvider;
  doc: Y.Doc;
  /** Reasons of authentication refusals and of the board's closes (Hocuspocus close messages), in order. */
  refusals: string[];
  closes: string[];
  /** `code reason` of closes of the WebSocket itself, in order. */
  socketCloses: string[];
  synced: Promise<void>;
  destroy(): void;
}

/** A real @hocuspocus/provider in Node (ws as the WebSocket), on its own socket. */
export function openRoom(baseUrl: string, boardId: string, token: string | (() => string)): Room {
  const url = `${baseUrl.replace(/^http/, 'ws')}/collab`;
  const doc = new Y.Doc();
  const refusals: string[] = [];
  const closes: string[] = [];
  const socketCloses: string[] = [];
  const websocketProvider = new HocuspocusProviderWebsocket({ url, WebSocketPolyfill: WebSocket as never, maxAttempts: 1 });
  let resolveSynced!: () => void;
  const synced = new Promise<void>((r) => (resolveSynced = r));
  const provider = new HocuspocusProvider({
    websocketProvider,
    name: boardId,
    document: doc,
    token,
    onSynced: () => resolveSynced(),
    onAuthenticationFailed: ({ reason }) => refusals.push(reason),
    // A Hocuspocus close message comes as a close event with code 1000 and the socket as its
    // target; the socket's own close carries its code.
    onClose: ({ event }) => {
      if (event.code === 1000 && !('wasClean' in event)) closes.push(event.reason);
      else socketCloses.push(`${event.code} ${event.reason}`);
    },
  });
  provider.attach();
  return {
    provider,
    doc,
    refusals,
    closes,
    socketCloses,
    synced,
    destroy() {
      // ws reports closing a socket that is still connecting as an 'error' event.
      (websocketProvider.webSocket as unknown as WebSocket | null)?.on?.('error', () => undefined);
      provider.destroy();
      websocketProvider.destroy();
      // A socket closed by the server shortly before (a revocation) has a reconnect timer
      // (the provider's `delay`) that destroy() does not clear in provider 3.4.
      websocketProvider.connect = async () => undefined;
      doc.destroy();
    },
  };
}

/** The rooms a test file opens, destroyed together after each test (or sooner). */
export class OpenRooms {
  private readonly rooms: Room[] = [];

  constructor(private readonly baseUrl: () => string) {}

  open(boardId: string, token: string | (() => string), url = this.baseUrl()): Room {
    const room = openRoom(url, boardId, token);
    this.rooms.push(room);
    return room;
  }

  destroyAll(): void {
    for (const room of this.rooms.splice(0)) room.destroy();
  }
}

/** Waits for a room to be refused, or to sync; returns which. */
export async function outcome(room: Room, timeoutMs = 5000): Promise<'synced' | 'refused'> {
  let synced = false;
  void room.synced.then(() => (synced = true));
  await pollUntil(() => synced || room.refusals.length > 0, timeoutMs);
  if (room.refusals.length > 0) return 'refused';
  if (synced) return 'synced';
  throw new Error('room neither synced nor was refused');
}

export const texts = (room: Room) => room.doc.getMap<string>('notes');
