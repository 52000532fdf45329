export { boardParams as deleteWhiteboardParams } from './getWhiteboard.schema.ts';
