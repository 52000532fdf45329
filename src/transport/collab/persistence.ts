import { codes } from '../../domain/errorCatalogue.ts';
import type { Document, Extension, Hocuspocus, onLoadDocumentPayload, onStoreDocumentPayload } from '@hocuspocus/server';
import type { Logger } from 'pino';
import * as Y from 'yjs';
import type { WhiteboardService } from '../../services/whiteboards/index.ts';
import { errorCause } from './contain.ts';
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
 *
 * A store that fails (the database busy or away: Prisma P2028 "Unable to start a
 * transaction in the given time", a statement timeout, a lost connection) never leaves this
 * hook: Hocuspocus runs the debounced store from a timer and rethrows a hook's error there,
 * where nothing awaits it, so the rejection would end the process; and the room would unload
 * with its unstored edits once its last connection left. Instead the failure is logged
 * (error name and code only, errorCause) and the store is scheduled again under Hocuspocus' own debounce id,
 * with exponential backoff: the document counts as unstored, so it stays in memory, a later
 * edit's store or a graceful shutdown's flush takes the retry's place, and each attempt
 * stores the whole document as it is then. (Acknowledged edits are those in the room's
 * document: nothing is dropped from it while its store fails.)
 */
export class RoomPersistence implements Extension {
  priority = 100;
  /** Consecutive failed stores per board, for the backoff; gone once one succeeds. */
  private readonly failures = new Map<string, number>();
  /** Past the shutdown deadline: a failed store is logged as lost, not retried. */
  private closed = false;

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
      throw refusal(codes.WHITEBOARD_NOT_FOUND);
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

  async onStoreDocument(payload: onStoreDocumentPayload): Promise<void> {
    const { document, documentName, instance } = payload;
    try {
      await this.deps.whiteboards.storeContent(documentName, Y.encodeStateAsUpdate(document));
    } catch (err) {
      const failures = (this.failures.get(documentName) ?? 0) + 1;
      this.failures.set(documentName, failures);
      const cause = errorCause(err);
      if (this.closed) {
        this.deps.logger.error({ boardId: documentName, failures, ...cause }, 'whiteboard store failed at shutdown; its unstored edits are lost');
        return;
      }
      const retryInMs = Math.min(STORE_RETRY.maxMs, STORE_RETRY.firstMs * 2 ** (failures - 1));
      this.deps.logger.error({ boardId: documentName, failures, retryInMs, ...cause }, 'whiteboard store failed; the room keeps its edits and retries');
      // A rejection here would be lost (see the class comment): the retry's own failures are
      // handled by this hook again, so this promise only settles.
      void instance.debouncer
        .debounce(storeId(document), () => instance.storeDocumentHooks(document, payload, true), retryInMs, Number.POSITIVE_INFINITY)
        .catch(() => undefined);
      return;
    }
    if (this.failures.delete(documentName)) this.deps.logger.info({ boardId: documentName }, 'whiteboard store succeeded again');
  }

  /** Boards whose edits are not stored yet: waiting for their debounce or a retry, or storing now. */
  private unstored(instance: Hocuspocus): Document[] {
    return [...instance.documents.values()].filter(
      (d) => instance.debouncer.isDebounced(storeId(d)) || instance.debouncer.isCurrentlyExecuting(storeId(d)) || d.saveMutex.isLocked(),
    );
  }

  /**
   * Stores every open board with unstored edits (graceful shutdown), retrying failed
   * stores at the first backoff step until `deadlineMs` has passed; the boards still
   * unstored then are logged, and their later failures are no longer retried.
   */
  async flush(instance: Hocuspocus, deadlineMs = 5_000): Promise<void> {
    const until = Date.now() + deadlineMs;
    for (let round = 0; ; round++) {
      const pending = this.unstored(instance);
      if (pending.length === 0) return;
      if (Date.now() >= until) {
        this.closed = true;
        this.deps.logger.error({ boardIds: pending.map((d) => d.name) }, 'whiteboard edits not stored before shutdown');
        return;
      }
      if (round > 0) await new Promise((r) => setTimeout(r, STORE_RETRY.firstMs));
      await Promise.all(
        pending.map(async (document) => {
          const id = storeId(document);
          if (instance.debouncer.isDebounced(id)) await instance.debouncer.executeNow(id);
          await document.saveMutex.waitForUnlock();
        }),
      );
    }
  }
}

/** Backoff of failed stores: `firstMs` after the first failure, doubling up to `maxMs`. */
export const STORE_RETRY = { firstMs: 500, maxMs: 30_000 };

/** Hocuspocus' debounce id of a document's store. */
const storeId = (document: Document) => `onStoreDocument-${document.name}`;
