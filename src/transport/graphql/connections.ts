import { errors } from '../../domain/errorCatalogue.ts';
import { invalidArgument } from '../../domain/errors.ts';
import type { Caller } from '../../auth/caller.ts';
import type { GraphQLContext } from './context.ts';

export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/** The client address, as REST sees it (honours TRUST_PROXY). */
export function clientIpOf(ctx: GraphQLContext): string {
  return ctx.request?.ip ?? ctx.clientIp ?? '';
}

/** The signed-in caller, or the same 401 REST gives. */
export function callerOf(ctx: GraphQLContext): Caller {
  if (!ctx.caller) {
    throw errors.CREDENTIALS_REQUIRED('sign in, or sign the request with an API key');
  }
  return ctx.caller;
}

/** GraphQL input objects carry nulls for absent fields; the services take absent as undefined. */
export function defined<T extends object>(o: T | null | undefined): { [K in keyof T]: Exclude<T[K], null> } | undefined {
  if (o === null || o === undefined) return undefined;
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined)) as never;
}

/**
 * A Relay connection over a service's keyset page: `first`/`after` become the service's
 * `limit`/`pageToken`, so GraphQL cursors are the same bound, opaque tokens as /v1's.
 * Lists are forward-only: `last`/`before` are refused.
 */
export async function connectionFromPage<T>(
  args: ConnectionArgs,
  defaultLimit: number,
  load: (page: { limit: number; pageToken?: string }) => Promise<{ items: T[]; nextPageToken: string }>,
) {
  if (args.last != null || args.before != null) {
    throw invalidArgument(args.last != null ? 'last' : 'before', 'lists are paged forward with first/after', 'forward-only');
  }
  const page = await load({ limit: args.first ?? defaultLimit, ...(args.after ? { pageToken: args.after } : {}) });
  const end = page.nextPageToken === '' ? null : page.nextPageToken;
  return {
    edges: page.items.map((node, i) => ({ cursor: i === page.items.length - 1 ? (end ?? '') : '', node })),
    pageInfo: { hasNextPage: end !== null, hasPreviousPage: false, startCursor: null, endCursor: end },
  };
}
