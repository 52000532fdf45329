import type { z } from 'zod';
import { validationError } from '../problem.ts';

/**
 * GraphQL arguments in the JSON form /v1 receives: Int64 as decimal text, null as absent.
 * Parsing that with an operation's `<op>.schema.ts` bounds both transports alike.
 */
function wireForm(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return v.map(wireForm);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([, x]) => x != null).map(([k, x]) => [k, wireForm(x)]));
  return v;
}

/**
 * Validates GraphQL arguments with the operation's input schema; a misfit is the same
 * invalid-argument as over /v1. `part` names the /v1 request part the schema reads: a query
 * schema parses numbers and booleans as the text a query string carries, and the detail names
 * the part as /v1 would.
 */
export function parseArgs<S extends z.ZodType>(schema: S, args: unknown, part: 'input' | 'params' | 'query' = 'input'): z.output<S> {
  const parsed = schema.safeParse(part === 'query' ? queryForm(args) : wireForm(args));
  if (!parsed.success) throw validationError(parsed.error, part);
  return parsed.data;
}

/** Query strings carry text: what a /v1 query schema parses is numbers and booleans as text. */
function queryForm(v: unknown): unknown {
  const wire = wireForm(v);
  if (wire === null || typeof wire !== 'object') return wire;
  return Object.fromEntries(Object.entries(wire).map(([k, x]) => [k, typeof x === 'number' || typeof x === 'boolean' ? String(x) : x]));
}
