import type { Permissions } from '../../../../domain/whiteboard.ts';
import { builder } from '../../builder.ts';

export const PermissionsRef = builder.objectRef<Permissions>('WhiteboardPermissions').implement({
  fields: (t) => ({
    canView: t.exposeBoolean('canView'),
    canEdit: t.exposeBoolean('canEdit'),
    canManage: t.exposeBoolean('canManage'),
  }),
});
