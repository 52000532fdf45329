import { AUDIENCES, DEFAULT_ROLES, MEMBER_ROLES, WHITEBOARD_ROLES } from '../../../../domain/whiteboard.ts';
import { builder } from '../../builder.ts';

export const Audience = builder.enumType('WhiteboardAudience', { values: AUDIENCES });
export const DefaultRole = builder.enumType('WhiteboardDefaultRole', { values: DEFAULT_ROLES });
export const Role = builder.enumType('WhiteboardRole', { values: WHITEBOARD_ROLES });
export const MemberRole = builder.enumType('WhiteboardMemberRole', { values: MEMBER_ROLES });
