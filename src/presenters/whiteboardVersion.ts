import { z } from 'zod';
import type { WhiteboardRestored, WhiteboardVersion } from '../services/whiteboards/index.ts';
import { rfc3339, toRfc3339 } from './scalars.ts';

/** One stored snapshot of a board. */
export const whiteboardVersionSchema = z.strictObject({
  versionId: z.string(),
  createdAt: rfc3339,
  sizeBytes: z.number().int().describe('The version\'s document as one Yjs update'),
});

export const whiteboardVersionsSchema = z.strictObject({ versions: z.array(whiteboardVersionSchema) });

export const presentWhiteboardVersion = (v: WhiteboardVersion): z.infer<typeof whiteboardVersionSchema> => ({ versionId: v.versionId, createdAt: toRfc3339(v.createdAt), sizeBytes: v.sizeBytes });

export const presentWhiteboardVersions = (versions: WhiteboardVersion[]): z.infer<typeof whiteboardVersionsSchema> => ({ versions: versions.map(presentWhiteboardVersion) });

/** POST /v1/collab/whiteboards/{boardId}/versions/{versionId}/restore. */
export const whiteboardRestoredSchema = z.strictObject({ boardId: z.string(), versionId: z.string(), restoredAt: rfc3339 });

export const presentWhiteboardRestored = (r: WhiteboardRestored): z.infer<typeof whiteboardRestoredSchema> => ({ boardId: r.boardId, versionId: r.versionId, restoredAt: toRfc3339(r.restoredAt) });
