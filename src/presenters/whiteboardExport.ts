import { z } from 'zod';
import type { Scene } from '../services/whiteboards/index.ts';
import { presentScene, sceneSchema } from './whiteboard.ts';

/** GET /v1/collab/whiteboards/{boardId}/export: the board's current scene, unstored room edits included. */
export const whiteboardExportSchema = z.strictObject({ boardId: z.string(), scene: sceneSchema });

export const presentWhiteboardExport = (r: { boardId: string; scene: Scene }): z.infer<typeof whiteboardExportSchema> => ({ boardId: r.boardId, scene: presentScene(r.scene) });
