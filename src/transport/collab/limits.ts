import type { afterLoadDocumentPayload, afterUnloadDocumentPayload, beforeHandleMessagePayload, Connection, Extension } from '@hocuspocus/server';
import * as decoding from 'lib0/decoding';
import * as Y from 'yjs';
import { CLOSE, closeWith, type RoomLimits } from './context.ts';

const SYNC = 0;
const AWARENESS = 1;
const SYNC_REPLY = 4;

/**
 * Per-message limits: document size and awareness rate. The hook is synchronous on
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
  private readonly awareness = new WeakMap<Connection, { second: number; count: number }>();

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
      const second = Math.floor(Date.now() / 1000);
      const window = this.awareness.get(connection);
      if (!window || window.second !== second) this.awareness.set(connection, { second, count: 1 });
      else if (++window.count > this.limits.awarenessPerSecond) throw closeWith(CLOSE.awarenessRate);
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
}
