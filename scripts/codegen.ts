import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildASTSchema, parse, print } from 'graphql';
import { codegen } from '@graphql-codegen/core';
import { preset } from '@graphql-codegen/client-preset';

/**
 * `npm run codegen`: typed documents for every operation in graphql/operations, generated
 * from the checked-in SDL into test/generated/graphql (the e2e tests and any TypeScript
 * client import them). The client preset is driven directly: graphql-codegen's CLI only
 * adds file loaders, a watcher and prompts, and its dependencies want Node 22.
 */
const root = path.resolve(import.meta.dirname, '..');
const OPERATIONS = path.join(root, 'graphql/operations');
const OUT = 'test/generated/graphql/';

const config = {
  documentMode: 'string',
  emitLegacyCommonJSImports: false,
  useTypeImports: true,
  enumsAsTypes: true,
  scalars: { Int64: 'string', DateTime: 'string' },
};

const schema = parse(await readFile(path.join(root, 'graphql/schema.graphql'), 'utf8'));
const names = (await readdir(OPERATIONS)).filter((n) => n.endsWith('.graphql')).sort();
if (names.length === 0) throw new Error(`no operations in ${OPERATIONS}`);
const documents = await Promise.all(
  names.map(async (name) => {
    const location = path.join(OPERATIONS, name);
    const document = parse(await readFile(location, 'utf8'));
    // graphql-codegen keys its `graphql()` overloads by the printed document, not the file's text.
    return { location, document, rawSDL: print(document) };
  }),
);

const outputs = await preset.buildGeneratesSection({
  baseOutputDir: OUT,
  presetConfig: { fragmentMasking: false },
  plugins: [],
  pluginMap: {},
  schema,
  schemaAst: buildASTSchema(schema),
  documents,
  config,
  documentTransforms: [],
});
for (const output of outputs) {
  // `.js` specifiers, as the CLI writes them when CommonJS-style imports are off.
  const content = await codegen({ ...output, emitLegacyCommonJSImports: false, importExtension: '.js' });
  const file = path.join(root, output.filename);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
}
