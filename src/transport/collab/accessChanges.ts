import type { Connection, Extension, Hocuspocus, onConfigurePayload } from '@hocuspocus/server';
import type { Logger } from 'pino';
import type { Authenticator } from '../../auth/authenticate.ts';
import type { WhiteboardService } from '../../services/whiteboards.ts';
import { CLOSE, type RoomContext } from './context.ts';

/** How often open connections' credentials are checked again (as graphql-ws does). */
const RECHECK_MS = 5_000;

/**
 * Access changes reach open rooms: every committed change of a board's audience, default
 * role, members or archive state is published (through Redis to every process) and each
 * process re-resolves the roles of that board's connections here: no role → closed
 * (ACCESS_REVOKED), a role that cannot edit → read-only from the next message, editing
 * allowed again → read-write. Credentials are rechecked every 5 s (logout, revoked key).
 */
export class RoomAccessChanges implements Extension {
  private instance?: Hocuspocus;
  private changes?: AsyncIterableIterator<{ boardId: string }>;
  private timer?: NodeJS.Timeout;

  constructor(private readonly deps: { whiteboards: WhiteboardService; authenticator: Authenticator; logger: Logger }) {}

  async onConfigure({ instance }: onConfigurePayload): Promise<void> {
    this.instance = instance;
    const changes = this.deps.whiteboards.accessChanges();
    this.changes = changes;
    void (async () => {
      for await (const change of changes) await this.reresolve(change.boardId);
    })().catch((err: unknown) => this.deps.logger.error({ err }, 'whiteboard access changes stopped'));
    this.timer = setInterval(() => void this.recheckCredentials(), RECHECK_MS);
    this.timer.unref();
  }

  async onDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.changes?.return?.();
  }

  private async reresolve(boardId: string): Promise<void> {
    const document = this.instance?.documents.get(boardId);
    if (!document) return;
    await Promise.all(document.getConnections().map((c) => this.apply(c, boardId)));
  }

  private async apply(connection: Connection, boardId: string): Promise<void> {
    const { caller } = connection.context as RoomContext;
    try {
      const access = await this.deps.whiteboards.roomAccess(caller, boardId);
      if (!access) connection.close(CLOSE.accessRevoked);
      else connection.readOnly = !access.permissions.canEdit;
    } catch (err) {
      this.deps.logger.warn({ err, boardId }, 'could not re-resolve a room connection; it keeps its role');
    }
  }

  private async recheckCredentials(): Promise<void> {
    for (const document of this.instance?.documents.values() ?? []) {
      for (const connection of document.getConnections()) {
        const context = connection.context as RoomContext;
        try {
          context.caller = (await this.deps.authenticator.inspect(context.caller, context.clientIp)).caller;
        } catch {
          connection.close(CLOSE.credentialsRevoked);
          continue;
        }
        await this.apply(connection, document.name);
      }
    }
  }
}
