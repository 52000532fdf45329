import type { TypedEventTarget } from '@graphql-yoga/typed-event-target';
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errorCatalogue.ts';
import { RESYNC } from '../../src/infra/eventBus.ts';
import { Publications } from '../../src/services/publications.ts';
import { publicStream } from '../../src/transport/graphql/guardedStream.ts';

/**
 * When the bus reports lost messages on a topic, its streams end with RESYNC_REQUIRED
 * (the client reloads and subscribes again) instead of silently missing events; the
 * GraphQL layer hands the code to the client.
 */
describe('a resync on a topic', () => {
  it('ends the topic’s streams with RESYNC_REQUIRED after the events before it, with the code on the GraphQL error', async () => {
    const target = new EventTarget() as TypedEventTarget<CustomEvent>;
    const publications = new Publications<number>(target);
    const plain = publications.subscribe('t');
    const graphql = publicStream(publications.subscribe('t'));
    const first = [plain.next(), graphql.next()];
    await new Promise((r) => setTimeout(r, 10));
    publications.publish('t', 1);
    expect((await Promise.all(first)).map((r) => r.value)).toEqual([1, 1]);
    target.dispatchEvent(new CustomEvent('t', { detail: RESYNC }));
    const plainError = await plain.next().catch((e: unknown) => e);
    expect(plainError).toBeInstanceOf(ApiError);
    expect((plainError as ApiError).code).toBe('RESYNC_REQUIRED');
    const graphqlError = await graphql.next().catch((e: unknown) => e);
    expect(graphqlError).toBeInstanceOf(GraphQLError);
    expect((graphqlError as GraphQLError).extensions.code).toBe('RESYNC_REQUIRED');
  });
});
