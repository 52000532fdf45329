export { boardParams as exportWhiteboardParams } from './getWhiteboard.schema.ts';
