import { z } from 'zod';
import { pageQuery, queryBool } from '../inputCodec.ts';

export const WHITEBOARD_LIST_DEFAULT = 100;
export const WHITEBOARD_LIST_MAX = 500;

export const listWhiteboardsQuery = z.strictObject({ includeArchived: queryBool().optional(), ...pageQuery(WHITEBOARD_LIST_MAX) });
export type ListWhiteboardsQuery = z.output<typeof listWhiteboardsQuery>;
