import * as Y from 'yjs';
import { errors } from '../../domain/errorCatalogue.ts';
import { yjsToScene } from './scene.ts';

/**
 * Version snapshots and compaction of a board's Y.Doc (docs/api-decisions.md, "Whiteboards",
 * issue 24 item 5).
 */

/**
 * A board's Y.Doc as one update, at most: the rooms' default cap (RoomLimits
 * `maxDocumentBytes`), which a restore is held to as well.
 */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

/** A new version is taken when the newest one is at least this old (5 minutes of editing). */
export const VERSION_INTERVAL_MS = 5 * 60_000;
/** Versions kept per board, newest first; older ones are deleted when a new one is taken. */
export const VERSIONS_KEPT = 20;

/**
 * Several states of one document as one update, re-encoded from a garbage-collected Y.Doc.
 * `Y.mergeUpdates` keeps the content of deleted items (a board that once held megabytes
 * and now holds nothing would still store the megabytes); applying the updates to a
 * document with gc on drops it, leaving only what identifies the deleted items.
 */
export function compactState(states: Uint8Array[]): Uint8Array {
  const doc = new Y.Doc({ gc: true });
  try {
    doc.transact(() => {
      for (const state of states) if (state.length > 0) Y.applyUpdate(doc, state);
    });
    return Y.encodeStateAsUpdate(doc);
  } finally {
    doc.destroy();
  }
}

/**
 * Turns `doc` into the content of `version` as one transaction on `doc` itself, so the
 * change is an ordinary Yjs update against the current document: every connection of an
 * open room receives it and converges, nothing is replaced under them. In the scene
 * mapping (scene.ts): the elements now in the array are deleted and the
 * version's elements inserted; the `scene` map's keys are set to the version's (keys the
 * version lacks are deleted).
 */
export function restoreInto(doc: Y.Doc, version: Uint8Array): void {
  const source = new Y.Doc();
  try {
    if (version.length > 0) Y.applyUpdate(source, version);
    const scene = yjsToScene(source);
    const sceneMap = source.getMap('scene').toJSON() as Record<string, unknown>;
    doc.transact(() => {
      const elements = doc.getArray<Y.Map<unknown>>('elements');
      if (elements.length > 0) elements.delete(0, elements.length);
      elements.push(scene.elements.map((el) => new Y.Map<unknown>(Object.entries(el))));
      const target = doc.getMap('scene');
      for (const key of [...target.keys()]) if (!(key in sceneMap)) target.delete(key);
      for (const [key, value] of Object.entries(sceneMap)) target.set(key, value);
    });
  } finally {
    source.destroy();
  }
}

/**
 * `restoreInto` held to the document cap: the restore is made on a copy of `doc` and
 * measured there; only a result within `maxBytes` reaches `doc`, as one update (the
 * copy's changes since `doc`'s state), so a refused restore changes nothing. The copy
 * garbage-collects like a room's document, so the measure is what the room would hold.
 */
export function restoreWithin(doc: Y.Doc, version: Uint8Array, maxBytes: number): void {
  const copy = new Y.Doc({ gc: true });
  try {
    Y.applyUpdate(copy, Y.encodeStateAsUpdate(doc));
    const before = Y.encodeStateVector(copy);
    restoreInto(copy, version);
    const sizeBytes = Y.encodeStateAsUpdate(copy).length;
    if (sizeBytes > maxBytes) {
      throw errors.DOCUMENT_TOO_LARGE(`the restored document would be ${sizeBytes} bytes, over the board's ${maxBytes}`, {
        extensions: { sizeBytes, maxBytes },
      });
    }
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(copy, before));
  } finally {
    copy.destroy();
  }
}
