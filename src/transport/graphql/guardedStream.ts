import { Repeater } from '@graphql-yoga/subscription';
import type { Caller } from '../../auth/caller.ts';
import type { LiveCredential } from '../../auth/credentialWatch.ts';
import { ApiError, errors } from '../../domain/errorCatalogue.ts';
import { requirePermission } from '../../services/access.ts';
import type { GraphQLContext } from './context.ts';
import { toGraphQLError } from './errors.ts';

const credentialDead = () =>
  errors.CREDENTIALS_REVOKED('the connection’s credentials are no longer valid');

/**
 * A private stream that sends each event only if the subscriber's credential, as it is at
 * that moment, may still see it: READ, and the same account scope as when it subscribed.
 * A change that takes that away ends the stream at once (with the error a new request
 * would get), not at its next event. Errors reach the client with their code.
 */
export async function guardedStream<T>(ctx: GraphQLContext, subscribed: Caller, source: AsyncIterableIterator<T>): Promise<AsyncIterableIterator<T>> {
  // A graphql-ws socket follows its credential already; a stream over HTTP (server-sent
  // events) follows it for as long as it lasts.
  const ip = ctx.request?.ip ?? ctx.clientIp ?? '';
  let own: LiveCredential | undefined;
  try {
    own = ctx.live ? undefined : ctx.services.authenticator.watch(await ctx.services.authenticator.inspect(subscribed, ip), ip);
  } catch (err) {
    // The source is already listening: a stream that never starts must let go of it.
    void source.return?.();
    throw err;
  }
  const live = (ctx.live ?? own) as LiveCredential;
  const verdict = async (): Promise<ApiError | undefined> => {
    const caller = await live.current();
    if (!caller) return credentialDead();
    try {
      requirePermission(caller, 'READ');
    } catch (err) {
      return err as ApiError;
    }
    const scope = (c: Caller) => (c.kind === 'apiKey' ? c.subaccountId : undefined);
    if (scope(caller) !== scope(subscribed)) {
      return errors.KEY_SCOPE_VIOLATION('the API key’s account scope changed');
    }
    return undefined;
  };
  return new Repeater<T>(async (push, stop) => {
    const off = live.onChange(() => {
      void verdict().then((err) => err && stop(toGraphQLError(err)));
    });
    void stop.then(() => {
      off();
      own?.release();
      void source.return?.();
    });
    try {
      for (let next = await source.next(); !next.done; next = await source.next()) {
        const err = await verdict();
        if (err) throw err;
        await push(next.value);
      }
      stop();
    } catch (err) {
      stop(toGraphQLError(err));
    }
  });
}

/** A public stream: only its errors are given their code (a resync request, say). */
export function publicStream<T>(source: AsyncIterableIterator<T>): AsyncIterableIterator<T> {
  return new Repeater<T>(async (push, stop) => {
    void stop.then(() => void source.return?.());
    try {
      for (let next = await source.next(); !next.done; next = await source.next()) await push(next.value);
      stop();
    } catch (err) {
      stop(toGraphQLError(err));
    }
  });
}
