export { boardParams as listWhiteboardMembersParams } from './getWhiteboard.schema.ts';
