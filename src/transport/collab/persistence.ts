import type { Extension, Hocuspocus, onLoadDocumentPayload, onStoreDocumentPayload } from '@hocuspocus/server';
import type { Logger } from 'pino';
import * as Y from 'yjs';
import type { WhiteboardService } from '../../services/whiteboards.ts';
import { CLOSE, refusal } from './context.ts';

/**
 * A board's Y.Doc lives in its Whiteboard row as one Yjs update: loaded when a room opens,
 * stored with Hocuspocus' debounce (2 s after the last edit, at most 10 s under constant
 * editing) and once more on graceful shutdown (`flush`). A SIGKILL loses at most the edits
 * of that window. A store merges with the stored update under a row lock, so two
 * processes storing the same board never drop each other's edits.
 *
 * A board whose stored update cannot be read fails alone: Hocuspocus 3.4 neither keeps
 * nor destroys the document when onLoadDocument throws (its awareness timer would leak),
 * so the document is destroyed here before the refusal goes to the client.
 */
export class RoomPersistence implements Extension {
  priority = 100;

  constructor(private readonly deps: { whiteboards: WhiteboardService; logger: Logger }) {}

  async onLoadDocument({ document, documentName }: onLoadDocumentPayload): Promise<void> {
    let stored: Uint8Array | undefined;
    try {
      stored = await this.deps.whiteboards.loadContent(documentName);
    } catch (err) {
      document.destroy();
      throw err;
    }
    if (stored === undefined) {
      document.destroy();
      throw refusal('WHITEBOARD_NOT_FOUND');
    }
    if (stored.length === 0) return;
    try {
      // decodeUpdate reads the whole update first, so a corrupt one changes nothing.
      Y.decodeUpdate(stored);
      Y.applyUpdate(document, stored);
    } catch (err) {
      this.deps.logger.error({ err, boardId: documentName }, 'stored whiteboard state is unreadable');
      document.destroy();
      throw refusal(CLOSE.unreadable.reason);
    }
  }

  async onStoreDocument({ document, documentName }: onStoreDocumentPayload): Promise<void> {
    await this.deps.whiteboards.storeContent(documentName, Y.encodeStateAsUpdate(document));
  }

  /** Stores every open board with edits waiting for their debounce (graceful shutdown). */
  async flush(instance: Hocuspocus): Promise<void> {
    await Promise.all(
      [...instance.documents.values()].map(async (document) => {
        const id = `onStoreDocument-${document.name}`;
        if (instance.debouncer.isDebounced(id)) await instance.debouncer.executeNow(id);
        await document.saveMutex.waitForUnlock();
      }),
    );
  }
}
