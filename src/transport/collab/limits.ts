import type { afterLoadDocumentPayload, afterUnloadDocumentPayload, beforeHandleMessagePayload, Connection, Extension } from '@hocuspocus/server';
import * as decoding from 'lib0/decoding';
import * as Y from 'yjs';
import { CLOSE, closeWith, type RoomLimits } from './context.ts';

const SYNC = 0;
const AWARENESS = 1;
const QUERY_AWARENESS = 3;
const SYNC_REPLY = 4;
const STATELESS = 5;
const BROADCAST_STATELESS = 6;
const SYNC_STEP_1 = 0;

/** Messages of one kind a connection sent in the current window. */
interface Window {
  start: number;
  count: number;
}

/**
 * Per-message limits: document size; awareness, stateless and sync-request rates; awareness
 * and stateless sizes; no broadcast from a read-only connection. Rates are counted per
 * connection in fixed windows (a second, a minute for sync requests). The hook is synchronous on
 * purpose: Hocuspocus 3.x runs a message once its hooks settle, and an awaiting hook lets
 * later messages of the same connection overtake earlier ones.
 *
 * Document size is tracked as an upper bound (stored size plus every update applied since);
 * only when the bound would pass the limit is the exact size computed, so the common
 * message costs no encoding.
 */
export class RoomLimitsExtension implements Extension {
  priority = 300;
  private readonly sizeBound = new Map<string, number>();
  private readonly windows = new WeakMap<Connection, Map<number, Window>>();

  constructor(private readonly limits: RoomLimits) {}

  async afterLoadDocument({ document, documentName }: afterLoadDocumentPayload): Promise<void> {
    this.sizeBound.set(documentName, Y.encodeStateAsUpdate(document).length);
  }

  async afterUnloadDocument({ documentName, instance }: afterUnloadDocumentPayload): Promise<void> {
    if (!instance.documents.has(documentName)) this.sizeBound.delete(documentName);
  }

  beforeHandleMessage({ update, connection, document, documentName }: beforeHandleMessagePayload): Promise<void> {
    const decoder = decoding.createDecoder(update);
    decoding.readVarString(decoder);
    const type = decoding.readVarUint(decoder);
    if (type === AWARENESS) {
      if (update.length > this.limits.maxAwarenessBytes) throw closeWith(CLOSE.awarenessTooLarge);
      if (this.over(connection, AWARENESS, 1_000, this.limits.awarenessPerSecond)) throw closeWith(CLOSE.awarenessRate);
    } else if (type === STATELESS || type === BROADCAST_STATELESS) {
      // A viewer may not write to other connections, in the document or beside it.
      if (type === BROADCAST_STATELESS && connection.readOnly) throw closeWith(CLOSE.readOnlyBroadcast);
      if (update.length > this.limits.maxStatelessBytes) throw closeWith(CLOSE.statelessTooLarge);
      if (this.over(connection, STATELESS, 1_000, this.limits.statelessPerSecond)) throw closeWith(CLOSE.statelessRate);
    } else if (type === QUERY_AWARENESS || ((type === SYNC || type === SYNC_REPLY) && decoding.peekVarUint(decoder) === SYNC_STEP_1)) {
      if (this.over(connection, SYNC, 60_000, this.limits.syncRequestsPerMinute)) throw closeWith(CLOSE.syncRate);
    } else if ((type === SYNC || type === SYNC_REPLY) && !connection.readOnly) {
      const bound = (this.sizeBound.get(documentName) ?? 0) + update.length;
      if (bound > this.limits.maxDocumentBytes) {
        const exact = Y.encodeStateAsUpdate(document).length;
        if (exact + update.length > this.limits.maxDocumentBytes) throw closeWith(CLOSE.documentTooLarge);
        this.sizeBound.set(documentName, exact + update.length);
      } else {
        this.sizeBound.set(documentName, bound);
      }
    }
    return Promise.resolve();
  }

  /** Counts one message of `kind` for `connection`; true when it passes `limit` in its window. */
  private over(connection: Connection, kind: number, windowMs: number, limit: number): boolean {
    let kinds = this.windows.get(connection);
    if (!kinds) {
      kinds = new Map();
      this.windows.set(connection, kinds);
    }
    const start = Math.floor(Date.now() / windowMs) * windowMs;
    const window = kinds.get(kind);
    if (!window || window.start !== start) {
      kinds.set(kind, { start, count: 1 });
      return limit < 1;
    }
    return ++window.count > limit;
  }
}
