import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin, { decodeGlobalID } from '@pothos/plugin-relay';
import { getNullableType, GraphQLError, isListType, Kind, type GraphQLField } from 'graphql';
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
  plugins: [ComplexityPlugin, PrismaPlugin, RelayPlugin],
  defaultFieldNullability: false,
  // Weights only: the limit is a validation rule (server.ts), so it refuses before anything runs.
  complexity: { fieldComplexity: fieldCost },
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

/**
 * What a field costs: one per field, its selection counted once per row it can return.
 * A paged field (a connection, or a `...Page`) returns at most `first`/`limit` rows, capped
 * at the largest page any list serves (a bigger one is refused by its service, naming
 * `limit`, as over /v1); an absent page size is costed as `absentPageRows`. The list inside
 * a page (`edges`, `triggers`) adds nothing beyond that. Other lists are short and fixed
 * (markets, assets, book levels): `listRows` each.
 */
export const COST_WEIGHTS = { absentPageRows: 100, maxPageRows: 1_000, listRows: 10 } as const;
const PAGED = /(Connection|Page)$/;

function fieldCost(args: Record<string, unknown>, _ctx: GraphQLContext, field: GraphQLField<unknown, GraphQLContext>) {
  const page = args.first ?? args.last ?? args.limit;
  if (typeof page === 'number') return { field: 1, multiplier: Math.min(Math.max(page, 0), COST_WEIGHTS.maxPageRows) };
  const type = getNullableType(field.type);
  if (isListType(type)) {
    const parent = (field.extensions as { pothosConfig?: { parentType?: string } }).pothosConfig?.parentType ?? '';
    return { field: 1, multiplier: PAGED.test(parent) ? 1 : COST_WEIGHTS.listRows };
  }
  return { field: 1, multiplier: PAGED.test(String(type)) ? COST_WEIGHTS.absentPageRows : 1 };
}

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
