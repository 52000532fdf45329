import { createServer } from 'node:http';
import { createSchema, createYoga } from 'graphql-yoga';

/**
 * The baseline of bench/yoga-overhead.bench.ts, in a process of its own: a bare graphql-yoga
 * server with the service's own schema text (BENCH_SDL) and one resolver, spotConfig,
 * answering the value the service answered (BENCH_SPOT_CONFIG). No plugins, no context, no
 * authentication: what the same query costs through Yoga alone.
 */
const spotConfig = JSON.parse(process.env.BENCH_SPOT_CONFIG as string) as unknown;
const yoga = createYoga({
  schema: createSchema({ typeDefs: process.env.BENCH_SDL as string, resolvers: { Query: { spotConfig: () => spotConfig } } }),
  logging: false,
  graphiql: false,
});
const server = createServer(yoga);
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
