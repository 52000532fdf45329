import type * as Y from 'yjs';

/**
 * Applies `edit` to a board's document as one transaction: the open room's document when
 * rooms run in this process (every connection receives the change, other processes through
 * the Redis fan-out), stored afterwards.
 */
export type LiveEditor = (boardId: string, edit: (doc: Y.Doc, maxDocumentBytes: number) => void) => Promise<void>;

/**
 * What the rooms of this process register: export reads their documents, restores edit
 * them. A module of its own, apart from the room operations that take the context
 * (roomAccess.ts): the context names this port, and the port names nothing back.
 */
export interface LiveRooms {
  document: (boardId: string) => Y.Doc | undefined;
  /** Unset: no rooms here, edits go to the stored state. */
  edit: LiveEditor | undefined;
}
