import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { Redis as RedisExtension } from '@hocuspocus/extension-redis';
import { Hocuspocus, type Extension } from '@hocuspocus/server';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import type { Authenticator } from '../../auth/authenticate.ts';
import type { TrustProxy } from '../../config.ts';
import { scale } from '../../domain/ratelimit/tokenBucket.ts';
import type { SharedStore } from '../../infra/redis.ts';
import type { WhiteboardService } from '../../services/whiteboards/index.ts';
import { clientAddress, trustFunction } from '../clientAddress.ts';
import { RoomAccessChanges } from './accessChanges.ts';
import { RoomAuth } from './auth.ts';
import { containHooks } from './contain.ts';
import { CLOSE, COLLAB_PATH, DEFAULT_ROOM_LIMITS, type RoomLimits } from './context.ts';
import { RoomLimitsExtension } from './limits.ts';
import { RoomPersistence } from './persistence.ts';
import { boundSendQueue } from './sendQueue.ts';

export interface CollabDeps {
  whiteboards: WhiteboardService;
  authenticator: Authenticator;
  store: SharedStore;
  /** Rooms of several processes meet through Redis (under the store's key prefix) only when one is configured. */
  redisUrl: string | undefined;
  logger: Logger;
  trustProxy: TrustProxy;
  limits?: Partial<RoomLimits>;
}

/**
 * Redis fan-out between processes, without the extension's store lock: stores merge under
 * a row lock (RoomPersistence), and a store that lost the lock race would be skipped
 * silently, leaving this process's last edits unstored.
 */
class RoomFanOut extends RedisExtension {
  override async onStoreDocument(): Promise<void> {}
  override async afterStoreDocument(): Promise<void> {}
}

/**
 * The live rooms of whiteboards: Hocuspocus at WebSocket path /collab of the service's
 * HTTP server, document name = boardId; one extension per concern (auth, persistence,
 * limits, access changes, Redis fan-out).
 */
export function createCollab(deps: CollabDeps) {
  const limits: RoomLimits = { ...DEFAULT_ROOM_LIMITS, ...deps.limits };
  const persistence = new RoomPersistence({ whiteboards: deps.whiteboards, logger: deps.logger });
  const extensions: Extension[] = [
    new RoomLimitsExtension(limits),
    new RoomAuth({ authenticator: deps.authenticator, whiteboards: deps.whiteboards, maxConnectionsPerBoard: limits.maxConnectionsPerBoard }),
    persistence,
    new RoomAccessChanges({ whiteboards: deps.whiteboards, authenticator: deps.authenticator, logger: deps.logger }),
  ];
  if (deps.store.kind === 'redis' && deps.redisUrl) {
    const url = deps.redisUrl;
    extensions.push(
      new RoomFanOut({
        prefix: `${deps.store.keyPrefix}collab`,
        createClient: () => {
          const client = new Redis(url, { maxRetriesPerRequest: null });
          // Without a listener ioredis prints each outage to stderr; the shared store already
          // reports it (start-up's line, /readyz), and the client reconnects by itself.
          client.on('error', () => undefined);
          return client;
        },
      }),
    );
  }
  // No hook failure may end the process (containHooks); persistence also retries its stores.
  const hocuspocus = new Hocuspocus({
    name: 'whiteboards',
    quiet: true,
    debounce: 2_000,
    maxDebounce: 10_000,
    extensions: extensions.map((e) => containHooks(e, deps.logger)),
  });
  // Export reads an open room's document, so edits not stored yet are in it.
  deps.whiteboards.readLiveDocuments((boardId) => hocuspocus.documents.get(boardId));
  // A restore is an edit of the room's document (loaded for it when no room is open), so
  // every connection, here and through the fan-out on other processes, receives it; the
  // direct connection stores the document once the edit is applied. The edit is held to
  // the room's document cap, as a connection's edits are.
  deps.whiteboards.editLiveDocuments(async (boardId, edit) => {
    const connection = await hocuspocus.openDirectConnection(boardId, { direct: true });
    try {
      await connection.transact((doc) => edit(doc, limits.maxDocumentBytes));
    } finally {
      await connection.disconnect();
    }
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxMessageBytes });
  const trust = trustFunction(deps.trustProxy);
  const attempts = scale({ quota: limits.connectAttemptsPerMinute, periodMs: 60_000, burst: limits.connectAttemptsPerMinute }, 1);

  async function admitted(ip: string): Promise<boolean> {
    try {
      const outcome = await deps.store.chargeBuckets([{ key: `collab:connect:${ip}`, ...attempts }]);
      return outcome.admitted;
    } catch (err) {
      // Without the shared counter the room still works; the limit is a guard, not a gate.
      deps.logger.warn({ err }, 'connection-attempt limit unavailable');
      return true;
    }
  }

  let server: Server | undefined;
  let closing = false;
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== COLLAB_PATH) return;
    // While shutting down, reconnecting clients are turned away at once (a socket left
    // unanswered would hold the HTTP server's close open).
    if (closing) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const clientIp = clientAddress(req, trust);
    void admitted(clientIp).then((ok) => {
      wss.handleUpgrade(req, socket, head, (ws) => {
        // ws reports a frame over maxPayload (and other protocol errors) as an 'error'
        // event before it closes the socket (1009); unheard, it would end the process.
        ws.on('error', (err) => deps.logger.info({ err: err.message, clientIp }, 'room socket closed on a protocol error'));
        if (!ok) {
          ws.close(CLOSE.connectRate.code, CLOSE.connectRate.reason);
          return;
        }
        boundSendQueue(ws, { maxMessages: limits.maxSendQueueMessages, maxBytes: limits.maxSendQueueBytes }, () =>
          deps.logger.info({ clientIp, bufferedBytes: ws.bufferedAmount }, 'room socket closed: its client stopped reading'),
        );
        hocuspocus.handleConnection(ws, req, { clientIp });
      });
    });
  };

  return {
    hocuspocus,
    limits,
    attach(http: Server) {
      server = http;
      http.on('upgrade', onUpgrade);
    },
    /**
     * Graceful shutdown: no new rooms, every board with unstored edits stored, then the
     * connections closed (clients reconnect to another process).
     */
    async close() {
      closing = true;
      await persistence.flush(hocuspocus);
      for (const client of wss.clients) client.close(CLOSE.shuttingDown.code, CLOSE.shuttingDown.reason);
      wss.close();
      // Rooms unload once their connections are gone (the Redis fan-out lingers a second
      // for last syncs); only then may its connections go.
      const deadline = Date.now() + 3_000;
      while (hocuspocus.getDocumentsCount() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await hocuspocus.hooks('onDestroy', { instance: hocuspocus });
      server?.off('upgrade', onUpgrade);
    },
  };
}

export type Collab = ReturnType<typeof createCollab>;
