export { memberParams as removeWhiteboardMemberParams } from './setWhiteboardMember.schema.ts';
