import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { printSchemaSdl } from '../src/transport/graphql/sdl.ts';

/** Writes graphql/schema.graphql from the Pothos schema; a test fails when it is stale. */
const file = path.resolve(import.meta.dirname, '../graphql/schema.graphql');
await writeFile(file, printSchemaSdl());
console.log(`wrote ${path.relative(process.cwd(), file)}`);
