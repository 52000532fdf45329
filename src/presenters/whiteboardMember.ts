import { z } from 'zod';
import { WHITEBOARD_ROLES } from '../domain/whiteboard.ts';
import type { WhiteboardMember } from '../services/whiteboards/index.ts';
import { rfc3339, toRfc3339 } from './scalars.ts';

/** One account's role on a board: the owner's, or an ACL entry's. */
export const whiteboardMemberSchema = z.strictObject({
  accountId: z.string(),
  role: z.enum(WHITEBOARD_ROLES),
  addedAt: rfc3339.describe('When the role was given; the board\'s creation for its owner'),
});

export const whiteboardMembersSchema = z.strictObject({ members: z.array(whiteboardMemberSchema) });

export const presentWhiteboardMember = (m: WhiteboardMember): z.infer<typeof whiteboardMemberSchema> => ({ accountId: m.accountId, role: m.role, addedAt: toRfc3339(m.addedAt) });

export const presentWhiteboardMembers = (members: WhiteboardMember[]): z.infer<typeof whiteboardMembersSchema> => ({ members: members.map(presentWhiteboardMember) });
