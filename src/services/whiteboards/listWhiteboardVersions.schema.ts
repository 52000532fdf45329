export { boardParams as listWhiteboardVersionsParams } from './getWhiteboard.schema.ts';
