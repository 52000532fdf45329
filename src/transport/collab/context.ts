import { codes } from '../../domain/errorCatalogue.ts';
import type { Caller } from '../../auth/caller.ts';
import type { LiveCredential } from '../../auth/credentialWatch.ts';
import { MAX_DOCUMENT_BYTES } from '../../services/whiteboards/index.ts';

export const COLLAB_PATH = '/collab';

/** What a room connection carries from upgrade to close. */
export interface RoomContext {
  clientIp: string;
  caller: Caller;
  /** The caller's credential, followed by push from the moment the room is joined. */
  live?: LiveCredential;
}

/**
 * The room limits (docs/api-decisions.md, "Whiteboards"). A client over one is closed
 * with a reason; the server and the other connections go on.
 */
export interface RoomLimits {
  /** One WebSocket frame; larger ones close the socket (1009). */
  maxMessageBytes: number;
  /** The board's Y.Doc as one update; an edit that would pass it closes that connection. */
  maxDocumentBytes: number;
  /** Open connections to one board on one process. */
  maxConnectionsPerBoard: number;
  /** WebSocket upgrades per client address per minute, across processes (shared store). */
  connectAttemptsPerMinute: number;
  /** Awareness messages per connection per second. */
  awarenessPerSecond: number;
  /** One awareness message (a client's cursor, selection and name), frame bytes. */
  maxAwarenessBytes: number;
  /** Stateless and broadcast-stateless messages per connection per second. */
  statelessPerSecond: number;
  /** One stateless or broadcast-stateless message, frame bytes (a broadcast is copied to every connection). */
  maxStatelessBytes: number;
  /**
   * Sync requests (SyncStep1, answered with the document's missing part, the whole of it
   * for an empty state vector; and awareness queries) per connection per minute. A
   * provider sends one when it joins.
   */
  syncRequestsPerMinute: number;
  /**
   * Messages sent to one connection and not yet written to its socket. A connection whose
   * client stops reading is closed (SUBSCRIBER_TOO_SLOW) once it passes this or
   * `maxSendQueueBytes`, so its backlog never grows without bound.
   */
  maxSendQueueMessages: number;
  /**
   * Bytes buffered for one connection (ws `bufferedAmount`). A message is refused only when
   * the buffer already holds this much, so one message larger than the bound (a joining
   * client's whole document, up to `maxDocumentBytes`) still goes to a reading client.
   */
  maxSendQueueBytes: number;
}

export const DEFAULT_ROOM_LIMITS: RoomLimits = {
  maxMessageBytes: 1024 * 1024,
  maxDocumentBytes: MAX_DOCUMENT_BYTES,
  maxConnectionsPerBoard: 100,
  connectAttemptsPerMinute: 60,
  awarenessPerSecond: 30,
  maxAwarenessBytes: 8 * 1024,
  statelessPerSecond: 10,
  maxStatelessBytes: 8 * 1024,
  syncRequestsPerMinute: 6,
  maxSendQueueMessages: 2_000,
  maxSendQueueBytes: 4 * 1024 * 1024,
};

/** Close codes and reasons a client can act on. */
export const CLOSE = {
  accessRevoked: { code: 4403, reason: 'ACCESS_REVOKED' },
  boardDeleted: { code: 4404, reason: 'BOARD_DELETED' },
  credentialsRevoked: { code: 4401, reason: codes.CREDENTIALS_REVOKED },
  documentTooLarge: { code: 4413, reason: codes.DOCUMENT_TOO_LARGE },
  awarenessRate: { code: 4429, reason: 'AWARENESS_RATE_EXCEEDED' },
  awarenessTooLarge: { code: 4413, reason: 'AWARENESS_TOO_LARGE' },
  statelessRate: { code: 4429, reason: 'STATELESS_RATE_EXCEEDED' },
  statelessTooLarge: { code: 4413, reason: 'STATELESS_TOO_LARGE' },
  readOnlyBroadcast: { code: 4403, reason: 'READ_ONLY_BROADCAST' },
  syncRate: { code: 4429, reason: 'SYNC_RATE_EXCEEDED' },
  connectRate: { code: 4429, reason: 'TOO_MANY_CONNECTION_ATTEMPTS' },
  unreadable: { code: 4500, reason: codes.BOARD_UNREADABLE },
  tooSlow: { code: 4408, reason: 'SUBSCRIBER_TOO_SLOW: reconnect to resynchronise' },
  shuttingDown: { code: 1001, reason: 'server shutting down' },
} as const;

/**
 * A refused authentication: Hocuspocus sends `reason` to the provider (authenticationFailed).
 * The message is empty on purpose: Hocuspocus prints every hook error that has one to the
 * console, and a refusal is an answer, not a fault (unexpected errors are logged by us).
 */
export function refusal(reason: string): Error & { reason: string } {
  return Object.assign(new Error(''), { reason });
}

/** A close of one room connection from a hook: Hocuspocus closes with this code and reason. */
export function closeWith(event: { code: number; reason: string }): Error & { code: number; reason: string } {
  return Object.assign(new Error(event.reason), event);
}
