import { writeFileSync } from 'node:fs';
import { openApiDocument } from '../src/transport/openapiDocument.ts';

/** Writes /v1/openapi.json (operator routes included) without a database: `npm run client:generate`. */
const doc = await openApiDocument();
const out = process.argv[2];
const text = `${JSON.stringify(doc, null, 2)}\n`;
if (out) writeFileSync(out, text);
else process.stdout.write(text);
