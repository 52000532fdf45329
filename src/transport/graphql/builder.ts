import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin, { decodeGlobalID } from '@pothos/plugin-relay';
import { GraphQLError, Kind } from 'graphql';
import { invalidArgument } from '../../domain/errors.ts';
import type PrismaTypes from '../../generated/pothos-types.ts';
import { getDatamodel } from '../../generated/pothos-types.ts';
import type { GraphQLContext } from './context.ts';

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  Scalars: {
    /** 64-bit integers travel as decimal strings, as in the /v1 JSON codec. */
    Int64: { Input: bigint; Output: bigint | number | string };
    DateTime: { Input: Date; Output: Date };
  };
}>({
  plugins: [PrismaPlugin, RelayPlugin],
  defaultFieldNullability: false,
  prisma: {
    client: (ctx) => ctx.db,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    // A malformed id is the caller's mistake, answered like any invalid argument.
    decodeGlobalID: (globalID) => {
      try {
        return decodeGlobalID(globalID);
      } catch {
        throw invalidArgument('id', 'is not a node id', 'global-id');
      }
    },
  },
});

builder.scalarType('Int64', {
  description: 'A 64-bit integer as a decimal string',
  serialize: (v) => BigInt(v).toString(),
  parseValue: (v) => parseInt64(v),
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING && ast.kind !== Kind.INT) throw new GraphQLError('Int64 must be a decimal string');
    return parseInt64(ast.value);
  },
});

builder.scalarType('DateTime', {
  description: 'An RFC 3339 UTC date-time',
  serialize: (v) => v.toISOString(),
  parseValue: (v) => parseDateTime(v),
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('DateTime must be a string');
    return parseDateTime(ast.value);
  },
});

function parseInt64(v: unknown): bigint {
  if (typeof v !== 'string' || !/^(0|-?[1-9][0-9]*)$/.test(v)) throw new GraphQLError('Int64 must be a decimal string');
  const n = BigInt(v);
  if (n < -(2n ** 63n) || n > 2n ** 63n - 1n) throw new GraphQLError('Int64 is out of range');
  return n;
}

function parseDateTime(v: unknown): Date {
  if (typeof v !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(v)) {
    throw new GraphQLError('DateTime must be an RFC 3339 date-time');
  }
  return new Date(v);
}

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
