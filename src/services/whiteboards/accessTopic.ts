import type { TypedEventTarget } from '@graphql-yoga/typed-event-target';
import { isResync, markCritical } from '../../infra/eventBus.ts';
import { Publications } from '../publications.ts';
import { topicString } from '../topicBus.ts';

/** A board's committed access change (audience, roles, members, archive state, deletion). */
export interface WhiteboardAccessChanged {
  boardId: string;
  accessVersion: bigint;
  /** The board is gone: its rooms close for everyone. */
  deleted?: boolean;
}

/** The whiteboards' topic: every board's access changes, for every process with rooms; one topic, no key. */
export interface WhiteboardTopics {
  'whiteboard-access': { key: null; payload: WhiteboardAccessChanged };
}

/**
 * Joined with every other topic in services/topics.ts. Rooms-only processes (roomsMain.ts)
 * follow it without the rest of the services, so it keeps a Publications of its own.
 */
export const accessTopic = (topicPrefix: string) => topicString(topicPrefix, 'whiteboard-access' satisfies keyof WhiteboardTopics, null);

/**
 * Committed access changes (audience, default role, members, archive state, deletion) of
 * every board, published after commit so open rooms on every process re-resolve their
 * connections' roles.
 */
export class AccessChanges {
  private readonly topic: string;
  private readonly publications: Publications<WhiteboardAccessChanged>;

  constructor(
    private readonly events: TypedEventTarget<CustomEvent>,
    topicPrefix: string,
  ) {
    this.topic = accessTopic(topicPrefix);
    this.publications = new Publications<WhiteboardAccessChanged>(events);
    // A lost access change would leave a removed member editing: never dropped for other traffic.
    markCritical(events, this.topic);
  }

  /** The board's access changed; its rooms re-resolve every connection's role. */
  changed(board: { boardId: string; accessVersion: bigint }): void {
    this.publications.publish(this.topic, { boardId: board.boardId, accessVersion: board.accessVersion });
  }

  /** The board is gone: its rooms close for everyone. */
  deleted(board: { boardId: string; accessVersion: bigint }): void {
    this.publications.publish(this.topic, { boardId: board.boardId, accessVersion: board.accessVersion, deleted: true });
  }

  /**
   * Follows the access changes of every board, from every process, after commit: `changed`
   * for each, `gap` when some may have been lost on the way (every open connection must
   * then be resolved again). It never ends; the returned function stops it.
   */
  watch(handlers: { changed(boardId: string, deleted: boolean): void; gap(): void }): () => void {
    const listener = (event: CustomEvent) => {
      if (isResync(event.detail)) handlers.gap();
      else if (Array.isArray(event.detail)) {
        for (const change of event.detail as WhiteboardAccessChanged[]) handlers.changed(change.boardId, change.deleted === true);
      }
    };
    this.events.addEventListener(this.topic, listener);
    return () => this.events.removeEventListener(this.topic, listener);
  }
}
