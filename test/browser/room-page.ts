/// <reference lib="dom" />
import { HocuspocusProvider } from '@hocuspocus/provider';
import * as Y from 'yjs';

/**
 * The browser side of the real-browser room test: yjs and @hocuspocus/provider bundled
 * by esbuild, driven by the test through `window.room`. The scene is read as a client
 * reads it, in the mapping of src/services/whiteboards/scene.ts: `elements` (one Y.Map per
 * element) and `scene.version`.
 */
interface Scene {
  elements: Record<string, unknown>[];
  version: number;
}

declare global {
  interface Window {
    room: {
      open(url: string, boardId: string, token: string): Promise<void>;
      set(key: string, value: string): void;
      get(key: string): string | undefined;
      scope(): string | undefined;
      addElement(element: Record<string, unknown>): void;
      scene(): Scene;
      /** What the page saw of its connection: close reasons, refusals, and whether it is authenticated now. */
      state(): { closes: string[]; refusals: string[]; authenticated: boolean };
      close(): void;
    };
  }
}

let doc: Y.Doc | undefined;
let provider: HocuspocusProvider | undefined;
const closes: string[] = [];
const refusals: string[] = [];

window.room = {
  open(url, boardId, token) {
    doc = new Y.Doc();
    return new Promise((resolve, reject) => {
      provider = new HocuspocusProvider({
        url,
        name: boardId,
        document: doc,
        token,
        onSynced: () => resolve(),
        onAuthenticationFailed: ({ reason }) => {
          refusals.push(reason);
          reject(new Error(reason));
        },
        // A Hocuspocus close message and the socket's own close both arrive here; the
        // reason is what a client shows.
        onClose: ({ event }) => closes.push(event.reason),
      });
    });
  },
  set(key, value) {
    doc!.getMap<string>('notes').set(key, value);
  },
  get(key) {
    return doc?.getMap<string>('notes').get(key);
  },
  scope() {
    return provider?.authorizedScope;
  },
  addElement(element) {
    doc!.getArray<Y.Map<unknown>>('elements').push([new Y.Map<unknown>(Object.entries(element))]);
  },
  scene() {
    const elements = doc!.getArray<Y.Map<unknown>>('elements').toArray().map((m) => m.toJSON() as Record<string, unknown>);
    const version = doc!.getMap('scene').get('version');
    return { elements, version: typeof version === 'number' ? version : 0 };
  },
  state() {
    return { closes: [...closes], refusals: [...refusals], authenticated: provider?.isAuthenticated ?? false };
  },
  close() {
    provider?.destroy();
  },
};
