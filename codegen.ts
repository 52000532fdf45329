import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * Typed documents for every operation in graphql/operations, generated from the
 * checked-in SDL. The e2e tests (and any TypeScript client) import them.
 */
const config: CodegenConfig = {
  schema: 'graphql/schema.graphql',
  documents: ['graphql/operations/*.graphql'],
  ignoreNoDocuments: false,
  generates: {
    'test/generated/graphql/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        documentMode: 'string',
        emitLegacyCommonJSImports: false,
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: { Int64: 'string', DateTime: 'string' },
      },
    },
  },
  silent: true,
};

export default config;
