import type { ResolvedAccess } from '../../../../domain/whiteboard.ts';
import { builder } from '../../builder.ts';
import { Role } from './enums.ts';
import { PermissionsRef } from './whiteboardPermissions.ts';

export const Access = builder.objectRef<ResolvedAccess>('WhiteboardAccess').implement({
  description: "The caller's highest resolved role on a board, and what it allows",
  fields: (t) => ({
    role: t.field({ type: Role, resolve: (a) => a.role }),
    permissions: t.field({ type: PermissionsRef, resolve: (a) => a.permissions }),
  }),
});
