import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from './schema.ts';

/** The checked-in SDL: sorted, so it changes only when the schema does. */
export function printSchemaSdl(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
