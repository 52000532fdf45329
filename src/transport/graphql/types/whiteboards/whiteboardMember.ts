import type { WhiteboardMember } from '../../../../services/whiteboards/index.ts';
import { builder } from '../../builder.ts';
import { Role } from './enums.ts';

export const MemberRef = builder.objectRef<WhiteboardMember>('WhiteboardMember').implement({
  description: 'The owner, or an account holding a role on the board',
  fields: (t) => ({
    accountId: t.exposeString('accountId'),
    role: t.field({ type: Role, resolve: (m) => m.role }),
    addedAt: t.expose('addedAt', { type: 'DateTime' }),
  }),
});
