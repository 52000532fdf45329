/// <reference lib="dom" />
import { HocuspocusProvider } from '@hocuspocus/provider';
import * as Y from 'yjs';

/**
 * The browser side of the real-browser room test: yjs and @hocuspocus/provider bundled
 * by esbuild, driven by the test through `window.room`.
 */
declare global {
  interface Window {
    room: {
      open(url: string, boardId: string, token: string): Promise<void>;
      set(key: string, value: string): void;
      get(key: string): string | undefined;
      scope(): string | undefined;
    };
  }
}

let doc: Y.Doc | undefined;
let provider: HocuspocusProvider | undefined;

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
        onAuthenticationFailed: ({ reason }) => reject(new Error(reason)),
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
};
