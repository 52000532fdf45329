import type { Connection, connectedPayload, Extension, Hocuspocus, onConfigurePayload, onDisconnectPayload } from '@hocuspocus/server';
import type { Logger } from 'pino';
import type { Authenticator } from '../../auth/authenticate.ts';
import type { WhiteboardService } from '../../services/whiteboards/index.ts';
import { CLOSE, type RoomContext } from './context.ts';

/**
 * Access changes reach open rooms at once, by push, never by polling:
 * - every committed change of a board's audience, default role, members or archive state
 *   is published (through Redis to every process) and each process re-resolves the roles
 *   of that board's connections: no role → closed (ACCESS_REVOKED), a role that cannot
 *   edit → read-only from the next message, editing allowed again → read-write;
 * - every change of a connection's credential (revoked or expired key, policy or IP list
 *   changed, logout) arrives through the same CredentialWatch as graphql-ws sockets: the
 *   connection turns read-only the moment the change arrives, and once the credential has
 *   been read back it is closed (CREDENTIALS_REVOKED) or its role resolved again;
 * - a deleted board's room closes for everyone (BOARD_DELETED); a connection that joined
 *   while the deletion committed finds no board when resolved in `connected` (ACCESS_REVOKED);
 * - when the bus reports that changes may have been lost (a gap), every open connection
 *   turns read-only and is resolved again at once, whichever board it is on; a gap in
 *   credential changes reloads every followed credential the same way (CredentialWatch).
 */
export class RoomAccessChanges implements Extension {
  private instance?: Hocuspocus;
  private unwatch?: () => void;

  constructor(private readonly deps: { whiteboards: WhiteboardService; authenticator: Authenticator; logger: Logger }) {}

  async onConfigure({ instance }: onConfigurePayload): Promise<void> {
    this.instance = instance;
    // A gap (changes lost on the way: this process's subscription was down, or another
    // process's outbox overflowed) fails closed: every open connection is resolved again,
    // at once, after every gap; following goes on (issue 24).
    this.unwatch = this.deps.whiteboards.watchAccess({
      changed: (boardId, deleted) => (deleted ? this.closeAll(boardId) : void this.reresolve(boardId)),
      gap: () => {
        this.deps.logger.warn('whiteboard access changes may have been lost; re-resolving every room connection');
        for (const [name, document] of this.instance?.documents ?? []) {
          for (const connection of document.getConnections()) connection.readOnly = true;
          void this.reresolve(name);
        }
      },
    });
  }

  async onDestroy(): Promise<void> {
    this.unwatch?.();
  }

  /**
   * Starts following the credential once the connection is in the room. It is read again
   * here, so a change committed between authentication and now is not missed.
   */
  async connected({ connection, context, documentName }: connectedPayload): Promise<void> {
    const room = context as RoomContext;
    let state;
    try {
      state = await this.deps.authenticator.inspect(room.caller, room.clientIp);
    } catch {
      this.revoke(connection, CLOSE.credentialsRevoked);
      return;
    }
    room.caller = state.caller;
    const live = this.deps.authenticator.watch(state, room.clientIp);
    room.live = live;
    live.onChange(() => {
      if (live.dead) this.revoke(connection, CLOSE.credentialsRevoked);
      // Until the change has been read back, nothing this connection sends is applied.
      else if (!live.settled) connection.readOnly = true;
      else void this.follow(connection, documentName, room);
    });
    await this.apply(connection, documentName);
  }

  async onDisconnect({ context }: onDisconnectPayload): Promise<void> {
    (context as RoomContext).live?.release();
  }

  private async follow(connection: Connection, boardId: string, room: RoomContext): Promise<void> {
    const caller = await room.live?.current();
    if (!caller) {
      this.revoke(connection, CLOSE.credentialsRevoked);
      return;
    }
    room.caller = caller;
    await this.apply(connection, boardId);
  }

  /**
   * Closes a room connection with its reason, and its WebSocket too once no other board
   * shares it: a revoked client keeps nothing open to send into (a provider reconnecting
   * is authenticated again, and refused).
   */
  private revoke(connection: Connection, event: { code: number; reason: string }): void {
    connection.close(event);
    const socket = connection.webSocket;
    for (const document of this.instance?.documents.values() ?? []) {
      if (document.getConnections().some((c) => c.webSocket === socket)) return;
    }
    socket.close(event.code, event.reason);
  }

  /** A deleted board: every connection of its room goes, whatever its role was. */
  private closeAll(boardId: string): void {
    for (const connection of this.instance?.documents.get(boardId)?.getConnections() ?? []) this.revoke(connection, CLOSE.boardDeleted);
  }

  private async reresolve(boardId: string): Promise<void> {
    const document = this.instance?.documents.get(boardId);
    if (!document) return;
    await Promise.all(document.getConnections().map((c) => this.apply(c, boardId)));
  }

  private async apply(connection: Connection, boardId: string): Promise<void> {
    const { caller, live } = connection.context as RoomContext;
    // A credential change being read back decides first (follow() applies it after).
    if (live && !live.settled) return;
    try {
      const access = await this.deps.whiteboards.roomAccess(caller, boardId);
      if (!access) this.revoke(connection, CLOSE.accessRevoked);
      else connection.readOnly = !access.permissions.canEdit;
    } catch (err) {
      this.deps.logger.warn({ err, boardId }, 'could not re-resolve a room connection; it keeps its role');
    }
  }
}
