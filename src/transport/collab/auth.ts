import type { Extension, onAuthenticatePayload, onConnectPayload } from '@hocuspocus/server';
import type { Authenticator, AuthRequest } from '../../auth/authenticate.ts';
import type { Caller } from '../../auth/caller.ts';
import { ApiError, codes } from '../../domain/errorCatalogue.ts';
import { isCanonicalBoardId } from '../../domain/whiteboard.ts';
import type { WhiteboardService } from '../../services/whiteboards/index.ts';
import { COLLAB_PATH, type RoomContext, refusal } from './context.ts';

/**
 * Who joins a room, and how. The token of a provider is either
 * - a session token as it is (`st_…`, no `Bearer ` prefix), or
 * - an API-key token: the JSON object {"X-API-KEY-ID", "X-API-TIMESTAMP", "X-API-SIGNATURE"},
 *   the signature made like a request's over `timestamp\nGET\n/collab/<boardId>\n`, so one
 *   token opens one board once (the replay guard refuses it a second time: a provider must
 *   get its token from a function, fresh for each connection).
 * No credentials or no role on the board → refused; a role that cannot edit (VIEWER, an
 * archived board, a key without TRADE) → a read-only connection; otherwise read-write.
 */
export class RoomAuth implements Extension {
  priority = 200;

  constructor(
    private readonly deps: { authenticator: Authenticator; whiteboards: WhiteboardService; maxConnectionsPerBoard: number },
  ) {}

  /**
   * The document name is the board's canonical id or nothing: a second spelling would be a
   * second room that access changes, caps and persistence never find (issue 24). onConnect
   * runs before onAuthenticate, so nothing else ever sees such a name.
   */
  async onConnect({ documentName }: onConnectPayload): Promise<void> {
    if (!isCanonicalBoardId(documentName)) throw refusal(codes.WHITEBOARD_NOT_FOUND);
  }

  async onAuthenticate(data: onAuthenticatePayload): Promise<Partial<RoomContext>> {
    const context = data.context as RoomContext;
    const caller = await this.authenticate(data.token, data.documentName, context.clientIp);
    const access = await this.deps.whiteboards.roomAccess(caller, data.documentName, { visit: true });
    if (!access) throw refusal(codes.WHITEBOARD_NOT_FOUND);
    const open = data.instance.documents.get(data.documentName)?.getConnectionsCount() ?? 0;
    if (open >= this.deps.maxConnectionsPerBoard) throw refusal('TOO_MANY_CONNECTIONS');
    data.connectionConfig.readOnly = !access.permissions.canEdit;
    return { caller };
  }

  private async authenticate(token: string, boardId: string, ip: string): Promise<Caller> {
    const request: AuthRequest = { method: 'GET', target: `${COLLAB_PATH}/${boardId}`, headers: tokenHeaders(token), rawBody: '', ip };
    try {
      const caller = await this.deps.authenticator.authenticate(request);
      if (!caller) throw refusal(codes.UNAUTHENTICATED);
      // A signed room token is single use, like every signature: used up before the room opens.
      await this.deps.authenticator.claimSignature(caller);
      return caller;
    } catch (err) {
      if (err instanceof ApiError) throw refusal(err.code);
      throw err;
    }
  }
}

/** The request headers a room token stands for. */
export function tokenHeaders(token: string): Record<string, string> {
  if (!token.startsWith('{')) return token === '' ? {} : { authorization: `Bearer ${token}` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(token);
  } catch {
    throw refusal('MALFORMED_TOKEN');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw refusal('MALFORMED_TOKEN');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    const lower = name.toLowerCase();
    if (!['x-api-key-id', 'x-api-timestamp', 'x-api-signature'].includes(lower) || typeof value !== 'string') throw refusal('MALFORMED_TOKEN');
    headers[lower] = value;
  }
  return headers;
}
