import { z } from 'zod';
import { parseArgs } from './validate.ts';

/**
 * The `first` of a list nested in a type (a layer's drawings, a trigger's events and child
 * orders): how many rows it reads, `fallback` when absent. A value outside 1..`max` is
 * refused as a connection's `first` is (400 invalid-argument naming `first`), never quietly
 * changed into another. The cost limit prices the list before it runs, so `cost` only bounds
 * the value: a refused one never reads anything.
 */
export function nestedFirst(fallback: number, max: number) {
  const schema = z.strictObject({ first: z.number().int().min(1).max(max).optional() });
  return {
    description: `1 to ${max}, default ${fallback}`,
    take: (args: { first?: number | null }) => parseArgs(schema, { first: args.first }).first ?? fallback,
    cost: (args: { first?: number | null }) => Math.min(Math.max(args.first ?? fallback, 1), max),
  };
}
