import type { Audience, DefaultRole, MemberRole, ResolvedAccess } from '../../domain/whiteboard.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { EMPTY_SCENE, type Scene } from './scene.ts';

/** What the whiteboard operations answer, before either transport renders it. */

export interface WhiteboardView {
  boardId: string;
  ownerAccountId: string;
  title: string;
  audience: Audience;
  defaultRole: DefaultRole;
  accessVersion: bigint;
  initialSnapshot: Scene;
  createdAt: Date;
  updatedAt: Date;
  archivedAt: Date | null;
}

export interface WhiteboardItem {
  board: WhiteboardView;
  access: ResolvedAccess;
}

export interface WhiteboardMember {
  accountId: string;
  role: 'OWNER' | MemberRole;
  /** When the role was given (the board's creation for the owner). */
  addedAt: Date;
}

export interface WhiteboardVersion {
  versionId: string;
  createdAt: Date;
  /** The version's Y.Doc as one (garbage-collected) Yjs update. */
  sizeBytes: number;
}

export interface WhiteboardRestored {
  boardId: string;
  versionId: string;
  restoredAt: Date;
}

export interface WhiteboardExport {
  boardId: string;
  scene: Scene;
}

export const BOARD_INCLUDE = (rootAccountId: bigint) =>
  ({
    ownerAccount: { select: { publicId: true } },
    aclEntries: { where: { principalAccountId: rootAccountId }, select: { role: true, principalAccountId: true } },
  }) satisfies Prisma.WhiteboardInclude;

export type BoardRow = Prisma.WhiteboardGetPayload<{ include: ReturnType<typeof BOARD_INCLUDE> }>;

export function boardView(row: BoardRow): WhiteboardView {
  const snapshot = row.initialSnapshot as unknown as Scene;
  return {
    boardId: row.boardId,
    ownerAccountId: row.ownerAccount.publicId,
    title: row.title,
    audience: row.audience as Audience,
    defaultRole: row.defaultRole as DefaultRole,
    accessVersion: row.accessVersion,
    initialSnapshot: snapshot ?? EMPTY_SCENE,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    archivedAt: row.archivedAt,
  };
}
