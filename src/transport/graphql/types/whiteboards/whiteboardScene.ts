import type { Scene } from '../../../../services/whiteboards/index.ts';
import { builder } from '../../builder.ts';

/**
 * Scene elements are free-form objects and GraphQL has no type for those, so they travel
 * as JSON text (`elementsJson`, `initialSnapshotJson`).
 */
export const SceneRef = builder.objectRef<Scene>('WhiteboardScene').implement({
  description: 'An Excalidraw-style scene',
  fields: (t) => ({
    elementsJson: t.string({ description: 'The elements array as JSON text', resolve: (s) => JSON.stringify(s.elements) }),
    version: t.exposeInt('version'),
  }),
});
