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

/** Validates GraphQL arguments with the operation's input schema; a misfit is the same invalid-argument as over /v1. */
export function parseArgs<S extends z.ZodType>(schema: S, args: unknown): z.output<S> {
  const parsed = schema.safeParse(wireForm(args));
  if (!parsed.success) throw validationError(parsed.error, 'input');
  return parsed.data;
}
